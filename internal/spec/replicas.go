package spec

import "fmt"

// sut.replicas, sut.replication and workload.reads: hot standbys of each
// server (Zhang et al. 2025, section II-B: a read-write node with
// read-only replicas), how a commit waits for them, and whether the
// workload's read-only transactions go to them. Whether the engine and
// the provider can give them is the plan's to ask (engine.Replicator,
// provider.Factory.Replicates).

// MaxReplicas bounds sut.replicas: PostgreSQL's max_wal_senders and
// max_replication_slots are 10 by default, and a base backup streams over
// one more sender while it copies.
const MaxReplicas = 8

// The values of sut.replication: a commit returns once the primary has
// it (async) or once every standby has flushed it too (sync).
const (
	ReplicationAsync = "async"
	ReplicationSync  = "sync"
)

// The values of workload.reads.
const (
	ReadsPrimary  = "primary"
	ReadsReplicas = "replicas"
)

func replications() choice { return choice{[]string{ReplicationAsync, ReplicationSync}, nil} }

func readsChoice() choice { return choice{[]string{ReadsPrimary, ReadsReplicas}, nil} }

func replicasRule(v int) string {
	if v < 0 || v > MaxReplicas {
		return fmt.Sprintf("must be 0..%d (hot standbys per server)", MaxReplicas)
	}
	return ""
}

// replicas checks sut.replicas, sut.replication and workload.reads.
func (v *validator) replicas(s *Spec) {
	oneOf(v, "sut.replicas", s.SUT.Replicas, replicasRule)
	if !replications().has(s.SUT.Replication) {
		v.add("sut.replication", shown(s.SUT.Replication), replications().allowed(s.SUT.Replication)+
			" (sync: every commit waits until each replica has flushed it)")
	}
	if !readsChoice().has(s.Workload.Reads) {
		v.add("workload.reads", shown(s.Workload.Reads), readsChoice().allowed(s.Workload.Reads)+
			" (replicas: the workload's read-only transactions go to the replicas, round-robin per client)")
		return
	}
	// A run with 0 replicas in a list (sut.replicas: [0, 1, 2], the
	// scale-out of Zhang et al.'s E2-Score, eq. 5) reads on its primary:
	// its throughput is the one replicas add to. Only reads on replicas
	// that no run has are refused.
	if s.Workload.Reads == ReadsReplicas && s.MostReplicas() == 0 {
		v.add("sut.replicas", "0", "must be at least 1 with workload.reads: replicas (no replica to read from; "+
			"in a list, a run with 0 reads on its primary)")
	}
}

// MostReplicas is the largest value of sut.replicas or of a case's
// replicas.
func (s *Spec) MostReplicas() int {
	most := 0
	for _, c := range s.Workload.cases() {
		for _, n := range c.replicasOr(s.SUT.Replicas) {
			most = max(most, n)
		}
	}
	return most
}
