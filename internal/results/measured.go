package results

import "time"

// Workload is what the workload phase measured, in the figures results
// writes (tenants.csv, timeseries.csv, slots.csv, summary.json). The
// driver produces it from its histograms (driver.Result.Figures), so that
// results holds data only and never the driver's in-memory state.
type Workload struct {
	Start  time.Time
	Warmup time.Duration
	// Duration is the measured part, after warmup: the planned duration,
	// or less when the phase was cut short (Ran).
	Duration time.Duration
	Tenants  []TenantWorkload
	Series   []SecondRow
	// Slots are the per-slot measurements of a run with a schedule, by
	// tenant then slot; nil without one.
	Slots []SlotRow
	// DriverCPUS is the CPU seconds tenantbench's own process used over
	// the measured part; nil when unknown.
	DriverCPUS *float64
	// Threads is how the driver ran its clients; nil when not known.
	Threads *DriverThreads
}

// DriverThreads is how the driver ran a run's clients (summary.json
// "driver"): the OS threads that ran Go code (GOMAXPROCS), its event loops,
// how many clients ran on them (the others on goroutines of their own),
// and how many of the loops ran pinned to a CPU of their own. A reader
// comparing the driver's cost between runs (driver_cpu_s_per_1000) needs
// to know which of these it paid for.
type DriverThreads struct {
	Procs         int `json:"procs"`
	Loops         int `json:"loops"`
	LoopedClients int `json:"looped_clients"`
	PinnedLoops   int `json:"pinned_loops"`
}

// Measured is the measured part of the workload phase: from the end of
// the warmup, for Duration.
func (w *Workload) Measured() (from, to time.Time) {
	from = w.Start.Add(w.Warmup)
	return from, from.Add(w.Duration)
}

// Ran is the measured part of a workload phase that started at start,
// with warmup then planned measured time, and stopped at end: what ran
// after the warmup, at most planned, 0 when it stopped within the
// warmup. Every rate divides by it, so a phase cut short (interrupted, or
// ended early by its query streams) reports what it did in the time it
// ran.
func Ran(start time.Time, warmup, planned time.Duration, end time.Time) time.Duration {
	return min(max(end.Sub(start)-warmup, 0), planned)
}

// CutToStreams shortens the measured part to what query streams ran when
// they ended the workload phase, at end, before its duration (every
// client done): rates (throughput, tpm, E_TpX) and the monitor's window
// then cover the streams, not the idle rest of workload.duration. Without
// streams, or when they ended within the warmup (no measured part to cut
// to), it does nothing. It cuts as the driver cuts an interrupted phase
// (Ran), and never lengthens what the driver cut.
func (w *Workload) CutToStreams(streams []TenantStreams, end time.Time) {
	if streams == nil || end.Sub(w.Start) <= w.Warmup {
		return
	}
	w.Duration = Ran(w.Start, w.Warmup, w.Duration, end)
}

// TenantWorkload is one tenant's measurements after warmup.
type TenantWorkload struct {
	Name     string
	Txns     []TxnFigures // per transaction type, in the workload's order
	All      TxnFigures   // every type merged, Txn "all"
	Failures []Failure    // every kind of failure, warmup included, by first seen
	// ConnLost is the first lost-connection error, "" when none was lost.
	ConnLost   string
	ConnLostAt time.Duration // since the workload phase started
	// Open holds an open load's arrivals after warmup; nil when closed.
	Open *Arrivals
}

// TxnFigures are one transaction type's counts and latency figures, read
// from the driver's histograms (latency from the intended start for an
// open load).
type TxnFigures struct {
	Txn       string
	Committed int64
	Rollbacks int64            // rolled back on purpose by the workload
	Retries   int64            // retried by the workload itself
	Failed    map[string]int64 // by SQLSTATE class or "connection"
	MeanMs    float64          // exact, from the sum of latencies
	P50Ms     float64
	P95Ms     float64
	P99Ms     float64
	MaxMs     float64
	// An open load's service time (actual start to end), in a tenant's All
	// only; 0 otherwise.
	ServiceMeanMs, ServiceP99Ms float64
}

// FailedTotal sums the failures of every class.
func (t TxnFigures) FailedTotal() int64 {
	var n int64
	for _, v := range t.Failed {
		n += v
	}
	return n
}

// Arrivals counts an open load's arrivals whose intended start is after
// the warmup.
type Arrivals struct {
	// TargetRate is the mean rate the schedule asked for over the measured
	// part, per second.
	TargetRate float64
	Arrivals   int64 // intended starts within the measured part
	Queued     int64 // of them, found every connection busy and waited
	// Dropped were never started: they found every connection busy or were
	// still waiting when the phase ended.
	Dropped int64
	// AchievedRate is the arrivals started per second: (Arrivals -
	// Dropped) / measured seconds.
	AchievedRate float64
}

// SecondRow is one second of one tenant and transaction type ("all" for
// every type together). Second 0 starts the workload phase, warmup included.
type SecondRow struct {
	Second    int64
	Tenant    string
	Txn       string
	Committed int64
	Failed    int64
	MeanMs    float64
	P99Ms     float64
	Warmup    bool
	// Arrivals and Dropped count an open load's arrivals intended in the
	// second, in the rows of txn "all"; 0 otherwise.
	Arrivals, Dropped int64
}

// SlotRow is one tenant's measurements in one result slot of its schedule
// (a time slot, a stage, or a fixed window of a sinusoid), warmup
// included: latency from the intended start for an open load, with its
// service time beside it.
type SlotRow struct {
	Tenant     string
	Slot       int // from 0
	Start, End time.Duration
	Warmup     bool    // the slot starts within the warmup
	Target     float64 // the schedule's mean target over the slot: clients or arrivals per second
	Committed  int64
	Failed     int64
	Rollbacks  int64
	MeanMs     float64
	P50Ms      float64
	P95Ms      float64
	P99Ms      float64
	MaxMs      float64
	// open load only
	ServiceMeanMs, ServiceP99Ms float64
	Arrivals, Queued, Dropped   int64
}
