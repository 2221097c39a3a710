package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestExamplesPlan plans every example and every benchmark's spec: each
// is a valid spec. examples/external.yaml needs the servers it names:
// TestExternalExample plans it with servers the test starts;
// examples/tpcc-models-k8s.yaml needs a cluster: provider/kubernetes'
// TestModelsExample holds it to tpcc-models.yaml, and the e2e package's
// TestModelsExample plans it against a real one and runs it shortened.
func TestExamplesPlan(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	bench, _ := filepath.Glob("../../bench/*/*.yaml")
	files = append(files, bench...)
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		if b := filepath.Base(f); b == "external.yaml" || b == "tpcc-models-k8s.yaml" {
			continue
		}
		if b, err := exec.Command(binary, "plan", f).CombinedOutput(); err != nil {
			t.Errorf("plan %s: %v\n%s", f, err, b)
		}
	}
}

// TestTPCHRun runs a tiny TPC-H experiment through the CLI: two tenants,
// each a query stream with the refresh functions that ends the run when
// done, long before the duration; results.csv has Erdelt and Rabl's (2026)
// TPC-H figures, queries.csv and streams.csv the query and refresh times, and
// the check phase finds the loaded row counts (RF2 deleted what RF1
// inserted).
func TestTPCHRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPC-H through the CLI")
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "tpch.yaml")
	os.WriteFile(specPath, []byte(`name: tpch-e2e
tenancy: {model: schema, tenants: 2}
workload:
  name: tpch
  scale: 0.01
  clients: 1
  duration: 10m
  options: {queries: [1, 3, 6, 14], repeat_queries: 2, refresh: true}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, b)
	}
	if d := time.Since(start); d > 5*time.Minute {
		t.Errorf("the run took %v: the streams did not end it", d)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 1 || rows[0]["status"] != "ok" {
		t.Fatalf("results.csv: %v", rows)
	}
	r := rows[0]
	for _, col := range []string{"power_at_size", "throughput_at_size", "e_cpu", "e_ram"} {
		if num(t, r[col]) <= 0 {
			t.Errorf("%s = %q, want > 0", col, r[col])
		}
	}
	// Throughput@Size = query executions x 3600 / T_s x SF (eq. 3; the
	// refresh functions not counted); T_s is at most the workload phase.
	var s results.Summary
	sb, _ := os.ReadFile(filepath.Join(out, "runs", "001", "summary.json"))
	if err := json.Unmarshal(sb, &s); err != nil {
		t.Fatal(err)
	}
	ts := *s.Provider.TS
	if want := 2 * 4 * 2 * 3600 / ts * 0.01; num(t, r["throughput_at_size"]) < want*0.99 || num(t, r["throughput_at_size"]) > want*1.01 {
		t.Errorf("throughput_at_size %s, want %v from T_s %v", r["throughput_at_size"], want, ts)
	}
	if ts <= 0 || ts > s.Provider.WorkloadS {
		t.Errorf("T_s %v, workload phase %v s", ts, s.Provider.WorkloadS)
	}
	for _, tt := range s.Tenant {
		if tt.TS == nil || tt.PowerAtSize == nil || *tt.PowerAtSize <= 0 || tt.Committed != 10 {
			t.Errorf("tenant %+v", tt)
		}
	}
	q := readCSV(t, filepath.Join(out, "runs", "001", "queries.csv"))
	if len(q) != 12 {
		t.Fatalf("queries.csv has %d rows, want 2 tenants x (4 queries + rf1 + rf2)", len(q))
	}
	refresh := 0
	for _, row := range q {
		want := "2"
		if row["query"] == "rf1" || row["query"] == "rf2" {
			want = "1"
			refresh++
		} else if !strings.HasPrefix(row["query"], "q") {
			t.Errorf("queries.csv query %q", row["query"])
		}
		if row["executions"] != want || row["failed"] != "0" || num(t, row["geomean_s"]) <= 0 ||
			num(t, row["min_s"]) > num(t, row["max_s"]) {
			t.Errorf("queries.csv row %v", row)
		}
	}
	if refresh != 4 {
		t.Errorf("queries.csv has %d refresh rows, want rf1 and rf2 of 2 tenants", refresh)
	}
	st := readCSV(t, filepath.Join(out, "runs", "001", "streams.csv"))
	if len(st) != 2 || st[0]["stream"] != "1" || st[1]["stream"] != "2" || st[0]["complete"] != "true" || st[1]["complete"] != "true" {
		t.Errorf("streams.csv: %v", st)
	}
	assertNoLeftovers(t, tmp)
}

// TestTPCHBadInput: scales, query numbers and stream counts TPC-H cannot
// run are bad input (exit 2) naming the path, before anything starts.
func TestTPCHBadInput(t *testing.T) {
	tmp := workRoot(t)
	for _, c := range []struct{ yaml, want string }{
		{"scale: 0.005", "workload.scale"},
		{"scale: 0", "workload.scale"},
		{"scale: 0.01\n  options: {queries: [1, 23]}", "workload.options.queries[1]"},
		{"scale: 0.01\n  clients: 5\n  options: {seed: 2147483606}", "workload.options.seed"},
		{"scale: 0.01\n  options: {refresh: 1}", "workload.options.refresh"},
		{"scale: 0.01\n  clients: 100\n  options: {refresh: true}", "workload.options.refresh"},
		{"scale: 0.01\n  warmup: 10s", "workload.warmup (line 7): 10s: tpch runs each stream once from its start; warmup must be 0"},
	} {
		specPath := filepath.Join(tmp, "bad.yaml")
		os.WriteFile(specPath, []byte("name: bad\ntenancy: {model: schema, tenants: [1, 10]}\nworkload:\n  name: tpch\n  duration: 1m\n  "+c.yaml+"\n"), 0o644)
		out := filepath.Join(tmp, "results")
		b, err := exec.Command(binary, "run", specPath, "--out", out).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s: exit %v, want 2\n%s", c.yaml, err, b)
		}
		if !strings.Contains(string(b), c.want) || !strings.Contains(string(b), "nothing was started") {
			t.Errorf("%s: output lacks %q:\n%s", c.yaml, c.want, b)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a results directory was made", c.yaml)
		}
	}
}

// TestTPCHMemoryKill gives every server 80 MiB and work_mem 1GB: building
// a foreign key of SF 0.1 then needs more than the cgroup allows, and the
// kernel kills the backend. Each run records the kill (instance, when,
// phase) and fails; the experiment goes on with the next run.
func TestTPCHMemoryKill(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-H into memory-limited servers")
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "oom.yaml")
	os.WriteFile(specPath, []byte(`name: tpch-oom
sut:
  settings: {shared_buffers: 16MB, work_mem: 1GB, hash_mem_multiplier: "8", max_parallel_workers_per_gather: "0"}
  resources: {memory: 80MiB}
tenancy: {model: [schema, database], tenants: 1}
workload: {name: tpch, scale: 0.1, clients: 1, duration: 5m}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (runs failed)\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 {
		t.Fatalf("results.csv has %d rows, want both runs:\n%s", len(rows), b)
	}
	for _, r := range rows {
		var s results.Summary
		sb, _ := os.ReadFile(filepath.Join(out, "runs", r["run_id"], "summary.json"))
		if err := json.Unmarshal(sb, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Instances) > 0 && !s.Instances[0].LimitsEnforced {
			t.Skipf("memory limits are not enforced here (cgroup mode %s)", s.Instances[0].CgroupMode)
		}
		if len(s.MemoryKills) != 1 {
			t.Errorf("run %s (%s): memory kills %+v, error %s", r["run_id"], r["status"], s.MemoryKills, s.Error)
			continue
		}
		k := s.MemoryKills[0]
		if r["status"] != "failed" || k.Source != "cgroup" || k.Kills < 1 || k.AtS <= 0 || k.Phase == "" ||
			!strings.Contains(r["error"], "killed for memory") {
			t.Errorf("run %s: %s %q, kill %+v", r["run_id"], r["status"], r["error"], k)
		}
		// The server's log, with its report of the kill, is kept with the
		// run and named in the error; the phase of the kill is failed.
		logCopy := filepath.Join(out, "runs", r["run_id"], "server-"+k.Instance+".log")
		if lb, err := os.ReadFile(logCopy); err != nil || !strings.Contains(string(lb), "terminated by signal 9") ||
			!strings.Contains(r["error"], "its log: "+logCopy) {
			t.Errorf("run %s: kept log %s (%v), error %q", r["run_id"], logCopy, err, r["error"])
		}
		for _, p := range s.Phases {
			if p.Phase == k.Phase && p.Status != "failed" {
				t.Errorf("run %s: %s's %s, the phase of the memory kill, is %s", r["run_id"], p.Tenant, p.Phase, p.Status)
			}
		}
	}
	assertNoLeftovers(t, tmp)
}
