package monitor

import "time"

// Samples is everything a Monitor measured, from Start to Stop. Times are
// durations since Origin; counters (CPU, IO, context switches) are
// cumulative since Start, so that a window's figure is a difference.
type Samples struct {
	Origin       time.Time
	Interval     time.Duration // resource sampling
	WaitInterval time.Duration // wait-event sampling; 0: off
	PSSInterval  time.Duration // smaps_rollup sampling; 0: off
	Instances    []*InstanceSeries
	Host         []HostSample
	// Marks are Start ("start"), each Mark, and Stop ("stop"), in order:
	// the segments between consecutive marks are those of Waits and DBMS.
	Marks []Mark
	// Errors are the distinct problems met while sampling, with how often:
	// a sample that could not be read is missing, never made up.
	Errors []string
}

// Mark is a named point in time.
type Mark struct {
	Label string
	T     time.Duration
}

// InstanceSeries is one instance's measurements.
type InstanceSeries struct {
	Name string
	// Role is the instance's role, provider.Role: "primary", or
	// "replica" for a hot standby (sut.replicas).
	Role       string
	Pid        int    // the postmaster
	Cgroup     string // "" without one
	CgroupMode string
	// Sources say where CPU, memory and IO figures come from: "cgroup v1",
	// "cgroup v2" or "proc" (the process tree); for a Whole instance its
	// provider's source ("kubelet stats/summary") and IO "none".
	CPUSource, MemorySource, IOSource string
	// Whole says the figures are the whole server's, measured by what
	// runs it (provider.UsageSampler: a pod's kubelet), not by its
	// processes here: nothing is split by tenant or process class, and
	// its IO is not measured.
	Whole bool
	// Tenants names the entries of ResourceSample.TenantUser and
	// TenantSys: "(background)", "(monitor)", "(other)", then the tenants
	// placed on the instance, in the order they became known.
	Tenants []string
	// SharedExceptBuffers is the server's shared memory without its
	// buffer cache, in bytes: pg_shmem_allocations' allocations but
	// "Buffer Blocks" (shared_buffers) and the unused rest, read when the
	// monitor connects (the segment is laid out at the server's start).
	// -1 when it could not be read (servers before 13 lack the view).
	SharedExceptBuffers int64
	Samples             []ResourceSample
	// Pools are the pools of the pooler in front of the instance, each
	// round (none without a pooler).
	Pools []PoolSample
	Waits []WaitSegment
	DBMS  []StatsDelta
	// Replication is each round's lag of each standby of the instance,
	// as it sees them (replication.go); none without standbys.
	Replication []ReplicationSample
}

