package driver

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestCollectorTotals records known latencies from several clients and
// checks the merged totals, the warmup cut and the per-second series.
func TestCollectorTotals(t *testing.T) {
	start := time.Now()
	c := NewCollector(start, 2*time.Second, []string{"t01", "t02"}, []string{"a", "b"}, 4, nil, 0, "")
	r1, r2, r3 := c.Recorder(0), c.Recorder(0), c.Recorder(1)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	// warmup: seconds 0 and 1 are not counted in the totals
	r1.Record(0, at(0.5), 100*time.Millisecond)
	r1.Record(0, at(1.5), 100*time.Millisecond)
	// measured
	for i := 0; i < 100; i++ {
		r1.Record(0, at(2.1), time.Duration(i+1)*time.Millisecond)
		r2.Record(1, at(3.2), 10*time.Millisecond)
	}
	r3.Record(0, at(2.5), 5*time.Millisecond)
	r3.Fail(1, at(2.6), "40", errors.New("could not serialize access"))
	r3.Fail(1, at(4.6), "40", errors.New("deadlock detected"))
	r3.Fail(1, at(0.6), "connection", errors.New("refused")) // in warmup
	for _, r := range []*Recorder{r1, r2, r3} {
		r.Flush()
	}
	res := c.Close()

	t1 := res.Tenants[0]
	if got := t1.Txns[0].Committed; got != 100 {
		t.Errorf("t01 a committed = %d, want 100 (2 warmup transactions excluded)", got)
	}
	if got := t1.Txns[1].Committed; got != 100 {
		t.Errorf("t01 b committed = %d, want 100", got)
	}
	if got := t1.All.Committed; got != 200 {
		t.Errorf("t01 all committed = %d, want 200", got)
	}
	// mean of 1..100 ms is 50.5 ms, exact (sums are exact, not binned)
	if got := t1.Txns[0].MeanMs(); math.Abs(got-50.5) > 1e-9 {
		t.Errorf("t01 a mean = %v ms, want 50.5", got)
	}
	if got := t1.Txns[0].QuantileMs(99); math.Abs(got-99) > 0.1 {
		t.Errorf("t01 a p99 = %v ms, want 99 within 3 significant digits", got)
	}
	t2 := res.Tenants[1]
	if got := t2.Txns[1].Failed["40"]; got != 2 {
		t.Errorf("t02 b failures of class 40 = %d, want 2", got)
	}
	if got := t2.All.Failed["connection"]; got != 0 {
		t.Errorf("a warmup failure counted after warmup: %d", got)
	}
	if len(t2.Failures) != 2 || t2.Failures[0].Class != "connection" || t2.Failures[1].Count != 2 {
		t.Fatalf("t02 failures = %+v, want connection (warmup) then 40 x2", t2.Failures)
	}
	if f := t2.Failures[1]; f.First != 2600*time.Millisecond || f.Last != 4600*time.Millisecond {
		t.Errorf("failure first/last = %v/%v, want 2.6s/4.6s", f.First, f.Last)
	}
	if f := t2.Failures[1]; f.Message != "could not serialize access" || f.LastMessage != "deadlock detected" {
		t.Errorf("failure messages first %q, last %q, want the first and the last failure's", f.Message, f.LastMessage)
	}

	// series: t01 second 2, txn a: 100 transactions, mean 50.5
	var found bool
	for _, r := range res.Series {
		if r.Tenant == "t01" && r.Second == 2 && r.Txn == "a" {
			found = true
			if r.Committed != 100 || math.Abs(r.MeanMs-50.5) > 1e-9 || r.Warmup {
				t.Errorf("series row = %+v", r)
			}
		}
		if r.Tenant == "t01" && r.Second == 0 && r.Txn == "all" && (!r.Warmup || r.Committed != 1) {
			t.Errorf("warmup series row = %+v", r)
		}
	}
	if !found {
		t.Error("no series row for t01 second 2 txn a")
	}
}

// TestRecorderNoAllocs: recording must not allocate per transaction once
// the buckets exist.
func TestRecorderNoAllocs(t *testing.T) {
	start := time.Now()
	c := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "")
	r := c.Recorder(0)
	end := start.Add(100 * time.Millisecond)
	r.Record(0, end, time.Millisecond) // first bucket
	allocs := testing.AllocsPerRun(1000, func() {
		r.Record(0, end, 3*time.Millisecond)
	})
	r.Flush()
	c.Close()
	if allocs != 0 {
		t.Errorf("Record allocates %v times per call, want 0", allocs)
	}
}

// TestLateBucket: a bucket that arrives after its second was closed still
// counts in the totals and the second's count.
func TestLateBucket(t *testing.T) {
	start := time.Now().Add(-20 * time.Second)
	c := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "")
	c.full <- func() *bucket { // an on-time bucket of second 1
		b := newBucket(0, 1)
		b.second = 1
		b.hist(0).RecordValue(1000)
		b.sumUs[0] = 1000
		return b
	}()
	time.Sleep(1500 * time.Millisecond) // a tick closes seconds < 15
	r := c.Recorder(0)
	r.Record(0, start.Add(1500*time.Millisecond), 3*time.Millisecond)
	r.Flush()
	res := c.Close()
	if got := res.Tenants[0].All.Committed; got != 2 {
		t.Fatalf("committed = %d, want 2", got)
	}
	for _, row := range res.Series {
		if row.Second == 1 && row.Txn == "a" && (row.Committed != 2 || math.Abs(row.MeanMs-2) > 1e-9) {
			t.Errorf("late second row = %+v, want 2 committed, mean 2 ms", row)
		}
	}
}

func TestMixDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for i := uint64(0); i < 1000; i++ {
		s := mix(42, i)
		if seen[s] {
			t.Fatalf("mix(42, %d) repeats", i)
		}
		seen[s] = true
	}
}

// TestZeroSeconds: a second of the phase in which nothing completed is a
// row of zeros per tenant and type (a stalled server shows as seconds of
// nothing, not as missing seconds), up to the phase's end, or up to where
// it was cut.
func TestZeroSeconds(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  time.Duration // 0: not cut
		secs int           // seconds with rows
	}{{"whole", 0, 6}, {"cut", 3500 * time.Millisecond, 4}} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now().Add(-10 * time.Second)
			c := newCollector(start, 0, []string{"t01", "t02"}, []string{"a", "b"}, 1, nil, 0, "", nil, 6*time.Second, nil)
			r := c.Recorder(0)
			r.Record(0, start.Add(500*time.Millisecond), time.Millisecond)
			r.Record(1, start.Add(1500*time.Millisecond), time.Millisecond)
			r.Flush()
			if tc.cut > 0 {
				c.cutAt(start.Add(tc.cut))
			}
			res := c.Close()
			rows := map[int64]int{}
			for _, row := range res.Series {
				rows[row.Second]++
				if row.Second >= 2 && (row.Committed != 0 || row.Failed != 0 || row.MeanMs != 0) {
					t.Errorf("second %d had nothing, row %+v", row.Second, row)
				}
			}
			for s := int64(0); s < int64(tc.secs); s++ {
				if rows[s] != 2*3 { // 2 tenants x (2 types + all)
					t.Errorf("second %d: %d rows, want 6", s, rows[s])
				}
			}
			if len(rows) != tc.secs {
				t.Errorf("rows for %d seconds, want %d: %v", len(rows), tc.secs, rows)
			}
		})
	}
}
