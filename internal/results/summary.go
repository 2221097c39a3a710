// Package results lays out and writes the files a run produces, as it goes
// so that an interrupted experiment leaves every finished run
// whole and marks the cut one. docs/results.md documents every file.
package results

import (
	"math"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"time"
)

// Status of a run.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	// StatusInterrupted is a run cut short by a signal (its error names
	// it): its figures cover the time it ran, as a failed run's do.
	StatusInterrupted = "interrupted"
)

// Summary is runs/<id>/summary.json: everything about one run.
type Summary struct {
	RunID      string            `json:"run_id"`
	Model      string            `json:"model"`
	Tenants    int               `json:"tenants"`
	Scale      float64           `json:"scale"`
	Clients    int               `json:"clients"`
	Repetition int               `json:"repetition"`
	Settings   map[string]string `json:"settings"`
	// Interference is the run's value of each list-valued interference
	// param ("interference[0].load": "30"), absent when none.
	Interference map[string]string `json:"interference,omitempty"`
	Seed         int64             `json:"seed"`
	Workload     string            `json:"workload"`
	// Interaction is how the workload sent its transactions (tpcc:
	// batched, statements, procedures); empty for a workload with one way.
	Interaction string `json:"interaction,omitempty"`
	// Storage, Volume and CPUPolicy are where the servers' data lived
	// and how they were placed on cores (sut.storage, cpu_policy).
	Storage   string `json:"storage,omitempty"`
	Volume    string `json:"volume,omitempty"`
	CPUPolicy string `json:"cpu_policy,omitempty"`
	// Placement is the name of the clients' placement (sut.placement),
	// empty without it.
	Placement string `json:"placement,omitempty"`
	// Replicas is the hot standbys of each server (sut.replicas), 0 for
	// none.
	Replicas int `json:"replicas,omitempty"`
	// Engine is the run's engine, Case its entry of workload.cases
	// (absent for none); both absent in summaries older than them.
	Engine   string  `json:"engine,omitempty"`
	Case     string  `json:"case,omitempty"`
	Warmup   float64 `json:"warmup_s"`
	Duration float64 `json:"duration_s"`
	// Measured is the measured part the rates divide by: Duration, or
	// less when the run was cut short (interrupted) or its query streams
	// ended it (Workload.Duration); 0 when nothing was measured.
	Measured float64 `json:"measured_s"`

	Status string    `json:"status"`
	Error  string    `json:"error,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`

	Instances []Instance     `json:"instances"`
	Phases    []Phase        `json:"phases"`
	Tenant    []TenantTotals `json:"tenant_totals"`
	Provider  Aggregate      `json:"provider"`
	// Driver is how the driver ran the clients (its threads and event
	// loops); absent when unknown.
	Driver *DriverThreads `json:"driver,omitempty"`
	// HostSpeed is the speed probe's value taken before the run (or its
	// round), in the probe's unit (probe.csv); nil without a probe.
	HostSpeed *float64 `json:"host_speed,omitempty"`
	// Classes break the tenants' figures down by class (classes.go);
	// absent without tenancy.classes.
	Classes []ClassTotals `json:"classes,omitempty"`
	// MemoryKills are the server processes killed for memory during the
	// workload phase (memory.go).
	MemoryKills []MemoryKill `json:"memory_kills,omitempty"`
	// NotMeasured says why the servers' CPU and memory, and what is
	// computed from them (E_TpX, E_Lat, the memory footprint, the
	// resource unit cost, P-Score), were not measured: their cells are
	// empty, never zero. "" when they were.
	NotMeasured string `json:"not_measured,omitempty"`
	// Events are the run's interference occurrences with their F and R
	// (events.csv); absent without interference.
	Events []Event `json:"events,omitempty"`
	// Lag is what a lag workload measured, by operation and replica
	// (lag.csv); absent otherwise.
	Lag []LagRow `json:"lag,omitempty"`
	// meanOf is, for a row of AggregateRuns, how many successful
	// repetitions its figures are the means of: with none, results.csv
	// leaves them empty (cells.go).
	meanOf int
}

