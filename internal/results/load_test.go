package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An open load's columns: tenants.csv's target_rate, arrivals, dropped and
// achieved_rate on the "all" row, timeseries.csv's arrivals, and slots.csv
// (docs/results.md).
func TestOpenLoadFiles(t *testing.T) {
	d, err := Create(filepath.Join(t.TempDir(), "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := TxnFigures{Txn: "all", Committed: 100, MeanMs: 50.5, P50Ms: 50, P95Ms: 95, P99Ms: 99, MaxMs: 100,
		ServiceMeanMs: 0.5, ServiceP99Ms: 0.5, Failed: map[string]int64{}}
	res := &Workload{Duration: 10 * time.Second,
		Tenants: []TenantWorkload{{Name: "t01", All: all,
			Txns: []TxnFigures{{Txn: "a", Committed: 100, MeanMs: 50.5, Failed: map[string]int64{}}},
			Open: &Arrivals{TargetRate: 10, Arrivals: 104, Queued: 7, Dropped: 4, AchievedRate: 10}}},
		Series: []SecondRow{{Second: 0, Tenant: "t01", Txn: "all", Committed: 10, Arrivals: 11, Dropped: 1},
			{Second: 0, Tenant: "t01", Txn: "a", Committed: 10}},
		Slots: []SlotRow{{Tenant: "t01", Slot: 0, End: 5 * time.Second, Target: 10, Committed: 50, Arrivals: 52, Dropped: 2,
			MeanMs: 25, P99Ms: 49, ServiceMeanMs: 0.5, ServiceP99Ms: 0.5}}}
	if err := d.WriteTenants("001", res, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteSeries("001", res); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(d.Path, "runs", "001", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	ten := read("tenants.csv")
	if !strings.HasSuffix(ten[0], ",target_rate,arrivals,queued,dropped,achieved_rate,service_mean_ms,service_p99_ms,tpm,nopm,cpu_s,class,sla_met,mem_private_mb,iops,blks_read_ps,blks_hit_ps,io_read_bytes_ps,io_write_bytes_ps,pool_wait_ms") {
		t.Errorf("tenants.csv header %s", ten[0])
	}
	// 100 committed in 10 s: 600 per minute; no New-Order, not
	// monitored, no class, no SLA, no private memory, no IOPS, no IO, no
	// pooler
	if !strings.HasSuffix(ten[1], ",,,,,,,,600,,,,,,,,,,,") || !strings.HasSuffix(ten[2], ",10,104,7,4,10,0.5,0.5,600,,,,,,,,,,,") {
		t.Errorf("tenants.csv rows:\n%s\n%s", ten[1], ten[2])
	}
	ser := read("timeseries.csv")
	if !strings.HasSuffix(ser[0], ",arrivals,dropped") || !strings.HasSuffix(ser[1], ",11,1") || !strings.HasSuffix(ser[2], ",,") {
		t.Errorf("timeseries.csv:\n%s", strings.Join(ser, "\n"))
	}
	sl := read("slots.csv")
	if len(sl) != 2 || !strings.HasPrefix(sl[1], "001,t01,0,0,5,false,10,50,0,0,10,25,") || !strings.HasSuffix(sl[1], ",52,2,10,0.5,0.5") {
		t.Errorf("slots.csv:\n%s", strings.Join(sl, "\n"))
	}
	res.Slots = nil
	os.Remove(filepath.Join(d.Path, "runs", "001", "slots.csv"))
	if err := d.WriteSeries("001", res); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Path, "runs", "001", "slots.csv")); err == nil {
		t.Error("slots.csv written for a run without a schedule")
	}
}
