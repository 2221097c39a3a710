package plan

import (
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// checkCaseWorkloads checks each case that runs its own workload
// (workload.cases[i].workload, spec/casepick.go) as workload.name is
// checked, at the case's paths: the name, its options and scale as that
// workload reads them, the tenancy models and engines that must run it,
// and what it asks of the replicas (reads on them, or replicas it reads
// by design).
func checkCaseWorkloads(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	var out []spec.Problem
	main, mainErr := regs.Workloads.Build(&s.Workload, 1)
	for i := range s.Workload.Cases {
		c := &s.Workload.Cases[i]
		if !c.OwnWorkload(&s.Workload) {
			continue
		}
		p := spec.Index("workload.cases", i)
		wp := spec.Join(p, "workload")
		if _, ok := regs.Workloads[c.Workload]; !ok {
			out = append(out, spec.Problem{Path: wp, Value: spec.Shown(c.Workload), Allowed: spec.OneOf(c.Workload, regs.Workloads.Names())})
			continue
		}
		w := s.Workload
		w.Name, w.Options, w.Cases = c.Workload, c.Options, nil
		if c.Scale != nil {
			w.Scale = spec.Floats{*c.Scale}
		}
		problems := regs.Workloads.Check(&w)
		for _, pr := range problems {
			out = append(out, casePath(pr, p, c))
		}
		if len(problems) > 0 {
			continue
		}
		built, err := regs.Workloads.Build(&w, 1)
		if err != nil {
			continue
		}
		for _, name := range s.Tenancy.Model {
			if a, ok := regs.Models[name].(accepter); ok {
				if why := a.Accepts(built); why != "" {
					out = append(out, spec.Problem{Path: wp, Value: c.Workload, Allowed: fmt.Sprintf(
						"the %s model cannot hold it: %s: %s", name, why, strings.Join(accepted(a, regs.Workloads), ", "))})
				}
			}
		}
		engs.each(s, func(_ string, eng engine.Engine) {
			if !workload.RunsOn(built, eng) {
				out = append(out, spec.Problem{Path: wp, Value: c.Workload, Allowed: "has no form for " + eng.Name() + " (sut.engine)"})
				return
			}
			for _, pr := range regs.Workloads.CheckEngineOptions(&w, eng) {
				out = append(out, casePath(pr, p, c))
			}
		})
		_, streams := built.(workload.Streamer)
		if _, mainStreams := main.(workload.Streamer); mainErr == nil && streams != mainStreams {
			out = append(out, spec.Problem{Path: wp, Value: c.Workload, Allowed: fmt.Sprintf(
				"query streams (which end a run when they are done) and transactions cannot be mixed in one experiment yet; "+
					"workload.name %s and this case's workload must both run query streams or neither", s.Workload.Name)})
		}
		out = append(out, caseReplicas(s, p, c, built)...)
	}
	return out
}

// caseReplicas checks what a case's own workload asks of its replicas:
// reads on them need a read-only transaction (or a workload that reads
// them anyway), and a workload that reads them by design needs one in
// every run of the case.
func caseReplicas(s *spec.Spec, p string, c *spec.Case, w workload.Workload) []spec.Problem {
	var out []spec.Problem
	path, list := "sut.replicas", s.SUT.Replicas
	if c.Replicas != nil {
		path, list = spec.Join(p, "replicas"), c.Replicas
	}
	most := 0
	for _, n := range list {
		most = max(most, n)
	}
	if s.Workload.Reads == spec.ReadsReplicas && most > 0 && len(workload.ReadOnlyTxns(w)) == 0 && !workload.UsesReplicas(w) {
		out = append(out, spec.Problem{Path: spec.Join(p, "workload"), Value: c.Workload, Allowed: fmt.Sprintf(
			"has no read-only transaction to send to the replicas (workload.reads is %s): pick a workload that has, or no replicas",
			spec.ReadsReplicas)})
	}
	if workload.UsesReplicas(w) {
		for j, n := range list {
			if n > 0 {
				continue
			}
			at := path
			if len(list) > 1 {
				at = spec.Index(path, j)
			}
			out = append(out, spec.Problem{Path: at, Value: "0", Allowed: fmt.Sprintf(
				"must be at least 1: workload %s (%s) reads its writes back from the replicas", c.Workload, spec.Join(p, "workload"))})
		}
	}
	return out
}

// casePath names a problem of the workload's own paths at the case's:
// its options and scale.
func casePath(pr spec.Problem, p string, c *spec.Case) spec.Problem {
	switch {
	case strings.HasPrefix(pr.Path, "workload.options"):
		pr.Path = spec.Join(p, "options") + strings.TrimPrefix(pr.Path, "workload.options")
	case strings.HasPrefix(pr.Path, "workload.scale") && c.Scale != nil:
		pr.Path = spec.Join(p, "scale")
	case strings.HasPrefix(pr.Path, "workload."):
		pr.Allowed += " (for " + spec.Join(p, "workload") + " " + c.Workload + ")"
	}
	return pr
}
