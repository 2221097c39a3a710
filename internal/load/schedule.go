package load

import "time"

// Stage is one step of a ramping schedule: the target moves linearly to
// Target over Duration (grafana/k6's ramping executors have the same
// notion; an equal target holds it).
type Stage struct {
	Duration time.Duration
	Target   float64
}

// Slots is a profile of one value per time slot, each slot long, the way
// Zhang et al. 2025 (section II-C) change the concurrency once a minute. A
// zero slot is a pause: no clients, no arrivals.
func Slots(slot time.Duration, values []float64) Profile {
	var p Profile
	for i, v := range values {
		start := time.Duration(i) * slot
		p.Segs = append(p.Segs, Segment{Start: start, End: start + slot, From: v, To: v})
	}
	return p
}

// Stages is a profile that starts at from and ramps linearly through the
// stages in turn.
func Stages(from float64, stages []Stage) Profile {
	var p Profile
	var t time.Duration
	v := from
	for _, s := range stages {
		if s.Duration > 0 {
			p.Segs = append(p.Segs, Segment{Start: t, End: t + s.Duration, From: v, To: s.Target})
		}
		t += s.Duration
		v = s.Target
	}
	return p
}

// Window keeps the part of p within [start, stop) and makes the target 0
// elsewhere: a tenant that starts late or stops early (staggered tenants).
// stop <= 0 means no stop.
func (p Profile) Window(start, stop time.Duration) Profile {
	var out Profile
	for _, s := range p.Segs {
		lo, hi := max(s.Start, start), s.End
		if stop > 0 {
			hi = min(hi, stop)
		}
		if lo >= hi {
			continue
		}
		out.Segs = append(out.Segs, Segment{Start: lo, End: hi, From: s.at(lo), To: s.at(hi)})
	}
	return out
}

// Cut ends p at end: a schedule longer than the workload phase does not
// run past it.
func (p Profile) Cut(end time.Duration) Profile { return p.Window(0, end) }

// Scale multiplies the target by f.
func (p Profile) Scale(f float64) Profile {
	out := Profile{Segs: make([]Segment, len(p.Segs))}
	for i, s := range p.Segs {
		out.Segs[i] = Segment{Start: s.Start, End: s.End, From: s.From * f, To: s.To * f}
	}
	return out
}

// Windows are the starts of the result slots of a schedule: where its
// slots or stages begin, or every `every` for a schedule without steps
// (a sinusoid, a constant). Results per slot (runs/<id>/slots.csv) are cut
// at these times; the first is always 0 and all are below end.
func Windows(bounds []time.Duration, every, end time.Duration) []time.Duration {
	out := []time.Duration{0}
	add := func(t time.Duration) {
		if t > out[len(out)-1] && t < end {
			out = append(out, t)
		}
	}
	if len(bounds) > 0 {
		for _, b := range bounds {
			add(b)
		}
		return out
	}
	if every <= 0 {
		return out
	}
	for t := every; t < end; t += every {
		add(t)
	}
	return out
}

// SlotStarts are the starts of n slots of length slot.
func SlotStarts(slot time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i) * slot
	}
	return out
}

// StageStarts are the starts of the stages.
func StageStarts(stages []Stage) []time.Duration {
	out := make([]time.Duration, 0, len(stages))
	var t time.Duration
	for _, s := range stages {
		out = append(out, t)
		t += s.Duration
	}
	return out
}
