package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

// synth describes a small results directory a test writes: 2 models x
// tenants 1 and 2 x 2 repetitions, with numbers the test chooses, so that
// every expected statistic follows from them.
type synth struct {
	scale float64 // multiplies every throughput, for compare
	// failLast marks the last run failed.
	failLast bool
	// failEarly makes the last run fail in ingest, before its workload
	// measured anything: results.csv leaves its figures empty.
	failEarly bool
	// tenants are the tenant counts, synthTenants when nil.
	tenants []int
	// repStep is how much a repetition adds to a tenant's throughput
	// (20 when 0): the run-to-run noise.
	repStep float64
	// driverCPU gives every run the driver's cost: the first took 40 % of
	// the host's 8 CPUs, the others 10 %.
	driverCPU bool
}

// synthModels and synthTenants span the synthetic plan, in plan order.
var (
	synthModels  = []string{"schema", "database"}
	synthTenants = []int{1, 2}
)

// tenantTPS is tenant k's (0-based) throughput in a run: distinct per
// model, tenant count, repetition and tenant, so that a mix-up shows.
func (s synth) tenantTPS(model string, tenants, rep, k int) float64 {
	base := map[string]float64{"schema": 100, "database": 200}[model]
	if s.scale == 0 {
		s.scale = 1
	}
	step := s.repStep
	if step == 0 {
		step = 20
	}
	return s.scale * (base/float64(tenants) + step*float64(rep-1) + 10*float64(k))
}

// tenantMeanMs is tenant k's mean latency.
func (s synth) tenantMeanMs(model string, tenants, rep, k int) float64 {
	return float64(tenants) + 2*float64(rep-1) + 0.5*float64(k)
}

const synthSpec = `name: synth
seed: 1
repeat: 2
sut:
  engine: postgres
  settings:
    shared_buffers: 128MB
tenancy:
  model: [schema, database]
  tenants: [1, 2]
workload:
  name: tpcb
  scale: 1
  clients: 2
  warmup: 2s
  duration: 10s
`

