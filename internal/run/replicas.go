package run

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// startReplicas gives each of the run's servers that holds tenants its
// hot standbys (sut.replicas), at the end of post-ingest: a base backup
// then copies the loaded data once, where standbys made before ingest
// would replay every row of it (and slow the load, which is
// tenantbench's, not the system under test's). The standbys join the
// run's instances, with their primary's limits: the monitor samples them,
// the results list them, teardown stops them (the provider stops a
// primary's standbys before it, also on `down`, from their ledger
// records).
func (e *execution) startReplicas(ctx context.Context) error {
	n := e.run.Replicas
	if n == 0 {
		return nil
	}
	sync := e.plan.Replication == spec.ReplicationSync
	held := map[*provider.Instance]bool{}
	for _, p := range e.placements {
		held[p.Instance] = true
	}
	primaries := len(e.instances)
	for i := 0; i < primaries; i++ {
		inst := e.instances[i]
		if !held[inst] {
			continue // a template no tenant uses
		}
		r, ok := provider.As[provider.Replicated](inst)
		if !ok {
			return fmt.Errorf("instance %s: the provider cannot start replicas of it", inst.Name)
		}
		rs, err := r.StartReplicas(ctx, n, sync)
		if err != nil {
			return err
		}
		for _, ri := range rs {
			e.instances = append(e.instances, ri)
			e.limits = append(e.limits, e.limits[i])
			e.logf("instance %s: replica %s on port %d (%s)", inst.Name, ri.Name, ri.Port, e.plan.Replication)
		}
		e.mon.Add(ctx, rs)
	}
	return nil
}

// replicaConnects are how tenant i's clients connect to each replica of
// its server, as the tenant, direct (a pooler stands in front of the
// primary only); nil when the run's clients do not read the replicas.
// Each looks its replica up when it connects: after a fail-over the
// tenant's server is the promoted one, with one replica fewer, so the
// k-th connection goes to its (k mod n)-th replica, or to the promoted
// server itself when none is left, not to the old list, one of which is
// now the primary.
func (e *execution) replicaConnects(i int) []workload.Connect {
	if !e.plan.ReadsReplicas(e.run) {
		return nil
	}
	var out []workload.Connect
	for k := range provider.ReplicasOf(e.placements[i].Instance) {
		out = append(out, func(ctx context.Context) (workload.Conn, error) {
			e.placeMu.RLock()
			p := e.placements[i]
			e.placeMu.RUnlock()
			target := p.Instance
			if rs := provider.ReplicasOf(p.Instance); len(rs) > 0 {
				target = rs[k%len(rs)]
			}
			return target.Engine.ClientConn(ctx, target.DSN(e.run.Transport, p.Database, p.Role, p.Password), nil)
		})
	}
	return out
}

// measureLags gives each tenant's workload that measures replication lag
// (workload.Lagger) the measured part of the phase as the phase starts,
// then calls started.
func (e *execution) measureLags(started func(time.Time, *driver.Watch)) func(time.Time, *driver.Watch) {
	w := e.spec.Workload
	warmup, duration := time.Duration(w.Warmup), time.Duration(w.Duration)
	return func(start time.Time, watch *driver.Watch) {
		for _, wl := range e.workloads {
			if l, ok := wl.(workload.Lagger); ok {
				l.Measure(start.Add(warmup), start.Add(warmup+duration))
			}
		}
		if started != nil {
			started(start, watch)
		}
	}
}

// collectLags reads each tenant's lag histograms after the phase.
func (e *execution) collectLags() {
	for _, wl := range e.workloads {
		if l, ok := wl.(workload.Lagger); ok {
			e.lags = append(e.lags, l.Lags()...)
		}
	}
}
