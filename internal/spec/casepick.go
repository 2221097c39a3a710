package spec

import (
	"fmt"
	"slices"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Cases that pick more than numbers. Zhang et al.'s (2025) seven tests
// (section II-G, Table IX) differ in their workload (lag for C), their
// replicas (0..λ for E2, one to fail over or to lag behind), their faults
// (F and R), their resources (autoscale for E1) and their load (an
// elasticity pattern for E1, a multi-tenancy pattern for T; sections II-C
// and II-D); one experiment holds them when each is a case with its own
// workload, replicas, interference, autoscale and pattern, and says which
// of the seven scores its runs measure (scores). What the keys name is
// checked where it is owned: the workload and its options by the workload
// registry, the interference by package interfere, both at plan; here the
// shapes.

// OwnWorkload says the case runs another workload than w's name (the
// plan checks its name and options, at the case's paths).
func (c *Case) OwnWorkload(w *Workload) bool { return c.Workload != "" && c.Workload != w.Name }

// replicasOr is the case's replicas, def when it gives none.
func (c *Case) replicasOr(def Ints) Ints {
	if c.Replicas != nil {
		return c.Replicas
	}
	return def
}

// ownInterference says the case replaces the interference list.
func (c *Case) ownInterference() bool { return c.Interference.Kind != 0 }

// caseOf is run r's case, nil for none.
func (s *Spec) caseOf(r *Run) *Case {
	if r.Case == "" {
		return nil
	}
	for i := range s.Workload.Cases {
		if s.Workload.Cases[i].Name == r.Case {
			return &s.Workload.Cases[i]
		}
	}
	return nil
}

// patterned is w as a case with a pattern of its own sees it: the case's
// pattern in place of the spec's pattern or schedule.
func (c *Case) patterned(w Workload) Workload {
	if c.Pattern != nil {
		w.Pattern, w.Schedule = c.Pattern, nil
	}
	return w
}

// WorkloadOf is the workload run r builds: workload.name, or its case's,
// with the run's options (its case's merged in, or its own workload's)
// and its case's pattern.
func (s *Spec) WorkloadOf(r *Run) Workload {
	w := s.Workload
	if c := s.caseOf(r); c != nil {
		if c.OwnWorkload(&s.Workload) {
			w.Name = c.Workload
		}
		w = c.patterned(w)
	}
	if r.Options != nil {
		w.Options = *r.Options
	}
	return w
}

// AutoscaleOf is the autoscale policy of run r's servers: its case's, or
// sut.resources.autoscale; nil for none.
func (s *Spec) AutoscaleOf(r *Run) *Autoscale {
	if c := s.caseOf(r); c != nil && c.Autoscale != nil {
		return c.Autoscale
	}
	return s.SUT.Resources.Autoscale
}

// ScoresOf are the PERFECT scores run r measures (its case's scores);
// nil: every score it has.
func (s *Spec) ScoresOf(r *Run) []string {
	if c := s.caseOf(r); c != nil {
		return c.Scores
	}
	return nil
}

// Autoscaled says some run has an autoscale policy.
func (s *Spec) Autoscaled() bool {
	if s.SUT.Resources.Autoscale != nil {
		return true
	}
	for _, c := range s.Workload.Cases {
		if c.Autoscale != nil {
			return true
		}
	}
	return false
}

// casePicks checks the case keys of this file as written.
func (v *validator) casePicks(s *Spec) {
	w := &s.Workload
	for i := range w.Cases {
		c := &w.Cases[i]
		p := index("workload.cases", i)
		if c.Replicas != nil {
			oneOf(v, join(p, "replicas"), c.Replicas, replicasRule)
			if len(s.SUT.Replicas) > 1 {
				v.add(join(p, "replicas"), fmt.Sprint(c.Replicas), "sut.replicas is a list (a dimension of the matrix); a case cannot set it too")
			}
		}
		if c.OwnWorkload(w) && s.Tenancy.Classes != nil {
			v.add(join(p, "workload"), c.Workload, "tenancy.classes give the tenants their workloads; a case cannot replace workload.name too")
		}
		if c.ownInterference() {
			for _, d := range interferenceDims(&c.Interference, join(p, "interference")) {
				v.add(d.path, "", "a case's interference takes one value of each param; make another case for another value")
			}
		}
		if c.Pattern != nil {
			v.casePattern(s, c, join(p, "pattern"))
		}
		if c.Autoscale != nil {
			if s.SUT.Resources.Schedule != nil {
				v.add(join(p, "autoscale"), "", "must not be given with sut.resources.schedule: give a schedule of limits or an autoscale policy")
			}
			v.autoscale(c.Autoscale, join(p, "autoscale"), s.SUT.Resources.CPUs)
		}
		seen := map[string]bool{}
		for j, sc := range c.Scores {
			sp := index(join(p, "scores"), j)
			switch {
			case !slices.Contains(metrics.PerfectScores, sc):
				v.add(sp, shown(sc), OneOf(sc, metrics.PerfectScores)+" (Zhang et al. 2025, Table IX's scores)")
			case seen[sc]:
				v.add(sp, sc, "already listed: each score once")
			}
			seen[sc] = true
		}
	}
}

// casePattern checks a case's pattern: one name, and the checks of
// workload.pattern at the case's path, as the case's runs see the spec.
func (v *validator) casePattern(s *Spec, c *Case, path string) {
	if len(c.Pattern.Name) > 1 {
		v.add(join(path, "name"), fmt.Sprint(c.Pattern.Name), "a case's pattern takes one name; make another case for another pattern")
		return
	}
	w := c.patterned(s.Workload)
	if c.Clients != nil && w.target().Clients {
		v.add(join(path, "tau"), "", "the pattern sets the case's clients (its values are clients, from tau): remove the case's clients")
	}
	v.patternAt(s, &w, path, "set its slot, or workload.warmup and workload.duration, so that they are")
}