// Instance describes one server of the run.
type Instance struct {
	Name           string   `json:"name"`
	Port           int      `json:"port"`
	Version        string   `json:"version"`
	Cgroup         string   `json:"cgroup"`
	CgroupMode     string   `json:"cgroup_mode"`
	LimitsEnforced bool     `json:"limits_enforced"`
	CPUs           float64  `json:"cpus"`
	MemoryBytes    int64    `json:"memory_bytes"`
	Tenants        []string `json:"tenants"`
	// Cores are the CPUs the server was placed on (cpu_policy), none
	// when it ran wherever the scheduler put it.
	Cores []int `json:"cores,omitempty"`
	// The instance's CPU over the measured workload as shares of the
	// host's CPUs, in percent: its background processes, its tenants'
	// backends (foreground), and all its processes (cpusplit.go); absent
	// unmonitored.
	CPUBackgroundPct *float64 `json:"cpu_background_pct,omitempty"`
	CPUForegroundPct *float64 `json:"cpu_foreground_pct,omitempty"`
	CPUPct           *float64 `json:"cpu_pct,omitempty"`
	// IOPS is its block IO operations per second over the measured
	// workload; absent where not counted (only cgroup v2 counts them).
	IOPS *float64 `json:"iops,omitempty"`
	// Pooler is the connection pooler in front of the server, nil for
	// none.
	Pooler *Pooler `json:"pooler,omitempty"`
}

// Pooler is a connection pooler in front of a server (sut.pooler) as it
// ran.
type Pooler struct {
	Kind     string `json:"kind"`
	Mode     string `json:"mode"`
	PoolSize int    `json:"pool_size"`
	Version  string `json:"version"` // the program's, "1.18.0"
	Port     int    `json:"port"`
	// NamedStatements false: the pooler could not keep a client's named
	// prepared statements in its mode, so the workload's statements ran
	// unnamed (described once, then sent with each execution).
	NamedStatements bool `json:"named_statements"`
	// SessionKept false: the pooler keeps no session for a client (it
	// hands each transaction to a free server connection), so the
	// workloads carried per transaction what a session would hold (tpcc's
	// isolation level in its BEGIN) and the plan refused options that
	// need one.
	SessionKept bool   `json:"session_kept"`
	Cgroup      string `json:"cgroup,omitempty"`
	// CPUS is the CPU seconds the pooler used over the workload phase,
	// MemPeakBytes the most memory it held, both from its cgroup; nil
	// without one.
	CPUS         *float64 `json:"cpu_s,omitempty"`
	MemPeakBytes *int64   `json:"mem_peak_bytes,omitempty"`
}

// Phase is one tenant's time in one phase.
type Phase struct {
	Tenant string  `json:"tenant"`
	Phase  string  `json:"phase"`
	Start  float64 `json:"start_s"` // since the run started
	End    float64 `json:"end_s"`
	Status string  `json:"status"`
	Error  string  `json:"error,omitempty"`
}

// Seconds is the phase's duration.
func (p Phase) Seconds() float64 { return p.End - p.Start }

