package driver

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what the workload phase measured.
type Result struct {
	Start    time.Time
	Warmup   time.Duration
	Duration time.Duration // measured part, after warmup
	Tenants  []TenantResult
	Series   []SecondRow
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
	Message     string
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
}
