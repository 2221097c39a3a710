package load

import (
	"math"
	"sort"
	"time"
)

// Segment is one piece of a Profile: the target goes linearly from From at
// Start to To at End. A slot is a segment with From == To; a ramp is one
// with From != To.
type Segment struct {
	Start, End time.Duration
	From, To   float64
}

// Profile is a tenant's target over the workload phase, as a function of
// the time since the phase started (warmup included): clients for a closed
// load, arrivals per second for an open one. It is piecewise linear: a list
// of segments in time order, not overlapping. Where no segment covers a
// time, the target is 0 (before a tenant starts, after it stops).
type Profile struct {
	Segs []Segment
}

// Constant is a profile of v from 0 to end.
func Constant(v float64, end time.Duration) Profile {
	return Profile{Segs: []Segment{{Start: 0, End: end, From: v, To: v}}}
}

func secs(d time.Duration) float64 { return d.Seconds() }

func dur(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/1e9 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(s * 1e9))
}

// at is the value of s at t, for Start <= t <= End.
func (s Segment) at(t time.Duration) float64 {
	if s.From == s.To || s.End == s.Start {
		return s.From
	}
	f := secs(t-s.Start) / secs(s.End-s.Start)
	return s.From + (s.To-s.From)*f
}

// area is the integral of s over [Start, End], in target x seconds: the
// expected arrivals of an open load.
func (s Segment) area() float64 { return (s.From + s.To) / 2 * secs(s.End-s.Start) }

// End is when the last segment ends: after it the target is 0.
func (p Profile) End() time.Duration {
	if len(p.Segs) == 0 {
		return 0
	}
	return p.Segs[len(p.Segs)-1].End
}

// find is the index of the segment that covers t (Start <= t < End), or -1.
func (p Profile) find(t time.Duration) int {
	i := sort.Search(len(p.Segs), func(i int) bool { return p.Segs[i].End > t })
	if i < len(p.Segs) && p.Segs[i].Start <= t {
		return i
	}
	return -1
}

// At is the target at t.
func (p Profile) At(t time.Duration) float64 {
	if i := p.find(t); i >= 0 {
		return p.Segs[i].at(t)
	}
	return 0
}

// Max is the highest target of the profile.
func (p Profile) Max() float64 {
	m := 0.0
	for _, s := range p.Segs {
		m = max(m, s.From, s.To)
	}
	return m
}

// Integral is the integral of the target over [a, b): for an open load, the
// expected number of arrivals.
func (p Profile) Integral(a, b time.Duration) float64 {
	sum := 0.0
	for _, s := range p.Segs {
		lo, hi := max(a, s.Start), min(b, s.End)
		if lo >= hi {
			continue
		}
		sum += (s.at(lo) + s.at(hi)) / 2 * secs(hi-lo)
	}
	return sum
}

// Mean is the mean target over [a, b).
func (p Profile) Mean(a, b time.Duration) float64 {
	if b <= a {
		return 0
	}
	return p.Integral(a, b) / secs(b-a)
}

// NextAtLeast is the earliest time at or after t when the target is at
// least level (> 0), and false when that never happens again. A closed
// load's client k runs while the target is at least k + 0.5 (see Active).
func (p Profile) NextAtLeast(t time.Duration, level float64) (time.Duration, bool) {
	i := sort.Search(len(p.Segs), func(i int) bool { return p.Segs[i].End > t })
	for ; i < len(p.Segs); i++ {
		s := p.Segs[i]
		from := max(t, s.Start)
		v0 := s.at(from)
		if v0 >= level {
			return from, true
		}
		if s.To <= v0 || s.To < level {
			continue // flat or falling below the level, or never reaching it
		}
		// rising through level within the segment
		f := (level - s.From) / (s.To - s.From)
		at := s.Start + dur(f*secs(s.End-s.Start))
		for at < s.End && s.at(at) < level {
			at++ // rounding to whole nanoseconds may land a hair short
		}
		if at < s.End {
			return max(at, from), true
		}
	}
	return 0, false
}

// Cursor walks the integral of a profile forward: Time(x) is when the
// integral from 0 reaches x. x must not decrease from call to call; each
// call then costs O(1) amortised. An open load's arrival i is due when the
// integral reaches its position (load/open.go).
type Cursor struct {
	p    *Profile
	i    int     // current segment
	base float64 // integral up to the start of segment i
}

// NewCursor starts a cursor at the beginning of p.
func NewCursor(p *Profile) *Cursor { return &Cursor{p: p} }

// Time is the time at which the integral of the target from 0 reaches x,
// and false when the profile ends before.
func (c *Cursor) Time(x float64) (time.Duration, bool) {
	segs := c.p.Segs
	for c.i < len(segs) {
		a := segs[c.i].area()
		if c.base+a >= x && a > 0 {
			break
		}
		c.base += a
		c.i++
	}
	if c.i == len(segs) {
		return 0, false
	}
	s := segs[c.i]
	r := max(0, x-c.base) // target-seconds into segment i
	l := secs(s.End - s.Start)
	// Solve From*u + (To-From)/(2l)*u^2 = r for u in [0, l]; this form of
	// the root is exact for flat segments and stable when From is 0.
	a := (s.To - s.From) / (2 * l)
	disc := s.From*s.From + 4*a*r
	u := 0.0
	if den := s.From + math.Sqrt(max(0, disc)); den > 0 {
		u = 2 * r / den
	}
	u = min(max(u, 0), l)
	t := s.Start + dur(u)
	if t >= s.End {
		t = s.End - 1
	}
	return t, true
}