// TenantTotals is one tenant's workload totals (the tenant perspective of
// Erdelt and Rabl 2026, section 5.1), all transaction types together.
type TenantTotals struct {
	Tenant string `json:"tenant"`
	// Class is the tenant's class of tenancy.classes, "" without classes;
	// SLAMet whether it met its SLA, absent when it has none.
	Class      string           `json:"class,omitempty"`
	SLAMet     *bool            `json:"sla_met,omitempty"`
	Committed  int64            `json:"committed"`
	Failed     int64            `json:"failed"`
	FailedBy   map[string]int64 `json:"failed_by_class"`
	TPS        float64          `json:"throughput_tps"`
	MeanMs     float64          `json:"latency_mean_ms"`
	P95Ms      float64          `json:"latency_p95_ms"`
	P99Ms      float64          `json:"latency_p99_ms"`
	ConnLost   string           `json:"connection_lost,omitempty"`
	Failures   []Failure        `json:"failures,omitempty"`
	IngestS    float64          `json:"ingest_s"`
	PostIngest float64          `json:"post_ingest_s"`
	// TPM is commits plus expected rollbacks per minute
	// (Matos and Pedreira 2025); NOPM committed New-Orders per minute, only
	// for workloads that have them.
	TPM  float64  `json:"tpm"`
	NOPM *float64 `json:"nopm,omitempty"`
	// CPUS is the CPU seconds of the tenant's own backends during the
	// measured workload (the monitor's attribution); absent unmonitored.
	CPUS *float64 `json:"cpu_s,omitempty"`
	// MemPrivateMB is the private memory of the tenant's own sessions
	// (Pss_Anon of its backends, MiB), the most sampled over the measured
	// workload; absent unmonitored or where the kernel lacks Pss_Anon.
	MemPrivateMB *float64 `json:"mem_private_mb,omitempty"`
	// IOPS is the tenant's block IO operations per second: its server's,
	// where the server holds it alone and counts them (tenantIOPS).
	IOPS *float64 `json:"iops,omitempty"`
	// IOReadBytesPS and IOWriteBytesPS are the block IO bytes per second
	// of the tenant's server, where it holds the tenant alone (tenantIO).
	IOReadBytesPS  *float64 `json:"io_read_bytes_ps,omitempty"`
	IOWriteBytesPS *float64 `json:"io_write_bytes_ps,omitempty"`
	// BlksReadPS and BlksHitPS are the blocks per second the DBMS counts
	// for the tenant's database or schema: sought outside the buffer
	// cache and found in it (tenantIO); absent where not counted.
	BlksReadPS *float64 `json:"blks_read_ps,omitempty"`
	BlksHitPS  *float64 `json:"blks_hit_ps,omitempty"`
	// PoolWaitMs is the tenant's mean wait for a server connection of the
	// pooler in front of its server, per transaction, over the measured
	// workload (the pooler's own totals); absent without a pooler, and
	// for a tenant sharing its database (the pooler counts per database).
	PoolWaitMs *float64 `json:"pool_wait_ms,omitempty"`
	// Open is an open load's arrivals and service time; absent when closed.
	Open *OpenTotals `json:"open,omitempty"`
	// TS and PowerAtSize are the tenant's T_s and Power@Size over its
	// query streams (TPC-H); absent for other workloads, and Power@Size
	// when a stream is incomplete.
	TS          *float64 `json:"t_s,omitempty"`
	PowerAtSize *float64 `json:"power_at_size,omitempty"`
}

// OpenTotals is what an open load asked for and got, after warmup
// (the warmup excluded): the tenants.csv columns of the same names.
type OpenTotals struct {
	TargetRate    float64 `json:"target_rate"`
	Arrivals      int64   `json:"arrivals"`
	Queued        int64   `json:"queued"`
	Dropped       int64   `json:"dropped"`
	AchievedRate  float64 `json:"achieved_rate"`
	ServiceMeanMs float64 `json:"service_mean_ms"`
	ServiceP99Ms  float64 `json:"service_p99_ms"`
}

// Failure is one kind of failure with when it was first and last seen.
type Failure struct {
	Txn     string  `json:"txn"`
	Class   string  `json:"class"`
	Count   int64   `json:"count"`
	FirstS  float64 `json:"first_s"` // since the workload phase started
	LastS   float64 `json:"last_s"`
	Message string  `json:"message"`
	// LastMessage is the last failure's message where it differs from
	// the first's.
	LastMessage string `json:"last_message,omitempty"`
}

