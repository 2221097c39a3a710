package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProbe: the fixed loop does the same work every time and reports
// a speed.
func TestCPUProbe(t *testing.T) {
	v1, d1 := cpuProbe()
	v2, d2 := cpuProbe()
	if d1 != d2 || !(v1 > 0) || !(v2 > 0) {
		t.Errorf("two probes: %v %x, %v %x", v1, d1, v2, d2)
	}
}

// TestProbeEveryRun: with a CPU probe before every run, probe.csv has a
// row per run, in run order, and each run's host_speed is its row's value.
func TestProbeEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	p, out, _ := experiment(t, `name: probe-run
repeat: 2
probe: {every: run, what: cpu}
tenancy: {model: [schema, database], tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 1s}
`, nil)
	probes, err := out.ReadProbes()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := out.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != len(p.Runs) || len(rows) != len(p.Runs) {
		t.Fatalf("%d probes and %d result rows for %d runs", len(probes), len(rows), len(p.Runs))
	}
	for i, pr := range probes {
		r := p.Runs[i]
		if pr.RunID != r.ID || pr.Round != r.Round || pr.What != "cpu" || pr.Unit != "ops/s" || !(pr.Value > 0) {
			t.Errorf("probe %d = %+v, want before run %s of round %d", i, pr, r.ID, r.Round)
		}
		if i > 0 && pr.Time.Before(probes[i-1].Time) {
			t.Errorf("probe %d taken before probe %d", i, i-1)
		}
		if got, ok := rows[i].Extra["host_speed"]; !ok || !near(got, pr.Value) {
			t.Errorf("run %s: host_speed %v (present %v), probe %v", rows[i].RunID, got, ok, pr.Value)
		}
	}
}

func near(a, b float64) bool { return a-b < 0.1 && b-a < 0.1 }

// TestProbeTPCBEveryRound: the tpcb probe runs on a server of its own,
// once per round, and the server is gone when the experiment ends.
func TestProbeTPCBEveryRound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	p, out, _ := experiment(t, `name: probe-round
repeat: 2
probe: {every: round, what: tpcb}
tenancy: {model: [schema, database], tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 1s}
`, nil)
	probes, err := out.ReadProbes()
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 || probes[0].RunID != p.Runs[0].ID || probes[1].RunID != p.Runs[2].ID ||
		probes[1].Round != 2 || probes[0].Unit != "tps" || !(probes[0].Value > 100) {
		t.Fatalf("probes %+v, want one per round of 2 runs, in tps", probes)
	}
	rows, err := out.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if !near(row.Extra["host_speed"], probes[i/2].Value) {
			t.Errorf("run %s: host_speed %v, want its round's %v", row.RunID, row.Extra["host_speed"], probes[i/2].Value)
		}
	}
	b, err := os.ReadFile(filepath.Join(out.Path, "results.csv"))
	if err != nil || !strings.Contains(string(b), ",host_speed,") {
		t.Errorf("results.csv has no host_speed column: %v", err)
	}
}
