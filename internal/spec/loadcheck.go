package spec

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

// Validation of workload.load, workload.schedule and workload.pattern
// (docs/spec.md): every mistake before anything starts.

const (
	defaultPatternSlots = load.DefaultSlots
	defaultDelta        = load.DefaultDelta
	// MaxRate bounds an open load's rate per tenant: beyond it the driver,
	// not the DBMS, would be measured.
	MaxRate = load.MaxRate
	// MaxSlots bounds the result slots of a schedule (rows of slots.csv
	// per tenant).
	MaxSlots = 10_000
)

// shapes are the load shapes a spec may name.
func shapes() choice {
	var names []string
	for _, sh := range load.Shapes() {
		names = append(names, sh.Name())
	}
	return choice{names, nil}
}

func levelRule(v float64) string {
	if !(v >= 0) || math.IsInf(v, 0) {
		return "must be a number, 0 or more"
	}
	return ""
}

func patternRule(v string) string {
	if !load.IsPattern(v) {
		return OneOf(v, load.PatternNames())
	}
	return ""
}

// Shape is the workload's load shape as workload.load configures it; the
// default shape when workload.load.shape names none that exists (Validate
// reports that).
func (w *Workload) Shape() load.Shape {
	sh, ok := load.ShapeOf(w.Load.Shape)
	if !ok {
		sh = load.DefaultShape()
	}
	st := w.Load.settings()
	return sh.Configure(&st)
}

// target says what a target is under the workload's shape.
func (w *Workload) target() load.Target { return w.Shape().Target() }

// unit names what schedule values are.
func (w *Workload) unit() string { return w.target().Unit }

// shapeContext is what the shape's checks need of the spec.
func (w *Workload) shapeContext() load.Context {
	return load.Context{SetsTarget: w.setsTarget(), Clients: !(len(w.Clients) == 1 && w.Clients[0] == 1), MaxClients: MaxClients}
}

// phase is the length of the workload phase: the schedule's clock.
func (w *Workload) phase() time.Duration { return w.Warmup.D() + w.Duration.D() }

// setsTarget reports whether the schedule or the pattern gives the
// target, so that workload.clients (closed) or load.rate (open) does not.
func (w *Workload) setsTarget() bool {
	return w.Pattern != nil || (w.Schedule != nil && w.Schedule.values())
}

func (v *validator) load(s *Spec) {
	w := &s.Workload
	l := &w.Load
	sh, ok := load.ShapeOf(l.Shape)
	if !ok || l.Shape == "" {
		v.add("workload.load.shape", shown(l.Shape), shapes().allowed(l.Shape))
		return
	}
	st := l.settings()
	// A key of another shape: name the shape it belongs to.
	for _, key := range load.SettingKeys {
		if !st.Given(key) || slices.Contains(sh.Keys(), key) {
			continue
		}
		owner := strings.Join(load.Owners(key), " or ")
		v.add("workload.load."+key, "", "applies to shape: "+owner+" only; remove it or set workload.load.shape: "+owner)
	}
	for _, is := range sh.Check(&st, w.shapeContext()) {
		path := "workload." + is.Key
		switch {
		case is.Each != nil:
			oneOf(v, path, l.listValue(is.Key), is.Each)
		case is.Value:
			v.add(path, l.shownValue(is.Key), is.Allowed)
		default:
			v.add(path, "", is.Allowed)
		}
	}
	if w.Schedule != nil && w.Pattern != nil {
		v.add("workload.pattern", "", "cannot be combined with workload.schedule: a pattern is a schedule; give one of them")
	}
	if w.Schedule != nil {
		v.schedule(s)
	}
	if w.Pattern != nil {
		v.pattern(s)
	}
}

// wholeSeconds checks a slot or stage length.
func (v *validator) wholeSeconds(path string, d Duration, least time.Duration) bool {
	if d.D() < least || d.D()%time.Second != 0 {
		v.add(path, d.String(), fmt.Sprintf("must be a whole number of seconds, at least %s (results are cut per slot, per second)", Duration(least)))
		return false
	}
	return true
}

// targets checks values of a schedule: >= 0, and what the shape allows
// (whole clients within MaxClients, a rate within MaxRate).
func (v *validator) targets(w *Workload, path string, vals []float64) {
	for i, x := range vals {
		v.target(w, index(path, i), x)
	}
}

func (v *validator) target(w *Workload, path string, x float64) {
	if levelRule(x) != "" {
		v.add(path, shown(fmt.Sprint(x)), "must be a number, 0 or more ("+w.unit()+")")
	} else if msg := w.Shape().CheckTarget(x, w.shapeContext()); msg != "" {
		v.add(path, fmt.Sprint(x), msg)
	}
}

// length checks that a finite schedule lasts as long as the phase.
func (v *validator) length(w *Workload, path string, d time.Duration, how string) {
	v.lengthFix(w, path, d, how, "leave workload.duration out to take it from the schedule")
}

