package results

import (
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Observations are what a run saw, raw: who it was, what it ran on, how
// long each phase took, what the driver and the monitor measured, what
// it stored and at what prices. Summarize computes every figure of the
// summary from them; the orchestrator only gathers them.
type Observations struct {
	// The run as planned.
	RunID      string
	Model      string
	Tenants    int
	Scale      float64
	Clients    int
	Repetition int
	Settings   map[string]string
	// Interference is the run's value of each list-valued interference
	// param (spec.Run), nil for none.
	Interference map[string]string
	Seed         int64
	WorkloadName string
	// Interaction is the workload's interaction mode (plan.Run), "" for
	// a workload with one way of sending its transactions.
	Interaction string
	// Storage, Volume and CPUPolicy are the run's sut.storage kind and
	// volume and its sut.resources.cpu_policy (plan.Run).
	Storage, Volume, CPUPolicy string
	// Placement is the name of the run's sut.placement, "" without it
	// (plan.Run).
	Placement string
	// Engine is the run's engine (sut.engine), Case its entry of
	// workload.cases, "" for none (plan.Run).
	Engine, Case string
	// HostCPUs is the number of CPUs of the machine the driver ran on
	// (env.json's cpus), for the driver's share of them.
	HostCPUs int
	Warmup   time.Duration
	Duration time.Duration

	Start, End time.Time
	Err        error // nil when the run succeeded
	// Interrupted is why the run was cut short (a signal), nil when it
	// was not: the run's status is then StatusInterrupted.
	Interrupted error

	// Instances are the run's servers with their limits and tenants.
	Instances []Instance
	// ServerPerTenant: each tenant brings its own server, so the empty
	// server is part of what a tenant adds (its marginal memory).
	ServerPerTenant bool
	Phases          []Phase
	MemoryKills     []MemoryKill

	// Workload is what the workload phase measured, with its measured
	// part already cut to the query streams (Workload.CutToStreams); nil
	// when the run never got to measure.
	Workload *Workload
	// Streams are the query streams of the tenants that ran them (TPC-H).
	Streams []TenantStreams
	// Monitor is what the monitor measured over the measured part; nil
	// when the run was not monitored or measured nothing.
	Monitor *Monitored
	// StorageGB is the size of the data directories after the workload;
	// nil when unknown.
	StorageGB *float64
	// Prices are the unit prices of the resource unit cost.
	Prices metrics.Prices
	// Events are the run's interference occurrences (events.go), and
	// Recovery what "throughput is back" means for their R; HostIdlePct
	// the host's idle CPU over the workload phase (EDB 2026 reports it),
	// nil when not measured.
	Events   []Event
	Recovery metrics.Recovery
	// Limits are the changes of the servers' limits during the workload
	// phase (elastic.go), nil when they did not change.
	Limits      []LimitChange
	HostIdlePct *float64
	// Replicas is the hot standbys of each server (sut.replicas), Lags
	// what a lag workload measured on them (lag.go); nil for none.
	Replicas int
	Lags     []workload.LagHistogram
	// Classes are the tenants' classes, SLAs their SLAs, by tenant; nil
	// without classes or SLAs (classes.go).
	Classes map[string]string
	SLAs    map[string]SLA

	analytical *Analytical // Analytical's answer, once computed
}

// Monitored are the monitor's figures of the measured workload that the
// summary needs (monitor.Window and the memory rounds).
type Monitored struct {
	CPUS      float64 // the instances' CPU seconds
	MemPeakMB float64 // the sum of the instances' peak memory
	// BackgroundAnonMB and SharedMB make the memory footprint per tenant
	// of Oracle 2014 Table 2 (Aggregate.Footprint); negative when unknown.
	BackgroundAnonMB, SharedMB float64
	IOOps                      int64 // block IO operations; negative when unknown
	TenantCPU                  map[string]float64
	// MemBaseMB is the instances' memory before any tenant was set up,
	// MemLoadedMB its mean over the measured part (MiB); MemoryKnown is
	// false when either is unknown (Aggregate.Marginal).
	MemBaseMB, MemLoadedMB float64
	MemoryKnown            bool
	// NotMeasured says why the servers' CPU and memory could not be
	// measured ("not measured (external server)": tenantbench does not
	// see the processes of a server it did not start); "" when they were.
	NotMeasured string
	// CPUSplit is each instance's CPU split into background and
	// foreground processes; HostCPUs the machine's CPUs its shares divide
	// by (0: unknown, no shares).
	CPUSplit []CPUSplit
	HostCPUs int
	// TenantAnonMB is each tenant's sessions' private memory (MiB).
	TenantAnonMB map[string]float64
	// TenantPoolWaitMs is each tenant's mean wait for a server connection
	// of the pooler per transaction (ms), where the pooler counts it
	// apart.
	TenantPoolWaitMs map[string]float64
	// InstanceIOOps is each instance's block IO operations, where counted
	// (cgroup v2's io.stat); an instance absent was not.
	InstanceIOOps map[string]int64
	// InstanceIOBytes is each instance's block IO bytes read and
	// written ("proc" or cgroup figures, whichever the monitor had).
	InstanceIOBytes map[string][2]int64
	// TenantBlksRead and TenantBlksHit are each tenant's blocks as the
	// DBMS counts them for its database or schema; absent where not
	// counted.
	TenantBlksRead, TenantBlksHit map[string]float64
}

// Summarize computes a run's summary from what it observed. It reads
// nothing else and changes nothing: the same observations give the same
// summary.
func Summarize(o *Observations) *Summary {
	sum := &Summary{RunID: o.RunID, Model: o.Model, Tenants: o.Tenants, Scale: o.Scale, Clients: o.Clients,
		Repetition: o.Repetition, Settings: o.Settings, Interference: o.Interference, Seed: o.Seed, Workload: o.WorkloadName,
		Interaction: o.Interaction, Storage: o.Storage, Volume: o.Volume, CPUPolicy: o.CPUPolicy, Placement: o.Placement, Replicas: o.Replicas,
		Engine: o.Engine, Case: o.Case,
		Warmup: o.Warmup.Seconds(), Duration: o.Duration.Seconds(), Start: o.Start, End: o.End,
		Status: StatusOK, Instances: o.Instances, Phases: o.Phases, MemoryKills: o.MemoryKills}
	if o.Err != nil {
		sum.Status, sum.Error = StatusFailed, o.Err.Error()
	}
	if o.Interrupted != nil {
		sum.Status = StatusInterrupted
		if o.Err == nil {
			sum.Error = "interrupted (" + o.Interrupted.Error() + ")"
		}
	}
	w := o.Workload
	if w != nil {
		sum.Tenant = Totals(w)
		sum.Measured = w.Duration.Seconds()
	}
	for i := range sum.Tenant {
		for _, p := range o.Phases {
			if p.Tenant == sum.Tenant[i].Tenant {
				switch p.Phase {
				case "ingest":
					sum.Tenant[i].IngestS = p.Seconds()
				case "post-ingest":
					sum.Tenant[i].PostIngest = p.Seconds()
				}
			}
		}
	}
	for i := range sum.Tenant {
		sum.Tenant[i].Class = o.Classes[sum.Tenant[i].Tenant]
	}
	sum.Provider = AggregateOf(sum.Tenant, o.Phases)
	sum.Provider.HostIdlePct = o.HostIdlePct
	if o.Events != nil {
		sum.Events = append([]Event(nil), o.Events...)
		rec := o.Recovery
		if rec.Window == 0 {
			rec = metrics.DefaultRecovery
		}
		sum.Provider.FScoreS, sum.Provider.RScoreS = failover(sum.Events, w, rec)
	}
	if len(o.Lags) > 0 {
		sum.Lag = lagRows(o.Lags)
		ops, c := lagScores(sum.Lag)
		sum.Provider.LagInsertMs, sum.Provider.LagUpdateMs, sum.Provider.LagDeleteMs, sum.Provider.CScoreMs = ops[0], ops[1], ops[2], c
	}
	judge(sum, o.SLAs)
	sum.Classes = classTotals(sum.Tenant, o.Classes)
	if w == nil {
		return sum
	}
	sum.Driver = w.Threads
	if d := w.DriverCPUS; d != nil {
		var ended int64
		for _, t := range w.Tenants {
			ended += t.All.Committed + t.All.Rollbacks
		}
		sum.Provider.Driver(*d, ended, w.Duration.Seconds(), o.HostCPUs)
	}
	if m := o.Monitor; m != nil && m.NotMeasured != "" {
		// Zero would read as a server that used nothing.
		sum.NotMeasured = m.NotMeasured
	} else if m != nil {
		sum.Provider.Monitored(m.CPUS, m.MemPeakMB, w.Duration.Seconds())
		sum.Provider.Footprint(m.BackgroundAnonMB, m.SharedMB, o.Tenants)
		if m.MemoryKnown {
			base := m.MemBaseMB
			if o.ServerPerTenant {
				base = 0 // the empty server is part of what each tenant adds
			}
			sum.Provider.Marginal(m.MemLoadedMB, base, o.Tenants)
		}
		cpuShares(sum, m.CPUSplit, m.HostCPUs, w.Duration.Seconds())
		for i := range sum.Tenant {
			if c, ok := m.TenantCPU[sum.Tenant[i].Tenant]; ok {
				sum.Tenant[i].CPUS = &c
			}
		}
		privateMemory(sum, m.TenantAnonMB)
		for i := range sum.Tenant {
			if v, ok := m.TenantPoolWaitMs[sum.Tenant[i].Tenant]; ok {
				sum.Tenant[i].PoolWaitMs = ptr(v)
			}
		}
		tenantIOPS(sum, m.InstanceIOOps, w.Duration.Seconds())
		tenantIO(sum, m, w.Duration.Seconds())
	}
	o.elastic(sum) // first: a run whose limits changed is priced by what they held
	o.price(sum)
	// After Monitored: E_CPU and E_RAM need its figures.
	if an := o.Analytical(); an != nil {
		sum.Provider.TS = &an.TS
		sum.Provider.SetAnalytical(an, o.Scale)
		for i := range sum.Tenant {
			if ta, ok := an.Tenants[sum.Tenant[i].Tenant]; ok {
				ts := ta.TS
				sum.Tenant[i].TS, sum.Tenant[i].PowerAtSize = &ts, ta.PowerAtSize
			}
		}
	}
	return sum
}

// price adds the resource unit cost and the P- and T-Score of Zhang et
// al. 2025 (CloudyBench) to the summary: the instances' limits, else what
// the monitor measured, at the observed prices (PricedResources).
func (o *Observations) price(sum *Summary) {
	if sum.NotMeasured != "" {
		return
	}
	a := &sum.Provider
	secs := o.Workload.Duration.Seconds()
	p, ok := PricedResources(sum.Instances, a.CPUS, a.MemPeakMB, secs)
	if !ok {
		return
	}
	if e := a.Elastic; e != nil && o.Limits != nil && secs > 0 {
		// The limits changed during the phase (limits.csv): the package
		// given is their mean over the measured part, not the starting one.
		if e.CPUFrom == "limit" {
			p.VCores, p.CPUFrom = e.CPUSeconds/secs, "limit"
		}
		if e.MemoryFrom == "limit" {
			p.MemoryGB, p.MemoryFrom = e.MemoryGBSeconds/secs, "limit"
		}
	}
	p.StorageGB = o.StorageGB
	if m := o.Monitor; m != nil && m.IOOps >= 0 && secs > 0 {
		iops := float64(m.IOOps) / secs
		p.IOPS = &iops
	}
	a.Price(p, o.Prices, tps(sum.Tenant))
}

// Analytical measures the run's query streams over the measured part (per
// query, per stream, T_s, Power@Size, Throughput@Size); nil without
// streams or without a measured workload. Summarize takes its figures
// from it; the run writes its files (WriteAnalytical).
func (o *Observations) Analytical() *Analytical {
	if o.Streams == nil || o.Workload == nil {
		return nil
	}
	if o.analytical == nil { // computed once: Summarize and the run's files share it
		from, to := o.Workload.Measured()
		o.analytical = AnalyticalOf(o.Streams, o.Scale, o.Workload.Start, from, to)
	}
	return o.analytical
}
