package spec

import (
	"fmt"
	"io"
	"math"
	"strconv"
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
	w := &s.Workload
	l := w.Load
	phase := w.phase()
	lp := &load.Plan{Shape: l.Shape, Pattern: r.Pattern}
	if lp.Shape == "" {
		lp.Shape = load.ShapeClosed
	}
	// Where the schedule gives no values, the target is the run's clients
	// (closed: then r.Clients is workload.clients) or its rate (open).
	base := float64(r.Clients)
	if w.open() {
		lp.Open = load.Open{Arrivals: l.Arrivals, Pool: l.Pool, OnFull: l.OnFull}
		if lp.Open.Arrivals == "" {
			lp.Open.Arrivals = defaultArrivals
		}
		if lp.Open.OnFull == "" {
			lp.Open.OnFull = defaultOnFull
		}
		if lp.Open.Pool == 0 {
			// Oracle 2014: a pool "twice as large as the average number of
			// connections actually needed"; workload.clients is that number.
			lp.Open.Pool = r.Clients
		}
		base = r.Rate
	} else {
		lp.Closed = load.Closed{Think: l.Think.D()}
	}

	var vals [][]float64
	if w.Pattern != nil {
		vals, _ = load.Values(w.loadPattern(r.Pattern, r.Tenants), !w.open())
	}
	for i := range min(n, r.Tenants) {
		t := load.Tenant{}
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
		if w.open() {
			t.Conns = lp.Open.Pool
		} else {
			t.Conns = load.Clients(&t.Profile, 0)
			if t.Varies {
				t.Conns = 0
				if m := t.Profile.Max(); m >= 0.5 {
					t.Conns = int(m + 0.5)
				}
			}
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

// clients rounds a closed load's target to whole clients, as the
// driver does (load.Clients).
func clients(v float64) int {
	if v < 0.5 {
		return 0
	}
	return int(v + 0.5)
}

// conns is the most connections a tenant of run r opens, from the
// schedule's values (no profile is built): the most clients of a closed
// load, the pool of an open one. clientsValue is workload.clients' value
// for the run.
func (s *Spec) conns(r *Run, clientsValue int) int {
	w := &s.Workload
	if w.open() {
		if w.Load.Pool > 0 {
			return w.Load.Pool
		}
		return 2 * clientsValue
	}
	most := 0.0
	switch {
	case w.Pattern != nil:
		vals, _ := load.Values(w.loadPattern(r.Pattern, r.Tenants), true)
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
				m = float64(clientsValue)
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
		return clientsValue
	}
	return clients(most)
}

// rates are the values of the rate dimension: workload.load.rate for an
// open load without schedule, else one placeholder.
func (w *Workload) rates() []float64 {
	if w.open() && len(w.Load.Rate) > 0 {
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

// loadRuns are the runs of t tenants and c clients over the rate and
// pattern dimensions, with their load resolved.
func (s *Spec) loadRuns(t, c int) []Run {
	var out []Run
	for _, rate := range s.Workload.rates() {
		for _, p := range s.Workload.patterns() {
			r := Run{Tenants: t, Clients: c, Rate: rate, Pattern: p}
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
	l := w.Load
	if w.open() {
		a, f := l.Arrivals, l.OnFull
		if a == "" {
			a = defaultArrivals
		}
		if f == "" {
			f = defaultOnFull
		}
		pool := "2 x workload.clients"
		if l.Pool > 0 {
			pool = strconv.Itoa(l.Pool)
		}
		verb := map[string]string{"queue": "queued", "drop": "dropped"}[f]
		parts = append(parts, fmt.Sprintf("open: %s arrivals, a pool of %s connections per tenant, an arrival that finds none free is %s", a, pool, verb))
	} else if l.Think > 0 || w.setsTarget() || w.Schedule != nil {
		d := "closed"
		if l.Think > 0 {
			d += ", think " + l.Think.String()
		}
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

// targets writes each tenant's mean target per result slot, for the runs
// of a plan with a schedule or pattern: the first 10 tenants and 24 slots,
// once for runs of the same tenants, rate and pattern, for 12 such runs.
func (p *Plan) targets(w io.Writer) {
	wl := &p.Spec.Workload
	if wl.Schedule == nil && wl.Pattern == nil {
		return
	}
	const tenants, slots, runs = 10, 24, 12
	seen := map[string]bool{}
	for _, r := range p.Runs {
		key := fmt.Sprint(r.Tenants, r.Rate, r.Pattern, r.Clients)
		if seen[key] {
			continue
		}
		if len(seen) == runs {
			fmt.Fprintf(w, "(targets of further runs left out)\n")
			return
		}
		seen[key] = true
		lp := p.Spec.loadPlan(&r, tenants)
		var b strings.Builder
		for i, t := range lp.Tenants {
			end := wl.phase()
			var vals []string
			for j, from := range t.Windows {
				if j == slots {
					vals = append(vals, fmt.Sprintf("... %d slots more", len(t.Windows)-slots))
					break
				}
				to := end
				if j+1 < len(t.Windows) {
					to = t.Windows[j+1]
				}
				vals = append(vals, strconv.FormatFloat(math.Round(t.Profile.Mean(from, to)*100)/100, 'f', -1, 64))
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", tenantName(i), strings.Join(vals, ", "))
		}
		if r.Tenants > tenants {
			fmt.Fprintf(&b, "  ... %d tenants more\n", r.Tenants-tenants)
		}
		head := fmt.Sprintf("%d tenants", r.Tenants)
		if r.Tenants == 1 {
			head = "1 tenant"
		}
		if r.Pattern != "" {
			head = r.Pattern + ", " + head
		}
		if r.Rate > 0 {
			head += fmt.Sprintf(", rate %g", r.Rate)
		}
		fmt.Fprintf(w, "targets per slot (%s) of run %s (%s):\n%s", wl.unit(), r.ID, head, b.String())
	}
}

// tenantName is the name tenancy gives tenant i (from 0): t01, t02, ...
func tenantName(i int) string { return fmt.Sprintf("t%02d", i+1) }