// ResourceSample is one round of one instance. A figure that is not
// available is -1 (cgroup memory without a cgroup, IO operations without
// io.stat, PSS between its rounds).
type ResourceSample struct {
	T time.Duration
	// CPUUser and CPUSys are the instance's CPU seconds since Start: the
	// cgroup's, or the process tree's (live processes plus the children
	// the postmaster has reaped).
	CPUUser, CPUSys float64
	// MemCurrent and MemPeak are the cgroup's memory usage and its peak
	// since the group was made (page cache and shared memory included);
	// MemAnon, MemFile (page cache, shared memory included) and MemShmem
	// (shared_buffers and dynamic shared memory) split it.
	MemCurrent, MemPeak, MemAnon, MemFile, MemShmem int64
	// RSS and PSS are summed over the instance's processes: RSS counts a
	// shared page once per process that touched it, PSS divides it among
	// them.
	RSS, PSS int64
	// BackgroundAnon is the Pss_Anon of smaps_rollup summed over the
	// background processes (postmaster, checkpointer, writers, autovacuum;
	// not parallel workers): their private memory, in Oracle's (2014) memory
	// footprint (metrics.MemoryFootprintPerTenant). Read with PSS; -1
	// between its rounds or where the kernel lacks Pss_Anon.
	BackgroundAnon int64
	// Block IO since Start: the cgroup's io.stat (v2), else the sum over
	// processes of /proc/<pid>/io read_bytes and write_bytes (bytes read
	// from storage, and bytes bound for it, counted when a page is
	// dirtied). Operations only from io.stat.
	IOReadBytes, IOWriteBytes, IOReadOps, IOWriteOps int64
	// Context switches since Start, summed over the processes; those of a
	// process that exited count up to its last round.
	CtxVoluntary, CtxInvoluntary int64
	// Procs counts every process of the instance: ClientBackends (the
	// monitor's own excluded), Background (postmaster and every other
	// server process, parallel workers included) and the monitor's backend.
	Procs, ClientBackends, Background int
	// TenantUser and TenantSys are CPU seconds since Start by entry of
	// InstanceSeries.Tenants (shorter when tenants were added later).
	TenantUser, TenantSys []float64
	// TenantAnon is, in a PSS round, the Pss_Anon of smaps_rollup summed
	// over each entry's processes (bytes; the tenants' client backends
	// and parallel workers): the private memory of a tenant's sessions
	// (work_mem, caches of the catalog and of plans), the part of a
	// server's memory a tenant owns whatever the model. nil between PSS
	// rounds and where the kernel lacks Pss_Anon.
	TenantAnon []int64
	// TenantBlksRead and TenantBlksHit are, by entry of
	// InstanceSeries.Tenants, the blocks the DBMS counts for each
	// tenant's database or schema (as its tenancy model places it:
	// tenancy.BlockScope) since its statistics were reset: sought
	// outside the buffer cache, and found in it. -1 for an entry not
	// counted (the pseudo tenants); nil in a round that did not read
	// them (a model whose tenants share tables, an engine without
	// server.BlockStats, a failed query).
	TenantBlksRead, TenantBlksHit []int64
}

// HostSample is the machine and tenantbench's own process at one round.
type HostSample struct {
	T time.Duration
	// Percentages of all CPUs' time over the interval that ended at T
	// (-1 in the first sample): busy (user, nice, system, irq, softirq),
	// idle (iowait included), of which iowait, and steal (taken by the
	// hypervisor). Busy + idle + steal = 100.
	BusyPct, IdlePct, IowaitPct, StealPct float64
	MemTotal, MemAvailable                int64 // bytes, /proc/meminfo
	// Self is tenantbench's process: its CPU seconds since Start and RSS.
	SelfCPUUser, SelfCPUSys float64
	SelfRSS                 int64
}

// WaitSegment is the wait-event histogram of one instance between two
// marks.
type WaitSegment struct {
	From, To string // mark labels
	// Ticks is how many times pg_stat_activity was sampled: Samples/Ticks
	// is the average number of a tenant's sessions in that state and event.
	Ticks  int64
	Counts []WaitCount
}

// WaitCount is how many times a tenant's sessions were seen in one state
// and wait event. Event is "Type:Event" (LWLock:WALWrite,
// Client:ClientRead), "CPU" for an active session with no wait event, or
// "-" for an inactive one with none.
type WaitCount struct {
	Tenant  string // a tenant, "(background)" or "(other)"
	State   string // pg_stat_activity.state; "" for background processes
	Event   string
	Samples int64
}

// StatsDelta is the change of the DBMS's cumulative statistics between two
// marks: view -> row key -> column -> change. Row keys join the view's
// text columns (pg_stat_database: datname, "(null)" for shared objects;
// pg_stat_io: backend_type/object/context); views of one row use "all".
// Gauges (numbackends, op_bytes) hold their value at To, not a change.
type StatsDelta struct {
	From    string                                   `json:"from"`
	To      string                                   `json:"to"`
	Seconds float64                                  `json:"seconds"`
	Views   map[string]map[string]map[string]float64 `json:"views"`
	// Reset lists "view/key" rows whose statistics were reset in between:
	// their changes are meaningless.
	Reset []string `json:"reset,omitempty"`
}