// lengthFix is length with fix saying how to make them equal.
func (v *validator) lengthFix(w *Workload, path string, d time.Duration, how, fix string) {
	if d != w.phase() {
		v.add(path, "", fmt.Sprintf("the schedule lasts %s (%s) but the workload phase lasts %s (warmup %s + duration %s): "+
			"they must be equal; %s", Duration(d), how, Duration(w.phase()), w.Warmup, w.Duration, fix))
	}
}

// values checks one set of schedule values (the schedule's or a tenant's).
func (v *validator) values(w *Workload, path string, slot Duration, slotOK bool, slots Levels, stages []Stage, sn *Sinusoid) {
	given := 0
	for _, b := range []bool{slots != nil, stages != nil, sn != nil} {
		if b {
			given++
		}
	}
	if given > 1 {
		v.add(path, "", "give one of slots, stages and sinusoid")
		return
	}
	switch {
	case slots != nil:
		if len(slots) == 0 {
			v.add(path+".slots", "", "must have at least one slot")
			return
		}
		v.targets(w, path+".slots", slots)
		if slotOK {
			v.length(w, path+".slots", time.Duration(len(slots))*slot.D(), fmt.Sprintf("%d slots of %s", len(slots), slot))
		}
	case stages != nil:
		if len(stages) == 0 {
			v.add(path+".stages", "", "must have at least one stage")
			return
		}
		var total time.Duration
		ok := true
		for i, st := range stages {
			sp := index(path+".stages", i)
			ok = v.wholeSeconds(sp+".duration", st.Duration, 0) && ok
			v.target(w, sp+".target", st.Target)
			total += st.Duration.D()
		}
		if ok {
			v.length(w, path+".stages", total, fmt.Sprintf("%d stages", len(stages)))
		}
	case sn != nil:
		p := path + ".sinusoid"
		if !(sn.Mean > 0) || math.IsInf(sn.Mean, 0) {
			v.add(p+".mean", fmt.Sprint(sn.Mean), "must be a number greater than 0 ("+w.unit()+")")
		}
		if !(sn.Amplitude >= 0 && sn.Amplitude <= sn.Mean) {
			v.add(p+".amplitude", fmt.Sprint(sn.Amplitude), "must be 0..mean, so that the target never goes below 0")
		}
		if sn.Period < Duration(time.Second) {
			v.add(p+".period", sn.Period.String(), "must be at least 1s")
		}
		if sn.Shift < 0 {
			v.add(p+".shift", sn.Shift.String(), "must be 0s or longer (tenant i is shifted by i x shift)")
		}
		v.target(w, p+".mean", math.Round(sn.Mean+sn.Amplitude))
	}
}

// window checks a tenant's start and stop.
func (v *validator) window(w *Workload, path string, start, stop Duration) {
	phase := Duration(w.phase())
	if start < 0 || start >= phase {
		v.add(path+".start", start.String(), fmt.Sprintf("must be 0s or later and before the workload phase ends (%s)", phase))
	}
	if stop < 0 || stop > phase || (stop > 0 && stop <= start) {
		v.add(path+".stop", stop.String(), fmt.Sprintf("must be after start and at most %s (the end of the workload phase), or 0s for no stop", phase))
	}
}

func (v *validator) schedule(s *Spec) {
	w := &s.Workload
	sc := w.Schedule
	slotOK := v.wholeSeconds("workload.schedule.slot", sc.Slot, time.Second)
	if slotOK && w.phase()/sc.Slot.D() > MaxSlots {
		v.add("workload.schedule.slot", sc.Slot.String(), fmt.Sprintf("cuts the workload phase (%s) into %d result slots: at most %d; make it longer",
			Duration(w.phase()), w.phase()/sc.Slot.D(), MaxSlots))
		slotOK = false
	}
	v.values(w, "workload.schedule", sc.Slot, slotOK, sc.Slots, sc.Stages, sc.Sinusoid)
	v.window(w, "workload.schedule", sc.Start, sc.Stop)
	if sc.Stagger < 0 {
		v.add("workload.schedule.stagger", sc.Stagger.String(), "must be 0s or longer (tenant i starts i x stagger after start)")
	} else if sc.Stagger > 0 {
		most := maxTenants(s)
		if last := sc.Start.D() + time.Duration(most-1)*sc.Stagger.D(); most > 1 && last >= w.phase() {
			v.add("workload.schedule.stagger", sc.Stagger.String(), fmt.Sprintf(
				"tenant %d of %d would start at %s, not before the workload phase ends (%s)", most, most, Duration(last), Duration(w.phase())))
		}
	}
	for i, t := range sc.Tenants {
		p := index("workload.schedule.tenants", i)
		if t.values() {
			v.values(w, p, sc.Slot, slotOK, t.Slots, t.Stages, t.Sinusoid)
		}
		start, stop := sc.Start, sc.Stop
		if t.Start != nil {
			start = *t.Start
		}
		if t.Stop != nil {
			stop = *t.Stop
		}
		if t.Start != nil || t.Stop != nil {
			v.window(w, p, start, stop)
		}
	}
	if n := len(sc.Tenants); n > 0 {
		if least := minTenants(s); least > 0 && n > least {
			v.add("workload.schedule.tenants", "", fmt.Sprintf("gives %d tenant schedules but the run with %d tenants has only %d: "+
				"at most one per tenant (tenants without one follow the schedule)", n, least, least))
		}
	}
	if !w.setsTarget() && sc.Tenants == nil && sc.Start == 0 && sc.Stop == 0 && sc.Stagger == 0 {
		v.add("workload.schedule", "", "gives nothing to schedule: give slots, stages, sinusoid, start, stop, stagger or tenants")
	}
}