// Aggregate is the provider perspective of Erdelt and Rabl 2026, section 5.1:
// sums for throughput, the macro-average for mean latency, the worst tenant
// for percentiles and the maximum for phase durations.
type Aggregate struct {
	TPS        float64 `json:"throughput_tps"`
	MeanMs     float64 `json:"latency_mean_ms"`
	P95Ms      float64 `json:"latency_p95_ms"`
	P99Ms      float64 `json:"latency_p99_ms"`
	Committed  int64   `json:"committed"`
	Failed     int64   `json:"failed"`
	ProvisionS float64 `json:"provision_s"`
	SetupS     float64 `json:"setup_s"`
	IngestS    float64 `json:"ingest_s"`
	PostIngest float64 `json:"post_ingest_s"`
	WorkloadS  float64 `json:"workload_s"`
	TPM        float64 `json:"tpm"`
	// NOPM is absent for workloads without New-Order.
	NOPM *float64 `json:"nopm,omitempty"`
	// FairnessJain is Jain's index over the tenants' throughput.
	FairnessJain float64 `json:"fairness_jain"`
	// The monitored figures of the measured workload (absent unmonitored):
	// the system's CPU seconds (every instance, not the driver), the sum
	// of the instances' peak memory, and Erdelt and Rabl's (2026) efficiencies.
	CPUS      *float64 `json:"cpu_s,omitempty"`
	MemPeakMB *float64 `json:"mem_peak_mb,omitempty"`
	ETpX      *float64 `json:"e_tpx,omitempty"`
	ELat      *float64 `json:"e_lat,omitempty"`
	// Oracle's (2014) memory footprint per tenant (MiB), the marginal memory
	// per tenant (MiB; Marginal), and Zhang et al.'s (2025) resource unit cost
	// ($/min), what it priced, and its P- and T-Score (cost.go); absent
	// when not known.
	MemFootprintMB *float64 `json:"mem_footprint_per_tenant_mb,omitempty"`
	MemMarginalMB  *float64 `json:"mem_marginal_per_tenant_mb,omitempty"`
	RUC            *float64 `json:"ruc_usd_per_min,omitempty"`
	Priced         *Priced  `json:"priced,omitempty"`
	PScore         *float64 `json:"p_score,omitempty"`
	TScore         *float64 `json:"t_score,omitempty"`
	// Zhang et al.'s (2025) E1-Score (eq. 2) and what it priced
	// (elastic.go); E2-Score (eq. 5), set on every run of a scale-out
	// group once the group has run (scaleout.go). Absent when not known.
	Elastic *Elastic `json:"elastic,omitempty"`
	E1Score *float64 `json:"e1_score,omitempty"`
	E2Score *float64 `json:"e2_score,omitempty"`
	// Query streams (TPC-H, Erdelt and Rabl 2026, section 5.2; streams.go):
	// T_s, Power@Size and Throughput@Size (eq. 3-4), present when every
	// stream ran all its queries; E_CPU and E_RAM (eq. 5-6) when also
	// monitored.
	TS               *float64 `json:"t_s,omitempty"`
	PowerAtSize      *float64 `json:"power_at_size,omitempty"`
	ThroughputAtSize *float64 `json:"throughput_at_size,omitempty"`
	ECPU             *float64 `json:"e_cpu,omitempty"`
	ERAM             *float64 `json:"e_ram,omitempty"`
	// Zhang et al.'s (2025) F- and R-Score (eq. 3-4) over the run's fault
	// events (events.go), and the host's idle CPU in percent over the
	// workload phase (EDB 2026); absent when not measured.
	FScoreS     *float64 `json:"f_score_s,omitempty"`
	RScoreS     *float64 `json:"r_score_s,omitempty"`
	HostIdlePct *float64 `json:"host_cpu_idle_pct,omitempty"`
	// The servers' CPU over the measured workload as shares of the
	// host's CPUs, in percent, split as Oracle 2014, Table 5 does:
	// background processes, the tenants' backends (foreground), and every
	// server process (cpusplit.go); absent unmonitored.
	CPUBackgroundPct *float64 `json:"cpu_background_pct,omitempty"`
	CPUForegroundPct *float64 `json:"cpu_foreground_pct,omitempty"`
	CPUServersPct    *float64 `json:"cpu_servers_pct,omitempty"`
	// MemTenantPrivateMB is the mean over the tenants of their sessions'
	// private memory (TenantTotals.MemPrivateMB): the memory a tenant
	// brings whatever the model, beside Oracle's (2014) footprint of the
	// server's own; absent when no tenant's was measured.
	MemTenantPrivateMB *float64 `json:"mem_tenant_private_mb,omitempty"`
	// SLAMetTenants are the tenants that met their SLA, SLAMet whether
	// every tenant with one did (classes.go); absent when no tenant has
	// an SLA.
	SLAMetTenants *int  `json:"sla_met_tenants,omitempty"`
	SLAMet        *bool `json:"sla_met,omitempty"`
	// Replication lag by operation and the C-Score of Zhang et al. 2025,
	// eq. 6 (lag.go), in ms; absent unless a lag workload measured them.
	LagInsertMs *float64 `json:"lag_insert_ms,omitempty"`
	LagUpdateMs *float64 `json:"lag_update_ms,omitempty"`
	LagDeleteMs *float64 `json:"lag_delete_ms,omitempty"`
	CScoreMs    *float64 `json:"c_score_ms,omitempty"`
	// The driver's own cost over the measured part (Driver): CPU seconds
	// of tenantbench's process per 1000 transactions that ended (committed
	// or rolled back on purpose), and its share of the host's CPU time
	// (1 = every CPU of the host busy with the driver); absent when
	// unknown.
	DriverCPUPer1000 *float64 `json:"driver_cpu_s_per_1000,omitempty"`
	DriverCPUShare   *float64 `json:"driver_cpu_share,omitempty"`
}

