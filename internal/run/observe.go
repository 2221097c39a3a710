package run

import (
	"runtime"
	"time"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// observations gathers what the run observed, raw, for results.Summarize:
// the run as planned, its instances with their limits and tenants, its
// phases, and what the driver, the monitor and the data directories
// measured. It computes no figure. err is the run's error, end when it
// ended.
func (e *execution) observations(end time.Time, err error) *results.Observations {
	r, w := e.run, e.spec.Workload
	o := &results.Observations{RunID: r.ID, Model: r.Model, Tenants: r.Tenants, Scale: r.Scale, Clients: r.Clients,
		Repetition: r.Repetition, Settings: r.Settings, Interference: r.Interference, Seed: r.Seed, WorkloadName: w.Name,
		Interaction: r.Interaction, Storage: r.Storage, Volume: r.Volume, CPUPolicy: r.CPUPolicy, Placement: r.Placement, HostCPUs: runtime.NumCPU(),
		Engine: e.plan.EngineOf(e.run), Case: r.Case,
		Warmup: time.Duration(w.Warmup), Duration: time.Duration(w.Duration), Start: e.t0, End: end, Err: err,
		ServerPerTenant: r.ServerPerTenant,
		Phases:          e.phases, MemoryKills: e.memoryKills(), Streams: e.streams, StorageGB: e.storage,
		Prices: e.prices(), Events: e.events, HostIdlePct: e.hostIdle, Limits: e.limitChanges, Replicas: r.Replicas, Lags: e.lags}
	for _, t := range r.TenantList {
		if t.Class != "" {
			if o.Classes == nil {
				o.Classes = map[string]string{}
			}
			o.Classes[t.Name] = t.Class
		}
		if s := t.SLA; !s.Empty() {
			if o.SLAs == nil {
				o.SLAs = map[string]results.SLA{}
			}
			o.SLAs[t.Name] = results.SLA{MinRateRatio: s.MinRateRatio, P95Ms: float64(s.P95.D()) / float64(time.Millisecond)}
		}
	}
	for i, inst := range e.instances {
		cg, cgMode := provider.CgroupOf(inst)
		ri := results.Instance{Name: inst.Name, Port: inst.Port, Version: inst.Version, Cgroup: cg,
			CgroupMode: cgMode, LimitsEnforced: inst.LimitsEnforced,
			CPUs: e.limits[i].CPUs, MemoryBytes: e.limits[i].MemoryBytes, Pooler: e.poolerOf(inst),
			Cores: e.limits[i].Cores}
		for _, p := range e.placements {
			if p.Instance == inst {
				ri.Tenants = append(ri.Tenants, p.Tenant)
			}
		}
		o.Instances = append(o.Instances, ri)
	}
	if e.result == nil {
		return o
	}
	o.Workload = e.result.Result.Figures()
	o.Workload.CutToStreams(e.streams, e.workloadEnd)
	if e.samples != nil {
		from, to := o.Workload.Measured()
		win := e.samples.Window(from, to)
		m := &results.Monitored{CPUS: win.Total.CPU, MemPeakMB: win.Total.MemPeakMB,
			BackgroundAnonMB: win.Total.BackgroundAnonMB, SharedMB: win.Total.SharedMB, IOOps: win.Total.IOOps,
			TenantCPU: win.TenantCPU, HostCPUs: runtime.NumCPU(), TenantAnonMB: win.TenantAnonMB,
			TenantBlksRead: win.TenantBlksRead, TenantBlksHit: win.TenantBlksHit, InstanceIOBytes: map[string][2]int64{},
			TenantPoolWaitMs: win.TenantPoolWaitMs}
		for _, u := range win.Instances {
			m.CPUSplit = append(m.CPUSplit, results.CPUSplit{Instance: u.Instance, Background: u.BackgroundCPU,
				Foreground: u.ForegroundCPU, Total: u.CPU, Whole: u.Whole})
			if u.Whole {
				continue // a pod's: no IO measured, not zero
			}
			m.InstanceIOBytes[u.Instance] = [2]int64{u.IOReadBytes, u.IOWriteBytes}
			if u.IOOps >= 0 {
				if m.InstanceIOOps == nil {
					m.InstanceIOOps = map[string]int64{}
				}
				m.InstanceIOOps[u.Instance] = u.IOOps
			}
		}
		m.MemBaseMB, m.MemLoadedMB, m.MemoryKnown = e.samples.MemoryBaseAndLoaded(from, to)
		m.NotMeasured = e.notMeasured()
		if m.NotMeasured != "" {
			m.InstanceIOBytes = nil // no process seen: no bytes, not zero
		}
		o.Monitor = m
	}
	return o
}

// notMeasured says why the run's servers' CPU and memory are not
// measured: none of them is a process this machine sees (no
// provider.ResourceSampler: the user's servers, provider external) nor
// measured by what runs it (no provider.UsageSampler, as a pod's
// kubelet), in the words of the instance's Unsampled.
func (e *execution) notMeasured() string {
	for _, inst := range e.instances {
		if _, ok := provider.As[provider.ResourceSampler](inst); ok || inst == nil {
			return ""
		}
		if _, ok := provider.As[provider.UsageSampler](inst); ok {
			return ""
		}
	}
	if len(e.instances) == 0 {
		return ""
	}
	if u, ok := provider.As[provider.Unsampled](e.instances[0]); ok {
		return u.Unsampled()
	}
	return "not measured (external server)"
}

// prices are the resource unit prices: Zhang et al. 2025 (CloudyBench)
// Table III, with the spec's CPU and memory prices.
func (e *execution) prices() metrics.Prices {
	p := metrics.DefaultPrices()
	p.CPUPerVCoreHour, p.MemoryPerGBHour = e.spec.Cost.CPUVCoreHour, e.spec.Cost.MemoryGBHour
	return p
}
