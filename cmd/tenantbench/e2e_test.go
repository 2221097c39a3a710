package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
)

// binary is tenantbench built once for the tests that run it as a process.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tenantbench-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tenantbench")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("building tenantbench: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// workRoot makes a directory for the runs' work directories that the
// unprivileged server user can traverse, and sets TMPDIR to it.
func workRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tenantbench-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// runKept runs `tenantbench run --keep` of spec, written to tmp/file, with
// its results in tmp/results and TMPDIR=tmp, and has down stop what it
// kept when the test ends. It returns the results directory and the run's
// output; a run that fails fails the test.
func runKept(t *testing.T, tmp, file, spec string) (out string, output []byte) {
	t.Helper()
	out = filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, file)
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", specPath, "--out", out, "--keep")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	t.Cleanup(func() { exec.Command(binary, "down", out).Run() })
	if err != nil {
		t.Fatalf("run --keep: %v\n%s", err, b)
	}
	return out, b
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return f
}

// TestQuickstart runs examples/quickstart.yaml through the CLI and checks
// every file docs/results.md describes.
func TestQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("the quickstart takes about two minutes")
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	cmd := exec.Command(binary, "run", "../../examples/quickstart.yaml", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quickstart failed: %v\n%s", err, b)
	}
	log := string(b)
	for _, want := range []string{"provision", "ingest", "post-ingest", "workload", "check", "progress:", "results: " + out} {
		if !strings.Contains(log, want) {
			t.Errorf("output lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "password") {
		t.Errorf("output mentions a password:\n%s", log)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 3 {
		t.Fatalf("results.csv has %d rows, want 3", len(rows))
	}
	written, err := plan.Read(out)
	if err != nil || len(written.Runs) != 3 {
		t.Fatalf("%s: %v", plan.File, err)
	}
	footprint := map[string]float64{}
	for i, model := range []string{"schema", "database", "instance"} {
		r := rows[i]
		if r["model"] != model || r["tenants"] != "2" || r["status"] != "ok" {
			t.Errorf("row %d = %v", i, r)
		}
		// monitored by default: the system's CPU and memory,
		// Erdelt and Rabl's (2026) efficiencies, fairness
		if num(t, r["cpu_s"]) <= 0 || num(t, r["mem_peak_mb"]) <= 0 || num(t, r["e_tpx"]) <= 0 ||
			num(t, r["fairness_jain"]) < 0.5 || num(t, r["tpm"]) <= 0 {
			t.Errorf("row %d monitored figures implausible: %v", i, r)
		}
		// Oracle's (2014) memory footprint and Zhang et al.'s (2025) cost,
		// priced from what was measured (no limits): P-Score x cost is the
		// throughput; the tenants' geometric mean is at most their mean, so
		// the T-Score is at most half the P-Score with 2 tenants.
		fp, ruc, ps, ts := num(t, r["mem_footprint_per_tenant_mb"]), num(t, r["ruc_usd_per_min"]), num(t, r["p_score"]), num(t, r["t_score"])
		if tps := num(t, r["throughput_tps"]); fp <= 0 || ruc <= 0 || ts <= 0 || ts > ps/2*1.001 || ps*ruc < 0.99*tps || ps*ruc > 1.01*tps {
			t.Errorf("row %d footprint %v MB, cost %v $/min, P-Score %v, T-Score %v, %v TPS", i, fp, ruc, ps, ts, tps)
		}
		footprint[model] = fp
		// The memory each tenant adds to the idle servers (the instance
		// model: its whole server) during the workload.
		if m := num(t, r["mem_marginal_per_tenant_mb"]); m <= 0 || m > num(t, r["mem_peak_mb"]) {
			t.Errorf("row %d marginal memory %v MB per tenant, peak %v MB", i, m, r["mem_peak_mb"])
		}
		if num(t, r["throughput_tps"]) <= 0 || num(t, r["latency_mean_ms"]) <= 0 ||
			num(t, r["latency_p99_ms"]) < num(t, r["latency_p95_ms"]) || num(t, r["ingest_s"]) <= 0 {
			t.Errorf("row %d figures implausible: %v", i, r)
		}
		dir := filepath.Join(out, "runs", r["run_id"])
		tenants := readCSV(t, filepath.Join(dir, "tenants.csv"))
		var sum float64
		for _, tr := range tenants {
			if tr["txn"] == "all" {
				sum += num(t, tr["throughput_tps"])
			}
		}
		if d := sum - num(t, r["throughput_tps"]); d > 0.01 || d < -0.01 {
			t.Errorf("run %s: tenants' tps sum %v != results.csv %v", r["run_id"], sum, r["throughput_tps"])
		}
		series := readCSV(t, filepath.Join(dir, "timeseries.csv"))
		if len(series) < 2*25 { // 2 tenants x 25 s, "all" rows at least
			t.Errorf("run %s: %d series rows", r["run_id"], len(series))
		}
		phases := readCSV(t, filepath.Join(dir, "phases.csv"))
		if len(phases) != 2*6 {
			t.Errorf("run %s: %d phase rows, want 12 (2 tenants x 6 phases, check included)", r["run_id"], len(phases))
		}
		var s results.Summary
		sb, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil || json.Unmarshal(sb, &s) != nil {
			t.Fatalf("summary.json: %v", err)
		}
		wantInst := map[string]int{"schema": 1, "database": 1, "instance": 2}[model]
		if len(s.Instances) != wantInst || s.Status != "ok" {
			t.Errorf("run %s summary: %d instances (want %d), status %s", r["run_id"], len(s.Instances), wantInst, s.Status)
		}
		// The plan the run wrote names the servers and tenants the run had.
		pr := written.Run(r["run_id"])
		if pr == nil || len(pr.Instances) != wantInst || len(pr.TenantList) != len(s.Tenant) ||
			pr.ServerPerTenant != (model == "instance") || pr.Provisioning == "" {
			t.Fatalf("run %s in %s: %+v", r["run_id"], plan.File, pr)
		}
		for i, tt := range s.Tenant {
			if pr.TenantList[i].Name != tt.Tenant {
				t.Errorf("run %s: plan.json names tenant %d %s, the run %s", r["run_id"], i, pr.TenantList[i].Name, tt.Tenant)
			}
		}
		for _, inst := range s.Instances {
			if inst.Cgroup != "" && cgroupExists(inst.Cgroup) {
				t.Errorf("cgroup %s of run %s still exists", inst.Cgroup, r["run_id"])
			}
		}
		if p := s.Provider.Priced; p == nil || p.CPUFrom != "measured" || p.MemoryFrom != "measured" || p.VCores <= 0 ||
			p.StorageGB == nil || *p.StorageGB <= 0 || p.StorageUSDPerMin <= 0 {
			t.Errorf("run %s priced %+v, want what was measured", r["run_id"], p)
		}
	}
	// A server per tenant brings its own background processes and shared
	// memory (Oracle 2014, Table 2: 1702 MB per non-CDB against 208 MB per
	// PDB).
	if footprint["instance"] < 1.3*footprint["schema"] {
		t.Errorf("memory footprint per tenant: instance model %v MB, schema model %v MB", footprint["instance"], footprint["schema"])
	}
	var env map[string]any
	eb, _ := os.ReadFile(filepath.Join(out, "env.json"))
	if err := json.Unmarshal(eb, &env); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cpus", "memory_bytes", "kernel", "dbms_version", "cgroup_mode", "limits_enforced", "tenantbench_version"} {
		if _, ok := env[k]; !ok {
			t.Errorf("env.json lacks %s", k)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "spec.yaml")); err != nil {
		t.Error(err)
	}
	assertNoLeftovers(t, tmp)
}

// TestInterrupt sends SIGINT during the workload phase: the run is marked
// interrupted (SIGINT), its files are written, and no server process,
// cgroup or work directory remains.
func TestInterrupt(t *testing.T) {
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "long.yaml")
	os.WriteFile(specPath, []byte(`name: long
tenancy: {model: [instance, schema], tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 10m}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var log strings.Builder
	deadline := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "progress:") {
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1\n%s%s", err, log.String(), stderr.String())
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 1 || rows[0]["status"] != "interrupted" || !strings.Contains(rows[0]["error"], "interrupted (") {
		t.Fatalf("results.csv = %v, want one interrupted run", rows)
	}
	var s results.Summary
	sb, _ := os.ReadFile(filepath.Join(out, "runs", "001", "summary.json"))
	if err := json.Unmarshal(sb, &s); err != nil {
		t.Fatal(err)
	}
	for _, inst := range s.Instances {
		if inst.Cgroup != "" && cgroupExists(inst.Cgroup) {
			t.Errorf("cgroup %s still exists", inst.Cgroup)
		}
	}
	// Cut about 5 s into 10 minutes: the rates divide by the time it ran.
	if s.Measured <= 1 || s.Measured > 60 {
		t.Errorf("measured_s %v of a run interrupted at its first progress line", s.Measured)
	}
	for _, tr := range readCSV(t, filepath.Join(out, "runs", "001", "tenants.csv")) {
		if tr["txn"] != "all" {
			continue
		}
		want := num(t, tr["committed"]) / s.Measured
		if got := num(t, tr["throughput_tps"]); want == 0 || math.Abs(got-want) > 0.01*want {
			t.Errorf("tenant %s: %v tps, want committed / measured_s = %v", tr["tenant"], got, want)
		}
	}
	workloadFailed(t, filepath.Join(out, "runs", "001", "phases.csv"), 2)
	assertNoLeftovers(t, tmp)
}

// workloadFailed checks that phases.csv marks the workload failed for
// each of the run's tenants.
func workloadFailed(t *testing.T, path string, tenants int) {
	t.Helper()
	n := 0
	for _, p := range readCSV(t, path) {
		if p["phase"] == "workload" {
			n++
			if p["status"] != "failed" {
				t.Errorf("%s: tenant %s's workload %s in a run that failed in it", path, p["tenant"], p["status"])
			}
		}
	}
	if n != tenants {
		t.Errorf("%s: %d workload rows, want %d", path, n, tenants)
	}
}

// TestBadSpec: every problem at once, exit status 2, nothing started.
func TestBadSpec(t *testing.T) {
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "bad.yaml")
	os.WriteFile(specPath, []byte(`name: bad
sut: {provider: cloud, settings: {port: 5433}}
tenancy: {model: [schema, sharded], tenants: 0}
workload: {name: tpcb, clients: -1, colour: blue}
`), 0o644)
	out := filepath.Join(tmp, "results")
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2\n%s", err, b)
	}
	for _, want := range []string{"sut.provider", "cloud", "sut.settings.port", "tenancy.model[1]", "sharded",
		"tenancy.tenants", "workload.clients", "workload.colour"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("error output lacks %q:\n%s", want, b)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a results directory was created for a bad spec")
	}
	// the same through plan
	b, err = exec.Command(binary, "plan", specPath).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("plan exit = %v, want 2\n%s", err, b)
	}
}

func TestPlan(t *testing.T) {
	b, err := exec.Command(binary, "plan", "../../examples/quickstart.yaml").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	for _, want := range []string{"schema", "database", "instance", "001", "003"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plan output lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "up to") {
		t.Errorf("tpcb runs last their duration, the plan says up to:\n%s", b)
	}
	// A TPC-H stream ends when it has run its queries (workload.Finisher):
	// the duration is an upper bound.
	path := filepath.Join(t.TempDir(), "tpch.yaml")
	os.WriteFile(path, []byte("name: h\ntenancy: {model: schema, tenants: [1, 2]}\nworkload: {name: tpch, scale: 0.01, clients: 1, duration: 10m}\n"), 0o644)
	b, err = exec.Command(binary, "plan", path).CombinedOutput()
	want := "experiment h: 2 runs, workload time up to 20m (2 x (warmup 0s + duration up to 10m), without provisioning and loading; " +
		"a run ends sooner when its query streams have run their queries)\n"
	if err != nil || !strings.HasPrefix(string(b), want) {
		t.Errorf("plan of tpch: %v\n%s\nwant it to start with\n%s", err, b, want)
	}
}

func cgroupExists(path string) bool {
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified"} {
		if root == "/sys/fs/cgroup" {
			// on v2 the path is below the root itself; on v1 the root is
			// a tmpfs holding the hierarchies, where the path cannot be
			if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
				continue
			}
		}
		if _, err := os.Stat(filepath.Join(root, path)); err == nil {
			return true
		}
	}
	return false
}

// assertNoLeftovers checks that no process runs from below tmp and no run
// work directory is left in it.
func assertNoLeftovers(t *testing.T, tmp string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(tmp)) && !bytes.Contains(b, []byte(binary)) {
			t.Errorf("a process still runs from %s: %s", tmp, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "tenantbench-*"))
	if len(left) > 0 {
		t.Errorf("work directories left behind: %v", left)
	}
}

// TestKeepAndDown: --keep leaves the last run's servers up, reachable with
// the pgpass file (mode 0600) and never printing a password; down stops
// them and leaves nothing behind.
func TestKeepAndDown(t *testing.T) {
	var ee *exec.ExitError
	tmp := workRoot(t)
	out, b := runKept(t, tmp, "keep.yaml", `name: keep
sut: {resources: {cpus: 1, memory: 512MiB}}
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 2s}
cost: {cpu_vcore_hour: 0.6, memory_gb_hour: 0.06}
`)
	// Zhang et al.'s (2025) cost of the package the server was given, at the
	// spec's prices: (1 vCore x $0.6 + 0.5 GB x $0.06) / 60 = $0.0105 a
	// minute.
	var s results.Summary
	sb, err := os.ReadFile(filepath.Join(out, "runs", "001", "summary.json"))
	if err != nil || json.Unmarshal(sb, &s) != nil || len(s.Instances) != 1 {
		t.Fatalf("summary.json: %v", err)
	}
	r := readCSV(t, filepath.Join(out, "results.csv"))[0]
	switch ruc := num(t, r["ruc_usd_per_min"]); {
	case !s.Instances[0].LimitsEnforced:
		t.Logf("limits not enforced here: priced %+v", s.Provider.Priced)
	case s.Provider.Priced.StorageGB == nil || *s.Provider.Priced.StorageGB <= 0:
		t.Errorf("priced %+v: no storage (the data directory's size)", s.Provider.Priced)
	default:
		// Storage and IO at Table III's prices, which the spec does not
		// override, come on top.
		p := s.Provider.Priced
		want := 0.0105 + p.StorageUSDPerMin + p.IOUSDPerMin
		if math.Abs(ruc-want) > 1e-6 || // results.csv has 6 decimals
			p.CPUFrom != "limit" || p.MemoryFrom != "limit" {
			t.Errorf("cost %v $/min, priced %+v; want %v: 0.0105 from the limits and storage and IO", ruc, p, want)
		}
	}
	pgpass := filepath.Join(out, "pgpass")
	fi, err := os.Stat(pgpass)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pgpass: %v, mode %v; want 0600", err, fi)
	}
	pp, _ := os.ReadFile(pgpass)
	var port string
	for _, line := range strings.Split(strings.TrimSpace(string(pp)), "\n") {
		f := strings.Split(line, ":")
		if len(f) != 5 {
			t.Fatalf("pgpass line %q", line)
		}
		if strings.Contains(string(b), f[4]) {
			t.Errorf("the output shows a password")
		}
		if f[3] == "t02" {
			port = f[1]
		}
	}
	if !strings.Contains(string(b), "tenantbench down "+out) || !strings.Contains(string(b), "user=t02") {
		t.Errorf("output does not say how to connect and stop:\n%s", b)
	}
	psql := exec.Command("psql", "-XAtc", "SELECT count(*) FROM pgbench_branches", "host=127.0.0.1 port="+port+" dbname=t02 user=t02")
	psql.Env = append(os.Environ(), "PGPASSFILE="+pgpass)
	if pb, err := psql.CombinedOutput(); err != nil || strings.TrimSpace(string(pb)) != "1" {
		t.Errorf("connecting as t02 with pgpass: %v %s", err, pb)
	}
	// check: consistent after the run, violated after a corruption
	b, err = exec.Command(binary, "check", out).CombinedOutput()
	if err != nil || strings.Count(string(b), "consistent") != 2 {
		t.Errorf("check after the run: %v\n%s", err, b)
	}
	corrupt := exec.Command("psql", "-XAtc", "UPDATE pgbench_branches SET bbalance = bbalance + 1", "host=127.0.0.1 port="+port+" dbname=t02 user=t02")
	corrupt.Env = append(os.Environ(), "PGPASSFILE="+pgpass)
	if cb, err := corrupt.CombinedOutput(); err != nil {
		t.Fatalf("corrupting t02: %v %s", err, cb)
	}
	b, err = exec.Command(binary, "check", out).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), "t02: 1 consistency condition(s) violated") ||
		!strings.Contains(string(b), "t01: consistent") {
		t.Errorf("check after corrupting t02: %v\n%s", err, b)
	}
	b, err = exec.Command(binary, "down", out).CombinedOutput()
	if err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	if _, err := os.Stat(pgpass); err == nil {
		t.Error("down left pgpass behind")
	}
	assertNoLeftovers(t, tmp)
	if _, err := exec.Command(binary, "down", out).CombinedOutput(); err == nil {
		t.Error("a second down succeeded with nothing to stop")
	}
}

// TestServerDies kills the server of the first run mid-workload: that run
// is failed with the reason and its failures have timestamps; the next run
// goes on, unless --fail-fast.
func TestServerDies(t *testing.T) {
	for _, failFast := range []bool{false, true} {
		t.Run(map[bool]string{false: "continue", true: "fail-fast"}[failFast], func(t *testing.T) {
			tmp := workRoot(t)
			out := filepath.Join(tmp, "results")
			specPath := filepath.Join(tmp, "dies.yaml")
			os.WriteFile(specPath, []byte(`name: dies
tenancy: {model: [database, schema], tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 8s}
progress: 1s
`), 0o644)
			args := []string{"run", specPath, "--out", out}
			if failFast {
				args = append(args, "--fail-fast")
			}
			cmd := exec.Command(binary, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = cmd.Stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
			defer killer.Stop()
			sc := bufio.NewScanner(stdout)
			var log strings.Builder
			killed := false
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if !killed && strings.Contains(sc.Text(), "t01 progress: 2") {
					killPostmaster(t, tmp)
					killed = true
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit = %v, want 1\n%s", err, log.String())
			}
			rows := readCSV(t, filepath.Join(out, "results.csv"))
			want := 2
			if failFast {
				want = 1
			}
			if len(rows) != want {
				t.Fatalf("%d runs in results.csv, want %d\n%s", len(rows), want, log.String())
			}
			if rows[0]["status"] != "failed" || !strings.Contains(rows[0]["error"], "exited during the run") {
				t.Errorf("run 001 = %v, want failed because the instance exited", rows[0])
			}
			// The dead server's log is kept with the run, and the error
			// names the copy, not the work directory teardown removed.
			logs, _ := filepath.Glob(filepath.Join(out, "runs", "001", "server-*.log"))
			if len(logs) != 1 || !strings.Contains(rows[0]["error"], "(its log: "+logs[0]+")") {
				t.Errorf("kept logs %v; error %q should name the copy", logs, rows[0]["error"])
			} else if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), "ready to accept connections") {
				t.Errorf("the copy %s of the log:\n%s", logs[0], b)
			}
			workloadFailed(t, filepath.Join(out, "runs", "001", "phases.csv"), 2)
			if !failFast && rows[1]["status"] != "ok" {
				t.Errorf("run 002 = %v, want ok", rows[1])
			}
			var s results.Summary
			sb, _ := os.ReadFile(filepath.Join(out, "runs", "001", "summary.json"))
			if err := json.Unmarshal(sb, &s); err != nil {
				t.Fatal(err)
			}
			for _, tt := range s.Tenant {
				if tt.ConnLost == "" || len(tt.Failures) == 0 || tt.Failures[0].FirstS < 1 {
					t.Errorf("tenant %s: connection_lost %q, failures %+v: want the loss and timestamped failures", tt.Tenant, tt.ConnLost, tt.Failures)
				}
			}
			assertNoLeftovers(t, tmp)
		})
	}
}

// killPostmaster SIGKILLs the postmasters running from below dir.
func killPostmaster(t *testing.T, dir string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if err != nil || len(args) < 3 || !strings.HasSuffix(args[0], "postgres") || args[1] != "-D" || !strings.HasPrefix(args[2], dir) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		syscall.Kill(pid, syscall.SIGKILL)
		return
	}
	t.Fatal("no postmaster found to kill")
}
