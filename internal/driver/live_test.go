package driver

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenantbench/tenantbench/internal/live"
)

// gather is every sample of m's metrics, as name{label="value",...} (labels
// sorted, le included) to its value.
func gather(t *testing.T, m *live.Metrics) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			var ls []string
			for _, l := range mt.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(ls)
			key := f.GetName() + "{" + strings.Join(ls, ",") + "}"
			switch {
			case mt.GetCounter() != nil:
				out[key] = mt.GetCounter().GetValue()
			case mt.GetGauge() != nil:
				out[key] = mt.GetGauge().GetValue()
			case mt.GetHistogram() != nil:
				h := mt.GetHistogram()
				out[strings.Replace(key, "{", "_count{", 1)] = float64(h.GetSampleCount())
				out[strings.Replace(key, "{", "_sum{", 1)] = h.GetSampleSum()
				for _, b := range h.GetBucket() {
					le := fmt.Sprintf("le=%q", fmt.Sprint(b.GetUpperBound()))
					k := strings.Replace(key, "{", "_bucket{", 1)
					k = strings.Replace(k, "{", "{"+le+",", 1)
					out[k] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return out
}

// TestLiveFromCollector: what the recorders count reaches the live
// metrics when the collector merges it, per tenant and type, with the
// latency in the right buckets and the failures by class.
func TestLiveFromCollector(t *testing.T) {
	start := time.Now()
	m := live.New()
	m.BeginRun(live.Run{ID: "001"})
	m.Begin(start, 0, []string{"t01", "t02"}, []string{"a", "b"})
	c := newCollector(start, 0, []string{"t01", "t02"}, []string{"a", "b"}, 2, nil, 0, "", nil, 0, m)
	r1, r2 := c.Recorder(0), c.Recorder(1)
	end := start.Add(100 * time.Millisecond)
	for range 3 {
		r1.Record(0, end, 200*time.Microsecond) // below 250 us
	}
	r1.Record(1, end, 7*time.Second) // above every bound
	r2.Record(0, end.Add(time.Second), 3*time.Millisecond)
	r2.Fail(0, end, "40", errors.New("deadlock"))
	r2.Fail(-1, end, "connection", errors.New("refused"))
	r1.Flush()
	r2.Flush()
	c.Close()
	got := gather(t, m)
	for key, want := range map[string]float64{
		`tenantbench_transactions_committed_total{run="001",tenant="t01",txn="a"}`:                         3,
		`tenantbench_transactions_committed_total{run="001",tenant="t01",txn="b"}`:                         1,
		`tenantbench_transactions_committed_total{run="001",tenant="t02",txn="a"}`:                         1,
		`tenantbench_transactions_committed_total{run="001",tenant="t02",txn="b"}`:                         0,
		`tenantbench_transaction_latency_seconds_bucket{le="0.0001",run="001",tenant="t01",txn="a"}`:       0,
		`tenantbench_transaction_latency_seconds_bucket{le="0.00025",run="001",tenant="t01",txn="a"}`:      3,
		`tenantbench_transaction_latency_seconds_bucket{le="5",run="001",tenant="t01",txn="b"}`:            0,
		`tenantbench_transaction_latency_seconds_bucket{le="0.0025",run="001",tenant="t02",txn="a"}`:       0,
		`tenantbench_transaction_latency_seconds_bucket{le="0.005",run="001",tenant="t02",txn="a"}`:        1,
		`tenantbench_transaction_latency_seconds_sum{run="001",tenant="t01",txn="a"}`:                      0.0006,
		`tenantbench_transaction_latency_seconds_count{run="001",tenant="t01",txn="b"}`:                    1,
		`tenantbench_transactions_failed_total{class="40",run="001",tenant="t02",txn="a"}`:                 1,
		`tenantbench_transactions_failed_total{class="connection",run="001",tenant="t02",txn="(connect)"}`: 1,
	} {
		v, ok := got[key]
		if !ok {
			t.Errorf("no %s", key)
		} else if d := v - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", key, v, want)
		}
	}
}

// TestRecorderNoAllocsLive: with live metrics the recorder counts each
// transaction into one more bucket, still without allocating.
func TestRecorderNoAllocsLive(t *testing.T) {
	start := time.Now()
	m := live.New()
	m.BeginRun(live.Run{ID: "001"})
	m.Begin(start, 0, []string{"t01"}, []string{"a"})
	c := newCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "", nil, 0, m)
	r := c.Recorder(0)
	end := start.Add(100 * time.Millisecond)
	r.Record(0, end, time.Millisecond) // first bucket
	allocs := testing.AllocsPerRun(1000, func() {
		r.Record(0, end, 3*time.Millisecond)
	})
	r.Flush()
	c.Close()
	if allocs != 0 {
		t.Errorf("Record with live metrics allocates %v times per call, want 0", allocs)
	}
	if got := gather(t, m)[`tenantbench_transactions_committed_total{run="001",tenant="t01",txn="a"}`]; got != 1002 {
		t.Errorf("committed = %v, want 1002", got)
	}
}

func TestLeIndex(t *testing.T) {
	bounds := []int64{100, 250, 500}
	for us, want := range map[int64]int{1: 0, 100: 0, 101: 1, 250: 1, 499: 2, 500: 2, 501: 3, 1 << 40: 3} {
		if got := leIndex(bounds, us); got != want {
			t.Errorf("leIndex(%d) = %d, want %d", us, got, want)
		}
	}
}

// BenchmarkRecord is the recorder's cost per transaction, without and
// with live metrics.
func BenchmarkRecord(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("live=%v", on), func(b *testing.B) {
			start := time.Now()
			var lv Live
			if on {
				m := live.New()
				m.Begin(start, 0, []string{"t01"}, []string{"a"})
				lv = m
			}
			c := newCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "", nil, 0, lv)
			r := c.Recorder(0)
			end := start.Add(100 * time.Millisecond)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				r.Record(0, end, time.Duration(100+i%5000)*time.Microsecond)
			}
			b.StopTimer()
			r.Flush()
			c.Close()
		})
	}
}
