package driver

import (
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/results"
)

// Figures reads the histograms into the latency figures tenants.csv and
// summary.json carry, and keeps the counts, failures and arrivals.
func TestFigures(t *testing.T) {
	h, s := NewHistogram(), NewHistogram()
	for i := 1; i <= 100; i++ {
		h.RecordValue(int64(i * 1000)) // 1..100 ms
		s.RecordValue(500)
	}
	all := TxnResult{Txn: "all", Committed: 100, Rollbacks: 3, Retries: 2, SumUs: 5050 * 1000, Hist: h,
		Service: s, ServiceSumUs: 50000, Failed: map[string]int64{"40": 4}}
	res := &Result{Start: time.Unix(100, 0), Warmup: time.Second, Duration: 10 * time.Second,
		Tenants: []TenantResult{{Name: "t01", All: all, Txns: []TxnResult{{Txn: "a", Committed: 100, SumUs: 5050 * 1000, Hist: h}},
			Failures: []Failure{{Txn: "a", Class: "40", Count: 5, AfterWarmup: 4, First: 1500 * time.Millisecond, Last: 9 * time.Second, Message: "m", LastMessage: "m"},
				{Txn: "a", Class: "connection", Count: 2, First: time.Second, Last: 2 * time.Second, Message: "refused", LastMessage: "password refused"}},
			ConnLost:   "gone",
			ConnLostAt: 3 * time.Second,
			Open:       &OpenResult{TargetRate: 10, Arrivals: 104, Queued: 7, Dropped: 4, AchievedRate: 10}}},
		Series: []results.SecondRow{{Second: 1, Tenant: "t01", Txn: "all", Committed: 10}},
		Slots:  []results.SlotRow{{Tenant: "t01", Slot: 0, Committed: 50}}}
	w := res.Figures()
	if w.Start != res.Start || w.Warmup != time.Second || w.Duration != 10*time.Second || len(w.Series) != 1 || len(w.Slots) != 1 {
		t.Fatalf("times or rows: %+v", w)
	}
	if len(w.Tenants) != 1 {
		t.Fatalf("%d tenants, want 1", len(w.Tenants))
	}
	tw := w.Tenants[0]
	want := results.TxnFigures{Txn: "all", Committed: 100, Rollbacks: 3, Retries: 2, Failed: map[string]int64{"40": 4},
		MeanMs: 50.5, P50Ms: 50, P95Ms: 95, P99Ms: 99, MaxMs: 100, ServiceMeanMs: 0.5, ServiceP99Ms: 0.5}
	// The histograms keep 3 significant digits: quantiles within 0.1 %.
	near := func(got, want float64) bool { return got >= want && got <= want*1.001 }
	if got := tw.All; got.Txn != want.Txn || got.Committed != want.Committed || got.Rollbacks != want.Rollbacks ||
		got.Retries != want.Retries || got.FailedTotal() != 4 || got.MeanMs != want.MeanMs || !near(got.P50Ms, want.P50Ms) ||
		!near(got.P95Ms, want.P95Ms) || !near(got.P99Ms, want.P99Ms) || !near(got.MaxMs, want.MaxMs) ||
		got.ServiceMeanMs != want.ServiceMeanMs || !near(got.ServiceP99Ms, want.ServiceP99Ms) {
		t.Errorf("all: got %+v, want %+v", got, want)
	}
	// A closed load's transaction types have no service time.
	if x := tw.Txns[0]; x.Txn != "a" || x.MeanMs != 50.5 || !near(x.P99Ms, 99) || x.ServiceMeanMs != 0 || x.ServiceP99Ms != 0 {
		t.Errorf("txn a: %+v", x)
	}
	// The last message only where it differs from the first.
	if f := tw.Failures; len(f) != 2 || f[0] != (results.Failure{Txn: "a", Class: "40", Count: 5, FirstS: 1.5, LastS: 9, Message: "m"}) ||
		f[1] != (results.Failure{Txn: "a", Class: "connection", Count: 2, FirstS: 1, LastS: 2, Message: "refused", LastMessage: "password refused"}) {
		t.Errorf("failures: %+v", f)
	}
	if tw.ConnLost != "gone" || tw.ConnLostAt != 3*time.Second {
		t.Errorf("connection lost: %q at %v", tw.ConnLost, tw.ConnLostAt)
	}
	if o := tw.Open; o == nil || *o != (results.Arrivals{TargetRate: 10, Arrivals: 104, Queued: 7, Dropped: 4, AchievedRate: 10}) {
		t.Errorf("arrivals: %+v", o)
	}
}
