package plan

import (
	"fmt"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// checkReplicas checks sut.replicas against the engine (a Replicator:
// its servers can be copied into standbys), the provider (Factory.
// Replicates) and the workload: workload.reads: replicas needs
// read-only transactions (workload.ReadOnly), and a workload that reads
// its replicas by design (workload.ReplicaUser) needs at least one in
// every run. The spec's own check refused reads: replicas with 0.
func checkReplicas(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	var out []spec.Problem
	most := s.MostReplicas()
	path, value := "sut.replicas", strconv.Itoa(most)
	if most > 0 {
		engs.each(s, func(_ string, eng engine.Engine) {
			if _, ok := eng.(engine.Replicator); !ok {
				out = append(out, spec.Problem{Path: path, Value: value,
					Allowed: "must be 0: engine " + eng.Name() + " cannot have replicas (streaming replicas are PostgreSQL's)"})
			}
		})
		if f, ok := regs.Providers[s.SUT.Provider]; ok && !f.Replicates {
			out = append(out, spec.Problem{Path: path, Value: value,
				Allowed: "must be 0: provider " + s.SUT.Provider + " cannot start replicas of its servers (the local provider can)"})
		}
	}
	w, err := regs.Workloads.Build(&s.Workload, 1)
	if err != nil {
		return out // the workload's own check names it
	}
	if s.Workload.Reads == spec.ReadsReplicas && len(workload.ReadOnlyTxns(w)) == 0 {
		out = append(out, spec.Problem{Path: "workload.reads", Value: s.Workload.Reads, Allowed: fmt.Sprintf(
			"must be %s: workload %s has no read-only transaction to send to the replicas", spec.ReadsPrimary, s.Workload.Name)})
	}
	if workload.UsesReplicas(w) {
		for i, n := range s.SUT.Replicas {
			if n > 0 {
				continue
			}
			p := path
			if len(s.SUT.Replicas) > 1 {
				p = spec.Index(path, i)
			}
			out = append(out, spec.Problem{Path: p, Value: "0", Allowed: fmt.Sprintf(
				"must be at least 1: workload %s reads its writes back from the replicas", s.Workload.Name)})
		}
	}
	return out
}

// ReadsReplicas says whether the run's clients hold connections to the
// replicas: its reads go there, or its workload reads them by design.
func (p *Plan) ReadsReplicas(r *Run) bool {
	return r.Replicas > 0 && (p.Reads == spec.ReadsReplicas || p.ReplicaUser || r.ReplicaUser)
}