// DriverShareWarning is the share of the host's CPU above which the
// driver may have competed with the servers for CPU (the report warns).
const DriverShareWarning = 0.25

// Driver adds the driver's cost: cpuS CPU seconds of tenantbench's process
// over secs measured seconds, in which txns transactions ended, on a host
// of cpus CPUs.
func (a *Aggregate) Driver(cpuS float64, txns int64, secs float64, cpus int) {
	if txns > 0 {
		a.DriverCPUPer1000 = ptr(cpuS / float64(txns) * 1000)
	}
	if secs > 0 && cpus > 0 {
		a.DriverCPUShare = ptr(cpuS / (secs * float64(cpus)))
	}
}

// Aggregate computes the provider view from the tenants' totals and the
// phases (Erdelt and Rabl 2026, section 5.1).
func AggregateOf(tenants []TenantTotals, phases []Phase) Aggregate {
	var a Aggregate
	for _, t := range tenants {
		a.TPS += t.TPS
		a.MeanMs += t.MeanMs
		a.P95Ms = max(a.P95Ms, t.P95Ms)
		a.P99Ms = max(a.P99Ms, t.P99Ms)
		a.Committed += t.Committed
		a.Failed += t.Failed
		a.TPM += t.TPM
		if t.NOPM != nil {
			a.NOPM = ptr(deref(a.NOPM) + *t.NOPM)
		}
	}
	if j, err := metrics.JainIndex(tps(tenants)); err == nil && !math.IsNaN(j) {
		a.FairnessJain = j
	}
	if len(tenants) > 0 {
		a.MeanMs /= float64(len(tenants))
	}
	for _, p := range phases {
		d := p.Seconds()
		switch p.Phase {
		case "provision":
			a.ProvisionS = max(a.ProvisionS, d)
		case "setup":
			a.SetupS = max(a.SetupS, d)
		case "ingest":
			a.IngestS = max(a.IngestS, d)
		case "post-ingest":
			a.PostIngest = max(a.PostIngest, d)
		case "workload":
			a.WorkloadS = max(a.WorkloadS, d)
		}
	}
	return a
}

// Monitored adds the monitor's figures of the measured workload to a:
// cpuS is the system's CPU seconds, memPeakMB the instances' peak memory,
// seconds the measured duration. E_TpX and E_Lat follow Erdelt and Rabl 2026,
// eq. 1-2 (internal/metrics); they stay absent when the CPU time is not
// positive.
func (a *Aggregate) Monitored(cpuS, memPeakMB, seconds float64) {
	a.CPUS, a.MemPeakMB, a.ETpX, a.ELat = ptr(cpuS), ptr(memPeakMB), nil, nil
	if e, err := metrics.ETpX(a.TPS, seconds, cpuS); err == nil {
		a.ETpX = ptr(e)
	}
	if e, err := metrics.ELat(a.MeanMs/1000, cpuS); err == nil {
		a.ELat = ptr(e)
	}
}

func tps(ts []TenantTotals) []float64 {
	v := make([]float64, len(ts))
	for i, t := range ts {
		v[i] = t.TPS
	}
	return v
}

func ptr(f float64) *float64 { return &f }

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
