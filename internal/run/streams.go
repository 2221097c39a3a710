package run

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// setTenants tells tenant-aware workloads (TPC-H: a query stream per
// tenant, Erdelt and Rabl 2026, section 5.2) which tenant each serves.
func (e *execution) setTenants() error {
	for i, w := range e.workloads {
		if ta, ok := w.(workload.TenantAware); ok {
			if err := ta.SetTenant(i, len(e.workloads)); err != nil {
				return fmt.Errorf("tenant %s: %w", e.placements[i].Tenant, err)
			}
		}
	}
	return nil
}

// collectStreams keeps the query streams of the tenants whose workload
// runs them, after the workload phase, which ended at end: when the
// streams ended it early, the measured part is what they ran
// (results.Workload.CutToStreams).
func (e *execution) collectStreams(end time.Time) {
	for i, w := range e.workloads {
		if s, ok := w.(workload.Streamer); ok {
			e.streams = append(e.streams, results.TenantStreams{Tenant: e.placements[i].Tenant, Streams: s.Streams()})
		}
	}
	e.workloadEnd = end
}

// watchMemory starts the memory watch before the run's servers start;
// do reads it when the phases are over, so that a kill in loading or
// post-ingest (an index or foreign key build) is seen as well as one in
// the workload.
func (e *execution) watchMemory(context.Context) error {
	e.memWatch = startMemWatch(e.t0)
	return nil
}

// memoryKills are the memory kills seen during the run, each with the
// phase it was seen in and the queries of the killed instance's tenants
// that failed from then on (a killed backend takes the server through
// crash recovery, which ends every connection of the instance).
func (e *execution) memoryKills() []results.MemoryKill {
	if e.memWatch == nil {
		return nil
	}
	kills := e.memWatch.kills()
	for k := range kills {
		at := e.memWatch.start.Add(time.Duration(kills[k].AtS * float64(time.Second)))
		kills[k].Phase = e.phaseAt(kills[k].AtS)
		tenants := map[string]bool{}
		for _, p := range e.placements {
			if p.Instance.Name == kills[k].Instance {
				tenants[p.Tenant] = true
			}
		}
		for _, ts := range e.streams {
			if !tenants[ts.Tenant] {
				continue
			}
			for _, s := range ts.Streams {
				for _, x := range s.Execs {
					// The log's time is the postmaster's report, just
					// after the kill.
					if x.Err != "" && !x.End.Before(at.Add(-time.Second)) {
						kills[k].Lost = append(kills[k].Lost, fmt.Sprintf("%s stream %d %s at %.1f s: %s",
							ts.Tenant, s.Number, x.Query, x.End.Sub(e.memWatch.start).Seconds(), x.Err))
					}
				}
			}
		}
	}
	return kills
}

// phaseAt is the phase under way at seconds since the run started (the
// last to start by then), "" before the first.
func (e *execution) phaseAt(s float64) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	phase, from := "", -1.0
	for _, p := range e.phases {
		if p.Start <= s && p.Start >= from {
			phase, from = p.Phase, p.Start
		}
	}
	return phase
}

// memoryKillErrors describe the memory kills for the run's error, each
// with the copy of the instance's log (its crash recovery is in it).
func (e *execution) memoryKillErrors() []error {
	var errs []error
	for _, k := range e.memoryKills() {
		log := ""
		for _, inst := range e.instances {
			if inst != nil && inst.Name == k.Instance {
				log = "; " + e.keepLog(inst)
			}
		}
		if k.Phase != "" {
			e.failPhase(k.Phase, fmt.Errorf("instance %s: server process(es) killed for memory", k.Instance))
		}
		errs = append(errs, fmt.Errorf("instance %s: %d server process(es) killed for memory (%s OOM killer) at %.1f s, phase %s; %d query execution(s) lost (summary.json memory_kills)%s",
			k.Instance, k.Kills, k.Source, k.AtS, k.Phase, len(k.Lost), log))
	}
	return errs
}

// perSecond is the target of every second of a phase of the given length,
// summed over the tenants of lp; nil when no tenant's target varies.
func perSecond(lp *load.Plan, phase time.Duration) []float64 {
	varies := false
	for _, t := range lp.Tenants {
		varies = varies || t.Varies
	}
	if !varies {
		return nil
	}
	var out []float64
	for s := time.Duration(0); s < phase; s += time.Second {
		to := min(s+time.Second, phase)
		v := 0.0
		for i := range lp.Tenants {
			v += lp.Tenants[i].Profile.Mean(s, to)
		}
		out = append(out, v)
	}
	return out
}
