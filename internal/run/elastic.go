package run

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/tenantbench/tenantbench/internal/elastic"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// startElastic starts the plan's schedule of limits or autoscale policy
// on the run's servers with the workload phase's clock
// (sut.resources.schedule, autoscale); nothing when the plan has
// neither. Every server must be a provider.Resizer: the plan asked the
// provider (Factory.Resizes).
func (e *execution) startElastic(ctx context.Context, start time.Time) {
	r := e.plan.Resources
	r.Autoscale = e.plan.AutoscaleOf(e.run) // the run's case may have its own
	if r.Schedule == nil && r.Autoscale == nil {
		return
	}
	var servers []elastic.Server
	for i, inst := range e.instances {
		rz, ok := provider.As[provider.Resizer](inst)
		if !ok {
			e.elasticErr = fmt.Errorf("server %s cannot change its limits while it runs: the resources stay as started", inst.Name)
			return
		}
		servers = append(servers, elastic.Server{Name: inst.Name, Resizer: rz, CPUs: e.limits[i].CPUs,
			MemoryBytes: e.limits[i].MemoryBytes})
	}
	var p elastic.Policy
	for _, st := range r.Schedule {
		p.Schedule = append(p.Schedule, elastic.Step{At: time.Duration(st.AtS * float64(time.Second)), CPUs: st.CPUs,
			MemoryBytes: st.MemoryBytes})
	}
	if a := r.Autoscale; a != nil {
		p.Autoscale = &elastic.Autoscale{Min: a.MinCPUs, Max: a.MaxCPUs, Target: a.TargetUtilization,
			Interval: time.Duration(a.IntervalS * float64(time.Second))}
	}
	e.elastic = elastic.Start(ctx, p, servers, start)
}

// stopElastic ends the policy, puts the servers' starting limits back
// for the check phase, and keeps every change for limits.csv. A change
// that failed fails the phase: the run did not have the resources it
// asked for.
func (e *execution) stopElastic() error {
	if err := e.elasticErr; err != nil {
		return err
	}
	if e.elastic == nil {
		return nil
	}
	changes, err := e.elastic.Stop()
	e.elastic = nil
	e.limitChanges = []results.LimitChange{}
	for _, c := range changes {
		lc := results.LimitChange{AtS: c.At.Seconds(), Instance: c.Server, Reason: c.Reason, OldCPUs: c.OldCPUs,
			NewCPUs: c.NewCPUs, OldMemoryBytes: c.OldMemory, NewMemoryBytes: c.NewMemory, Error: c.Err}
		if !math.IsNaN(c.Utilization) {
			u := c.Utilization
			lc.Utilization = &u
		}
		e.limitChanges = append(e.limitChanges, lc)
	}
	if err != nil {
		return fmt.Errorf("changing the servers' limits: %w", err)
	}
	return nil
}
