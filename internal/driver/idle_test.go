package driver

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestIdleTenantsMemory: 1,000 tenants whose clients commit nothing (the
// scale runs' idle tenants) cost the collector well under a MiB each over
// seconds of the phase: no latency histogram (136 KiB each) is made for
// a transaction type, tenant or second that has seen no transaction. One
// busy tenant still gets its histograms and its totals.
func TestIdleTenantsMemory(t *testing.T) {
	const tenants = 1000
	names := make([]string, tenants)
	for i := range names {
		names[i] = fmt.Sprintf("t%04d", i+1)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now().Add(-3 * time.Second)
	c := newCollector(start, 0, names, []string{"a", "b", "c", "d"}, tenants, nil, 0, "", nil, 5*time.Second, nil)
	recs := make([]*Recorder, tenants)
	for i := range recs {
		recs[i] = c.Recorder(i)
	}
	busy := recs[0]
	for s := range 3 {
		busy.Record(1, start.Add(time.Duration(s)*time.Second+time.Millisecond), 2*time.Millisecond)
	}
	busy.Flush()
	time.Sleep(1500 * time.Millisecond) // ticks close the seconds that have passed
	runtime.GC()
	runtime.ReadMemStats(&after)
	perTenant := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / tenants
	if perTenant > 64<<10 {
		t.Errorf("the collector holds %d KiB per idle tenant, want at most 64", perTenant>>10)
	}
	res := c.Close()
	if got := res.Tenants[0].Txns[1].Committed; got != 3 {
		t.Errorf("the busy tenant committed %d of type b, want 3", got)
	}
	if got := res.Tenants[1].All.Committed; got != 0 || res.Tenants[1].All.Hist == nil || res.Tenants[1].Txns[0].Hist == nil {
		t.Errorf("an idle tenant: %d committed, histograms %v %v", got, res.Tenants[1].All.Hist, res.Tenants[1].Txns[0].Hist)
	}
	runtime.KeepAlive(recs)
}
