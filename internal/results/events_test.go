package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// TestFailoverFromSeries: two tenants at 50 tps each; a restart at 12.5
// s whose service resumed at 14.2 s (t_s) and whose tenants' summed
// throughput is back to >= 95 % of 100 in second 16: F = 1.7 s, R = 17 -
// 14.2 = 2.8 s. A second fault that never resumed counts in neither mean;
// a noise counts in neither. events.csv holds them all.
func TestFailoverFromSeries(t *testing.T) {
	var series []SecondRow
	for s := int64(0); s < 25; s++ {
		n := int64(50)
		switch s {
		case 12:
			n = 20
		case 13:
			n = 0
		case 14, 15:
			n = 30
		}
		for _, tn := range []string{"t01", "t02"} {
			series = append(series, SecondRow{Second: s, Tenant: tn, Txn: "all", Committed: n},
				SecondRow{Second: s, Tenant: tn, Txn: "x", Committed: 1000})
		}
	}
	p := func(f float64) *float64 { return &f }
	events := []Event{
		{AtS: 12.5, Kind: "restart", Target: "shared", Fault: true, Tenants: []string{"t01", "t02"}, ResumedS: p(14.2)},
		{AtS: 20, Kind: "crash", Target: "shared", Fault: true, Tenants: []string{"t01", "t02"}},
		{AtS: 1, Kind: "cpu", Target: "host", Requested: p(30), Achieved: p(29.1)},
	}
	f, r := failover(events, &Workload{Series: series}, metrics.DefaultRecovery)
	if f == nil || r == nil || !near(*f, 1.7) || !near(*r, 2.8) {
		t.Fatalf("F %v R %v, want 1.7 and 2.8", f, r)
	}
	if ev := events[0]; ev.FS == nil || ev.RecoveredS == nil || *ev.RecoveredS != 17 {
		t.Errorf("restart row: %+v", ev)
	}
	if events[1].FS != nil || events[2].FS != nil {
		t.Error("an event that never resumed, or a noise, has an F")
	}
	d := &Dir{Path: t.TempDir()}
	if err := d.WriteEvents("001", events); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Path, "runs", "001", "events.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != strings.Join(EventsHeader, ",") ||
		!strings.HasPrefix(lines[1], "12.5,0,restart,shared,,t01;t02,,,14.2,17,1.7,2.8,") ||
		!strings.Contains(lines[3], "cpu,host,,,,,,,,,30,29.1") {
		t.Errorf("events.csv:\n%s", b)
	}
}
