package spec

import (
	"fmt"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

// LoadPlan resolves the spec's load for run r of its plan (its tenants,
// rate and pattern): every tenant's profile over the workload phase, its
// connections and its result slots. The spec must be valid. It is built
// when the run starts, not kept in the plan: a sinusoid's profile is
// sampled every second.
func (s *Spec) LoadPlan(r *Run) *load.Plan { return s.loadPlan(r, r.Tenants) }

// loadPlan is LoadPlan for the first n tenants of r.
func (s *Spec) loadPlan(r *Run, n int) *load.Plan {
	rw := s.WorkloadOf(r) // its case's pattern
	w := &rw
	phase := w.phase()
	sh := w.Shape()
	// r.Clients is what resolveLoad made of it: the connections a tenant
	// opens at most.
	lp := &load.Plan{Shape: sh.Resolve(r.Clients), Pattern: r.Pattern}
	// Where the schedule gives no values, the target is the run's clients
	// (then r.Clients is workload.clients) or its rate.
	base := w.base(r.Clients, r.Rate)
	var vals [][]float64
	if w.Pattern != nil {
		vals, _ = load.Values(w.loadPattern(r.Pattern, r.Tenants), w.target().Clients)
	}
	var members []Member
	if s.Tenancy.Classes != nil {
		members = s.Members(r)
	}
	for i := range min(n, r.Tenants) {
		t := load.Tenant{}
		base := base
		if members != nil {
			// A class's clients or rate is its tenants' base target.
			base = w.base(members[i].Clients, members[i].Rate)
		}
		switch {
		case w.Pattern != nil:
			slot := w.Pattern.Slot.D()
			t.Profile = load.Slots(slot, vals[i]).Cut(phase)
			t.Windows = load.Windows(load.SlotStarts(slot, len(vals[i])), slot, phase)
			t.Varies = true
		case w.Schedule != nil:
			t.Profile, t.Windows = w.Schedule.tenant(i, base, phase)
			t.Varies = true
		default:
			t.Profile = load.Constant(base, phase)
		}
		t.Conns = lp.Shape.Conns(t.Profile.Max(), r.Clients)
		if members != nil {
			t.Conns = members[i].Conns
		}
		lp.Tenants = append(lp.Tenants, t)
	}
	return lp
}

// tenant is tenant i's profile and result slots under the schedule; base
// is the target where the schedule gives no values.
func (sc *Schedule) tenant(i int, base float64, phase time.Duration) (load.Profile, []time.Duration) {
	slots, stages, sn := sc.Slots, sc.Stages, sc.Sinusoid
	start, stop := sc.Start.D()+time.Duration(i)*sc.Stagger.D(), sc.Stop.D()
	if i < len(sc.Tenants) {
		t := sc.Tenants[i]
		if t.values() {
			slots, stages, sn = t.Slots, t.Stages, t.Sinusoid
		}
		if t.Start != nil {
			start = t.Start.D()
		}
		if t.Stop != nil {
			stop = t.Stop.D()
		}
	}
	var p load.Profile
	var bounds []time.Duration
	switch {
	case slots != nil:
		p, bounds = load.Slots(sc.Slot.D(), slots), load.SlotStarts(sc.Slot.D(), len(slots))
	case stages != nil:
		ls := make([]load.Stage, len(stages))
		for j, st := range stages {
			ls[j] = load.Stage{Duration: st.Duration.D(), Target: st.Target}
		}
		p, bounds = load.Stages(0, ls), load.StageStarts(ls)
	case sn != nil:
		p = load.Sinusoid{Mean: sn.Mean, Amplitude: sn.Amplitude, Period: sn.Period.D(), Shift: sn.Shift.D()}.Profile(i, phase)
	default:
		p = load.Constant(base, phase)
	}
	return p.Window(start, stop).Cut(phase), load.Windows(bounds, sc.Slot.D(), phase)
}

// base is the target where no schedule or pattern gives one: clients
// (workload.clients) or a rate (workload.load.rate), as the shape's
// target is.
func (w *Workload) base(clients int, rate float64) float64 {
	if w.target().Clients {
		return float64(clients)
	}
	return rate
}

// conns is the most connections a tenant of run r opens, as the shape
// works it out from the peak of the target (no profile is built).
// clientsValue is workload.clients' value for the run.
func (s *Spec) conns(r *Run, clientsValue int) int {
	return s.Workload.Shape().Conns(s.peak(r, s.Workload.base(clientsValue, r.Rate)), clientsValue)
}

// peak is the most any tenant's target of run r reaches, from the
// schedule's or pattern's values; base where they give none.
func (s *Spec) peak(r *Run, base float64) float64 {
	rw := s.WorkloadOf(r) // its case's pattern
	w := &rw
	most := 0.0
	switch {
	case w.Pattern != nil:
		vals, _ := load.Values(w.loadPattern(r.Pattern, r.Tenants), w.target().Clients)
		for _, row := range vals {
			for _, v := range row {
				most = max(most, v)
			}
		}
	case w.Schedule != nil:
		sc := w.Schedule
		peak := func(slots Levels, stages []Stage, sn *Sinusoid) float64 {
			m := 0.0
			switch {
			case slots != nil:
				for _, v := range slots {
					m = max(m, v)
				}
			case stages != nil:
				for _, st := range stages {
					m = max(m, st.Target)
				}
			case sn != nil:
				m = sn.Mean + sn.Amplitude
			default:
				m = base
			}
			return m
		}
		def := peak(sc.Slots, sc.Stages, sc.Sinusoid)
		for i := range r.Tenants {
			if i < len(sc.Tenants) && sc.Tenants[i].values() {
				t := sc.Tenants[i]
				most = max(most, peak(t.Slots, t.Stages, t.Sinusoid))
			} else {
				most = max(most, def)
				if i >= len(sc.Tenants) {
					break // the rest are all the same
				}
			}
		}
	default:
		return base
	}
	return most
}

// rates are the values of the rate dimension: workload.load.rate for an
// open load without pattern, else one placeholder (Validate refuses a
// rate beside a schedule's values; a case's pattern replaces the rate).
func (w *Workload) rates() []float64 {
	if !w.target().Clients && len(w.Load.Rate) > 0 && w.Pattern == nil {
		return w.Load.Rate
	}
	return []float64{0}
}

// patterns are the values of the pattern dimension.
func (w *Workload) patterns() []string {
	if w.Pattern != nil && len(w.Pattern.Name) > 0 {
		return w.Pattern.Name
	}
	return []string{""}
}

// resolveLoad sets r.Clients, which comes in as the value of
// workload.clients, to the connections each tenant opens.
func (s *Spec) resolveLoad(r *Run) { r.Clients = s.conns(r, r.Clients) }

// loadRuns are case c's runs of t tenants and cl clients over the rate
// and pattern dimensions (the case's pattern's), with their load resolved.
func (s *Spec) loadRuns(c *Case, t, cl int) []Run {
	var out []Run
	w := c.patterned(s.Workload)
	for _, rate := range w.rates() {
		for _, p := range w.patterns() {
			r := Run{Tenants: t, Clients: cl, Rate: rate, Pattern: p, Case: c.Name}
			s.resolveLoad(&r)
			out = append(out, r)
		}
	}
	return out
}

// scheduleLength is how long the schedule or pattern lasts, when it has a
// length (slots or stages, not a sinusoid) and every tenant's is the same.
func (s *Spec) scheduleLength() (time.Duration, bool) {
	w := &s.Workload
	var lens []time.Duration
	switch {
	case w.Pattern != nil:
		for _, name := range w.Pattern.Name {
			for _, m := range s.Tenancy.Tenants {
				if n := load.SlotCount(w.loadPattern(name, m)); n > 0 {
					lens = append(lens, time.Duration(n)*w.Pattern.Slot.D())
				}
			}
		}
	case w.Schedule != nil:
		sc := w.Schedule
		add := func(slots Levels, stages []Stage) {
			if len(slots) > 0 {
				lens = append(lens, time.Duration(len(slots))*sc.Slot.D())
			}
			if len(stages) > 0 {
				var d time.Duration
				for _, st := range stages {
					d += st.Duration.D()
				}
				lens = append(lens, d)
			}
		}
		add(sc.Slots, sc.Stages)
		for _, t := range sc.Tenants {
			add(t.Slots, t.Stages)
		}
	}
	if len(lens) == 0 {
		return 0, false
	}
	for _, l := range lens {
		if l != lens[0] {
			return 0, false
		}
	}
	return lens[0], true
}

// durationFromSchedule is the default of workload.duration under a
// schedule or pattern with a length: the rest of it after the warmup.
func (s *Spec) durationFromSchedule() {
	if l, ok := s.scheduleLength(); ok && l > s.Workload.Warmup.D() && s.Workload.Warmup >= 0 {
		s.Workload.Duration = Duration(l - s.Workload.Warmup.D())
	}
}

// describe says in a line what the load is, "" for the plain closed loop.
func (w *Workload) describe() string {
	var parts []string
	if d := w.Shape().Describe(w.setsTarget() || w.Schedule != nil); d != "" {
		parts = append(parts, d)
	}
	if sc := w.Schedule; sc != nil {
		switch {
		case sc.Slots != nil:
			parts = append(parts, fmt.Sprintf("%d slots of %s", len(sc.Slots), sc.Slot))
		case sc.Stages != nil:
			parts = append(parts, fmt.Sprintf("%d stages", len(sc.Stages)))
		case sc.Sinusoid != nil:
			sn := sc.Sinusoid
			parts = append(parts, fmt.Sprintf("sinusoid %g +- %g %s, period %s, tenant i shifted by i x %s", sn.Mean, sn.Amplitude, w.unit(), sn.Period, sn.Shift))
		}
		if sc.Start > 0 || sc.Stop > 0 {
			parts = append(parts, fmt.Sprintf("tenants run from %s to %s", sc.Start, stopText(sc.Stop)))
		}
		if sc.Stagger > 0 {
			parts = append(parts, fmt.Sprintf("tenant i starts i x %s later", sc.Stagger))
		}
		if len(sc.Tenants) > 0 {
			parts = append(parts, fmt.Sprintf("%d tenant schedules", len(sc.Tenants)))
		}
	}
	if p := w.Pattern; p != nil {
		parts = append(parts, fmt.Sprintf("CloudyBench pattern, tau %g, slots of %s", p.Tau, p.Slot))
	}
	return strings.Join(parts, "; ")
}

func stopText(d Duration) string {
	if d == 0 {
		return "the end"
	}
	return d.String()
}
