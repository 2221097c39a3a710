package driver

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tenantbench/tenantbench/internal/results"
)

// Result is what the workload phase measured.
type Result struct {
	Start    time.Time
	Warmup   time.Duration
	Duration time.Duration // measured part, after warmup
	Tenants  []TenantResult
	Series   []results.SecondRow
	// Slots are the per-slot measurements of a run with a schedule
	// by tenant then slot; nil without one.
	Slots []results.SlotRow
	// DriverCPU is the CPU time tenantbench's process used over the
	// measured part (the warmup's end until the clients stopped); nil when
	// unknown (cut within the warmup, or no getrusage here).
	DriverCPU *time.Duration
	// Threads is how the clients ran: GOMAXPROCS, the event loops
	// (Options.Loops), the clients they ran (the others had a goroutine
	// each), and the Loops pinned to a CPU of their own (pin).
	Threads results.DriverThreads
}

// TenantResult is one tenant's totals after warmup.
type TenantResult struct {
	Name     string
	Txns     []TxnResult // per transaction type, in the workload's order
	All      TxnResult   // every type merged
	Failures []Failure   // every kind of failure, warmup included, by first seen
	// ConnLost is the first lost-connection error, "" when none was lost.
	ConnLost   string
	ConnLostAt time.Duration // since the workload phase started
	// Open holds an open load's arrivals after warmup; nil when closed.
	Open *OpenResult
}

// OpenResult counts an open load's arrivals whose intended start is after
// the warmup (Oracle's (2014) open workload model).
type OpenResult struct {
	// TargetRate is the mean rate the schedule asked for over the measured
	// part, per second.
	TargetRate float64
	Arrivals   int64 // intended starts within the measured part
	Queued     int64 // of them, found every connection busy and waited (on_full: queue)
	// Dropped were never started: they found every connection busy
	// (on_full: drop) or were still waiting when the phase ended.
	Dropped int64
	// AchievedRate is the arrivals started per second: (Arrivals -
	// Dropped) / measured seconds.
	AchievedRate float64
}

// TxnResult is one transaction type of one tenant.
type TxnResult struct {
	Txn       string
	Committed int64
	Rollbacks int64            // rolled back on purpose by the workload
	Retries   int64            // retried by the workload itself (workload.Retrier)
	Failed    map[string]int64 // by SQLSTATE class or "connection"
	SumUs     int64
	Hist      *hdrhistogram.Histogram // latency in us
	// Service is an open load's service time (actual start to end) in us,
	// in the tenant's All only; Hist then times from the intended start.
	// nil for a closed load, whose latency is its service time.
	Service      *hdrhistogram.Histogram
	ServiceSumUs int64
}

// ServiceMeanMs is the exact mean service time in milliseconds (0 without
// service times).
func (t TxnResult) ServiceMeanMs() float64 {
	if t.Service == nil || t.Service.TotalCount() == 0 {
		return 0
	}
	return float64(t.ServiceSumUs) / float64(t.Service.TotalCount()) / 1000
}

// ServiceQuantileMs is the service time at quantile q (0..100) in ms.
func (t TxnResult) ServiceQuantileMs(q float64) float64 {
	if t.Service == nil || t.Service.TotalCount() == 0 {
		return 0
	}
	return float64(t.Service.ValueAtQuantile(q)) / 1000
}

// FailedTotal sums the failures of every class.
func (t TxnResult) FailedTotal() int64 {
	var n int64
	for _, v := range t.Failed {
		n += v
	}
	return n
}

// MeanMs is the exact mean latency in milliseconds.
func (t TxnResult) MeanMs() float64 {
	if t.Committed == 0 {
		return 0
	}
	return float64(t.SumUs) / float64(t.Committed) / 1000
}

// QuantileMs is the latency at quantile q (0..100) in milliseconds.
func (t TxnResult) QuantileMs(q float64) float64 {
	if t.Hist == nil || t.Hist.TotalCount() == 0 {
		return 0
	}
	return float64(t.Hist.ValueAtQuantile(q)) / 1000
}

// Failure is one kind of failure of one transaction type.
type Failure struct {
	Txn         string
	Class       string
	Count       int64 // warmup included
	AfterWarmup int64
	First, Last time.Duration // since the workload phase started
	// Message is the first failure's message, LastMessage the last's:
	// a kind of failure may change cause (a refused connection, then a
	// password refused by a promoted server).
	Message, LastMessage string
}
