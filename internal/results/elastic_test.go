package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarizeE1 is a worked example of E1 (Zhang et al. 2025, eq. 2)
// over observed limits: the measured part is [2 s, 12 s) of the phase
// and 400 TPS.
func TestSummarizeE1(t *testing.T) {
	const gib = 1 << 30
	o := monitored(observed())
	// a: 1 CPU from 0, 2 from 7 s (autoscale); a change that failed at
	// 9 s counts for nothing. b: 0.5 CPU throughout. 1 GiB each.
	o.Limits = []LimitChange{
		{AtS: 0, Instance: "a", Reason: "start", OldCPUs: 1, NewCPUs: 1, OldMemoryBytes: gib, NewMemoryBytes: gib},
		{AtS: 0, Instance: "b", Reason: "start", OldCPUs: 0.5, NewCPUs: 0.5, OldMemoryBytes: gib, NewMemoryBytes: gib},
		{AtS: 7, Instance: "a", Reason: "autoscale", OldCPUs: 1, NewCPUs: 2, OldMemoryBytes: gib, NewMemoryBytes: gib},
		{AtS: 9, Instance: "a", Reason: "autoscale", OldCPUs: 2, NewCPUs: 0.1, Error: "refused"},
		{AtS: 13, Instance: "a", Reason: "restore", OldCPUs: 2, NewCPUs: 1, OldMemoryBytes: gib, NewMemoryBytes: gib},
	}
	a := Summarize(o).Provider
	// a: 5 s × 1 + 5 s × 2 = 15 CPU-s, b: 10 s × 0.5 = 5; 2 × 10 GB-s;
	// the monitor's 500 IO operations.
	cost := 20.0/3600*0.1847 + 20.0/3600*0.0095 + 500.0/100/3600*0.00015
	e := a.Elastic
	if e == nil || !near(e.CPUSeconds, 20) || !near(e.MemoryGBSeconds, 20) || e.IOOps != 500 ||
		e.CPUFrom != "limit" || e.MemoryFrom != "limit" || !near(e.USD, cost) {
		t.Fatalf("elastic %+v, want cost %v", e, cost)
	}
	if a.E1Score == nil || !near(*a.E1Score, 400/cost) {
		t.Fatalf("E1 %v, want %v", deref(a.E1Score), 400/cost)
	}
	// The resource unit cost prices the mean of what the limits held:
	// 20 CPU-s and 20 GB-s over 10 s are 2 vCores and 2 GB.
	if p := a.Priced; p == nil || !near(p.VCores, 2) || !near(p.MemoryGB, 2) || p.CPUFrom != "limit" {
		t.Errorf("priced %+v, want the mean of the limits in force", p)
	}
	// Memory without a limit is priced by its peak (512 MiB) over the
	// measured 10 s.
	for i := range o.Limits {
		o.Limits[i].NewMemoryBytes = 0
	}
	if e := Summarize(o).Provider.Elastic; e == nil || e.MemoryFrom != "measured" || !near(e.MemoryGBSeconds, 5) ||
		e.CPUFrom != "limit" {
		t.Errorf("unlimited memory: %+v", e)
	}
	// No change: the static limits, when enforced.
	o.Limits = nil
	for i := range o.Instances {
		o.Instances[i].LimitsEnforced, o.Instances[i].CPUs, o.Instances[i].MemoryBytes = true, 1, 2*gib
	}
	if e := Summarize(o).Provider.Elastic; e == nil || !near(e.CPUSeconds, 20) || !near(e.MemoryGBSeconds, 40) {
		t.Errorf("static limits: %+v", e)
	}
	// Neither limited nor monitored: no E1.
	u := observed()
	if a := Summarize(u).Provider; a.E1Score != nil || a.Elastic != nil {
		t.Errorf("unlimited, unmonitored: E1 %v", deref(a.E1Score))
	}
}

func TestWriteLimits(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	u := 0.93
	err := d.WriteLimits("001", []LimitChange{{AtS: 0, Instance: "shared", Reason: "start", OldCPUs: 0.5, NewCPUs: 0.5},
		{AtS: 5.0004, Instance: "shared", Reason: "autoscale", OldCPUs: 0.5, NewCPUs: 0.71, OldMemoryBytes: 1 << 30,
			NewMemoryBytes: 1 << 30, Utilization: &u}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Path, "runs", "001", "limits.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(LimitsHeader, ",") + "\n0,shared,start,0.5,0.5,0,0,,\n5,shared,autoscale,0.5,0.71,1073741824,1073741824,0.93,\n"
	if string(b) != want {
		t.Errorf("limits.csv:\n%s\nwant:\n%s", b, want)
	}
}

// TestE2Scores groups constructed runs as an experiment with replicas
// 0, 1 and 2 and two repetitions would give them.
func TestE2Scores(t *testing.T) {
	runs := []ScaleOutRun{
		// Group g: 0, 1, 2 replicas, two repetitions each, scale 2.
		{RunID: "001", Group: "g", Replicas: 0, TPS: 900, Scale: 2, OK: true},
		{RunID: "002", Group: "g", Replicas: 0, TPS: 1100, Scale: 2, OK: true},
		{RunID: "003", Group: "g", Replicas: 1, TPS: 1300, Scale: 2, OK: true},
		{RunID: "004", Group: "g", Replicas: 1, TPS: 1300, Scale: 2, OK: true},
		{RunID: "005", Group: "g", Replicas: 2, TPS: 1400, Scale: 2, OK: true},
		{RunID: "006", Group: "g", Replicas: 2, TPS: 5, Scale: 2, OK: false}, // failed: not a point
		// Group h: one replica count only: no score.
		{RunID: "007", Group: "h", Replicas: 0, TPS: 500, Scale: 1, OK: true},
		// Group k: its only run at 1 replica failed: no score.
		{RunID: "008", Group: "k", Replicas: 0, TPS: 500, Scale: 1, OK: true},
		{RunID: "009", Group: "k", Replicas: 1, TPS: 700, Scale: 1, OK: false},
	}
	got := E2Scores(runs)
	// (1400 − 1000) / 2 nodes / scale 2 = 100, on every run of g.
	for _, id := range []string{"001", "002", "003", "004", "005", "006"} {
		if v, ok := got[id]; !ok || !near(v, 100) {
			t.Errorf("run %s: E2 %v %v, want 100", id, v, ok)
		}
	}
	for _, id := range []string{"007", "008", "009"} {
		if v, ok := got[id]; ok {
			t.Errorf("run %s has E2 %v", id, v)
		}
	}
}

func TestFillScores(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	for _, s := range []*Summary{{RunID: "001", Repetition: 1, Status: StatusOK}, {RunID: "002", Repetition: 2, Status: StatusOK},
		{RunID: "001-002", Repetition: AggregateRepetition, Status: StatusOK}, {RunID: "003", Repetition: 1, Status: StatusOK}} {
		if err := d.AppendResult(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.FillScores(map[string]float64{"001": 12.5, "002": 12.5}); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"12.5", "12.5", "12.5", ""} {
		if got := tab.Get(i, "e2_score"); got != want {
			t.Errorf("row %d (%s): e2_score %q, want %q", i, tab.Get(i, "run_id"), got, want)
		}
	}
}