func (v *validator) pattern(s *Spec) {
	v.patternAt(s, &s.Workload, "workload.pattern", "leave workload.duration out to take it from the schedule")
}

// patternAt checks w.Pattern, written at path (workload.pattern, or a
// case's pattern), for every tenant count of the spec; fix says how to
// make its length the phase's.
func (v *validator) patternAt(s *Spec, w *Workload, path, fix string) {
	p := w.Pattern
	oneOf(v, path+".name", p.Name, patternRule)
	if !(p.Tau > 0) || math.IsInf(p.Tau, 0) {
		v.add(path+".tau", shownFloat(p.Tau), "required: a number greater than 0, "+w.target().Tau)
		return
	}
	slotOK := v.wholeSeconds(path+".slot", p.Slot, time.Second)
	uses := map[string]bool{}
	for _, name := range p.Name {
		switch name {
		case load.HighContention, load.LowContention:
			uses["shares"] = true
		case load.CustomPattern:
			uses["levels"], uses["tenants"] = true, true
		}
	}
	for key, given := range map[string]bool{"shares": p.Shares != nil, "levels": p.Levels != nil, "tenants": p.Tenants != nil} {
		if given && !uses[key] {
			v.add(path+"."+key, "", "is not used by the pattern "+strings.Join(p.Name, ", "))
		}
	}
	seen := map[string]bool{}
	for _, name := range p.Name {
		if patternRule(name) != "" {
			continue
		}
		for _, m := range s.Tenancy.Tenants {
			if tenantsRule(m) != "" {
				continue
			}
			lp := w.loadPattern(name, m)
			vals, err := load.Values(lp, w.target().Clients)
			if err != nil {
				var pe *load.PatternError
				at, msg, value := path, err.Error(), ""
				if errors.As(err, &pe) {
					value = pe.Value
					msg = pe.Msg
					if pe.Field != "" {
						at += "." + pe.Field
					}
				}
				if len(p.Name) > 1 {
					msg = fmt.Sprintf("%s (pattern %s, %d tenants)", msg, name, m)
				}
				if !seen[at+msg] {
					seen[at+msg] = true
					v.add(at, value, msg)
				}
				continue
			}
			peak := 0.0
			for _, row := range vals {
				for _, x := range row {
					peak = max(peak, x)
				}
			}
			if peak == 0 {
				msg := fmt.Sprintf("pattern %s gives no load at all for %d tenants", name, m)
				if w.target().Clients {
					msg += " (every slot rounds to 0 clients): raise tau"
				}
				if !seen[msg] {
					seen[msg] = true
					v.add(path+".tau", fmt.Sprint(p.Tau), msg)
				}
				continue
			}
			if w.target().Clients && peak > MaxClients {
				msg := fmt.Sprintf("pattern %s peaks at %g clients for %d tenants: at most %d", name, peak, m, MaxClients)
				if !seen[msg] {
					seen[msg] = true
					v.add(path+".tau", fmt.Sprint(p.Tau), msg)
				}
				continue
			}
			if n := load.SlotCount(lp); slotOK && time.Duration(n)*p.Slot.D() != w.phase() {
				how := fmt.Sprintf("%d slots of %s", n, p.Slot)
				if !seen[how] {
					seen[how] = true
					v.lengthFix(w, path, time.Duration(n)*p.Slot.D(), fmt.Sprintf("%s for %d tenants: %s", name, m, how), fix)
				}
			}
		}
	}
}

// loadPattern is the pattern's parameters for the pattern name and m
// tenants.
func (w *Workload) loadPattern(name string, m int) load.Pattern {
	p := w.Pattern
	lp := load.Pattern{Name: name, Tau: p.Tau, Tenants: m, Slots: p.Slots, Delta: p.Delta}
	if p.Shares != nil {
		lp.Shares = p.Shares
	}
	if p.Levels != nil {
		lp.Levels = p.Levels
	}
	for _, t := range p.Tenants {
		lp.PerTenant = append(lp.PerTenant, t)
	}
	return lp
}

func shownFloat(f float64) string {
	if f == 0 {
		return ""
	}
	return fmt.Sprint(f)
}

func maxTenants(s *Spec) int {
	most := 0
	for _, t := range s.Tenancy.Tenants {
		if tenantsRule(t) == "" {
			most = max(most, t)
		}
	}
	return most
}

func minTenants(s *Spec) int {
	least := 0
	for _, t := range s.Tenancy.Tenants {
		if tenantsRule(t) == "" && (least == 0 || t < least) {
			least = t
		}
	}
	return least
}