// write creates the results directory under a new temporary directory
// and returns its path.
func (s synth) write(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synth")
	dir, err := results.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts, specText := synthTenants, synthSpec
	if s.tenants != nil {
		counts = s.tenants
		specText = strings.Replace(synthSpec, "tenants: [1, 2]", "tenants: "+strings.Join(strings.Fields(fmt.Sprint(counts)), ", "), 1)
	}
	must(t, dir.WriteFile("spec.yaml", []byte(specText), 0o644))
	writePlan(t, path, specText)
	must(t, dir.WriteFile("env.json", []byte(`{"started":"2026-01-02T03:04:05Z","cpus":8,"memory_bytes":17179869184,`+
		`"kernel":"6.1.0","os":"linux","arch":"amd64","dbms_version":"16.4","cgroup_mode":"v2","limits_enforced":true}`), 0o644))
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	for _, model := range synthModels {
		for _, tenants := range counts {
			for rep := 1; rep <= 2; rep++ {
				n++
				id := fmt.Sprintf("%03d", n)
				sum := &results.Summary{RunID: id, Model: model, Tenants: tenants, Scale: 1, Clients: 2, Repetition: rep,
					Settings: map[string]string{"shared_buffers": "128MB"}, Workload: "tpcb", Warmup: 2, Duration: 10,
					Status: results.StatusOK, Start: start, End: start.Add(20 * time.Second)}
				start = start.Add(30 * time.Second)
				last := n == len(synthModels)*len(counts)*2
				if s.failLast && last {
					sum.Status, sum.Error = results.StatusFailed, "workload: instance t02 exited: synthetic failure"
				}
				early := s.failEarly && last
				if early {
					sum.Status, sum.Error = results.StatusFailed, "ingest: t02: synthetic failure"
				}
				var phases []results.Phase
				for k := range tenants {
					name := fmt.Sprintf("t%02d", k+1)
					tt := results.TenantTotals{Tenant: name, TPS: s.tenantTPS(model, tenants, rep, k),
						MeanMs: s.tenantMeanMs(model, tenants, rep, k)}
					tt.P95Ms, tt.P99Ms = 2*tt.MeanMs, 3*tt.MeanMs
					tt.Committed = int64(tt.TPS * 10)
					sum.Tenant = append(sum.Tenant, tt)
					at := 0.0
					for j, ph := range []string{"provision", "setup", "ingest", "post-ingest", "workload"} {
						d := float64(j+1) * float64(tenants)
						status := "ok"
						if early && ph == "ingest" {
							status = "failed"
						}
						phases = append(phases, results.Phase{Tenant: name, Phase: ph, Start: at, End: at + d, Status: status})
						at += d
						if status != "ok" {
							break
						}
					}
				}
				if early {
					sum.Tenant = nil // the workload never ran
				}
				sum.Phases = phases
				sum.Provider = results.AggregateOf(sum.Tenant, phases)
				if s.driverCPU {
					share := 0.1
					if n == 1 {
						share = 0.4
					}
					sum.Provider.Driver(share*10*8, sum.Provider.Committed, 10, 8)
				}
				must(t, dir.WriteJSON(filepath.Join("runs", id, "summary.json"), sum))
				must(t, dir.WritePhases(id, phases))
				if !early {
					writeTenantsCSV(t, dir, id, sum.Tenant)
					writeSeriesCSV(t, dir, id, sum.Tenant)
				}
				must(t, dir.AppendResult(sum))
			}
		}
	}
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeCSV(t *testing.T, path string, rows [][]string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	must(t, err)
	w := csv.NewWriter(f)
	must(t, w.WriteAll(rows))
	must(t, f.Close())
}

// writeTenantsCSV writes tenants.csv with docs/results.md's header: a
// transaction row and an "all" row per tenant.
func writeTenantsCSV(t *testing.T, dir *results.Dir, id string, tenants []results.TenantTotals) {
	rows := [][]string{{"run_id", "tenant", "txn", "committed", "failed", "failed_by_class", "rollbacks", "retries",
		"throughput_tps", "latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms"}}
	for _, tt := range tenants {
		for _, txn := range []string{"tpcb-like", "all"} {
			rows = append(rows, []string{id, tt.Tenant, txn, fmt.Sprint(tt.Committed), "0", "", "0", "0", fmt.Sprint(tt.TPS),
				fmt.Sprint(tt.MeanMs), fmt.Sprint(tt.MeanMs), fmt.Sprint(tt.P95Ms), fmt.Sprint(tt.P99Ms), fmt.Sprint(4 * tt.MeanMs)})
		}
	}
	writeCSV(t, dir.RunFile(id, "tenants.csv"), rows)
}

// writeSeriesCSV writes 12 seconds (2 of warmup) per tenant, each second
// at the tenant's throughput.
func writeSeriesCSV(t *testing.T, dir *results.Dir, id string, tenants []results.TenantTotals) {
	rows := [][]string{{"second", "tenant", "txn", "warmup", "committed", "failed", "latency_mean_ms", "latency_p99_ms"}}
	for s := range 12 {
		for _, tt := range tenants {
			for _, txn := range []string{"tpcb-like", "all"} {
				rows = append(rows, []string{fmt.Sprint(s), tt.Tenant, txn, fmt.Sprint(s < 2), fmt.Sprint(int(tt.TPS)), "0",
					fmt.Sprint(tt.MeanMs), fmt.Sprint(tt.P99Ms)})
			}
		}
	}
	writeCSV(t, dir.RunFile(id, "timeseries.csv"), rows)
}

// addMonitorFiles adds what a monitored run writes (docs/monitor.md):
// results.csv cpu_s and mem_peak_mb, tenants.csv cpu_s and blks_read_ps
// on the "all" rows, and per run monitor/resources.csv and monitor/waits.csv.
func addMonitorFiles(t *testing.T, path string) {
	t.Helper()
	setColumn(t, filepath.Join(path, "results.csv"), func(tab *results.Table, i int, col string) (string, bool) {
		switch col {
		case "cpu_s":
			return fmt.Sprint(5 + i), true
		case "mem_peak_mb":
			return fmt.Sprint(100 + 10*i), true
		}
		return "", false
	}, "cpu_s", "mem_peak_mb")
	tab, err := results.ReadTable(filepath.Join(path, "results.csv"))
	must(t, err)
	dir := &results.Dir{Path: path}
	for _, r := range tab.Rows {
		id := r[0]
		sum, err := dir.ReadSummary(id)
		must(t, err)
		cpu := map[string]string{}
		for _, tt := range sum.Tenant {
			cpu[tt.Tenant] = fmt.Sprint(tt.TPS / 100)
		}
		setColumn(t, dir.RunFile(id, "tenants.csv"), func(tab *results.Table, i int, col string) (string, bool) {
			if tab.Get(i, "txn") != "all" {
				return "", false
			}
			switch col {
			case "cpu_s":
				return cpu[tab.Get(i, "tenant")], true
			case "blks_read_ps":
				return fmt.Sprint(10 * (i + 1)), true
			}
			return "", false
		}, "cpu_s", "blks_read_ps")
		res := [][]string{{"instance", "t_s", "cpus", "rss_mb"}}
		waits := [][]string{{"from", "to", "instance", "tenant", "state", "event", "samples", "sessions"}}
		for s := range 20 {
			res = append(res, []string{"shared", fmt.Sprint(s), fmt.Sprint(0.5 + 0.01*float64(s)), "128"})
		}
		for _, tt := range sum.Tenant {
			waits = append(waits, []string{"workload", "after-workload", "shared", tt.Tenant, "active", "CPU", "50", "0.5"},
				[]string{"workload", "after-workload", "shared", tt.Tenant, "active", "LWLock:WALWrite", "30", "0.3"},
				[]string{"workload", "after-workload", "shared", tt.Tenant, "idle", "Client:ClientRead", "20", "0.2"},
				[]string{"start", "workload", "shared", tt.Tenant, "active", "IO:DataFileRead", "999", "9"},
				[]string{"workload", "after-workload", "shared", "(background)", "", "Activity:WalWriterMain", "99", "1"})
		}
		must(t, os.MkdirAll(filepath.Dir(dir.RunFile(id, "monitor/resources.csv")), 0o755))
		writeCSV(t, dir.RunFile(id, "monitor/resources.csv"), res)
		writeCSV(t, dir.RunFile(id, "monitor/waits.csv"), waits)
	}
}

// setColumn sets (adding them where missing) the columns cols of a CSV
// file to what value says, row by row.
func setColumn(t *testing.T, path string, value func(tab *results.Table, i int, col string) (string, bool), cols ...string) {
	t.Helper()
	tab, err := results.ReadTable(path)
	must(t, err)
	header := append([]string{}, tab.Header...)
	for _, c := range cols {
		if !tab.Has(c) {
			header = append(header, c)
		}
	}
	rows := [][]string{header}
	for i, r := range tab.Rows {
		row := make([]string, len(header))
		copy(row, r)
		for j, h := range header {
			if v, ok := value(tab, i, h); ok {
				row[j] = v
			}
		}
		rows = append(rows, row)
	}
	writeCSV(t, path, rows)
}

// mdRow finds the row of a Markdown table under heading whose first cell
// is first, and returns its cells.
func mdRow(t *testing.T, md, heading, first string) []string {
	t.Helper()
	i := strings.Index(md, "### "+heading+"\n")
	if i < 0 {
		t.Fatalf("summary.md has no table %q", heading)
	}
	for _, line := range strings.Split(md[i:], "\n")[1:] {
		if strings.HasPrefix(line, "### ") || strings.HasPrefix(line, "## ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if len(cells) > 1 && cells[0] == first {
			return cells
		}
	}
	t.Fatalf("table %q has no row %q", heading, first)
	return nil
}

// writePlan writes the plan of specText into the results directory at
// path, as a run does.
func writePlan(t *testing.T, path, specText string) {
	t.Helper()
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	p, problems := plan.BuildBytes([]byte(specText), plan.Builtin(reg))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	must(t, p.Write(path))
}
