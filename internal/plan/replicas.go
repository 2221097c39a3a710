package plan

import (
	"fmt"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/interfere"
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

// replicaReads is a plan with only what says how runs use their replicas
// (Replication, Reads, ReplicaUser), as Build sets them; its
// ReadsReplicas answers before the plan is made. Made once per plan: it
// builds the spec's workload.
func replicaReads(s *spec.Spec, regs Registries) *Plan {
	p := &Plan{}
	if s.MostReplicas() > 0 {
		p.Replication, p.Reads = s.SUT.Replication, s.Workload.Reads
		if w, err := regs.Workloads.Build(&s.Workload, 1); err == nil {
			p.ReplicaUser = workload.UsesReplicas(w)
		}
	}
	return p
}

// failoverShare is how many times its clients' connections each server of
// run r must have room for: more than once when the clients hold
// connections to the replicas (reads.ReadsReplicas) and the run's
// interference promotes some (fail-primary). A promotion leaves the
// promoted server one replica fewer, and a client's k-th replica
// connection then goes to replica k mod n of the n left, or to the
// promoted server itself when none is left (the run's replicaConnects):
// with 2 replicas and one fail-over, every client's two replica
// connections go to the one left, and a server sized for one connection a
// client refused half of them for the rest of the phase. Servers are
// sized alike, the promoted one included (a standby needs a
// max_connections at least its primary's).
func failoverShare(s *spec.Spec, r *Run, reads *Plan) int {
	n := r.Replicas
	if n == 0 {
		return 1
	}
	events, bad := interfere.Parse(s.InterferenceOf(&r.Run))
	if len(bad) > 0 {
		return 1 // checkRegistered reports them
	}
	phase := s.Workload.Warmup.D() + s.Workload.Duration.D()
	promotions := 0
	for i := range events {
		if ev := &events[i]; interfere.Promotes(ev) && !ev.Off() {
			promotions += len(ev.Occurrences(phase))
		}
	}
	if promotions == 0 || !reads.ReadsReplicas(r) {
		return 1
	}
	left := n - min(promotions, n) // more promotions than replicas are refused (interfere.Check)
	if left == 0 {
		return 1 + n // the promoted server holds every connection of a client
	}
	return (n + left - 1) / left
}
