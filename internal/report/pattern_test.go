package report

import (
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

// patternSpec is a plan of two CloudyBench multi-tenancy patterns for 3
// tenants: high-contention targets (1, 3, 8) clients in each of 3 slots,
// staggered-low (1 | 2 | 3), one tenant at a time.
const patternSpec = `name: patterns
tenancy: {model: database, tenants: 3}
workload:
  name: tpcb
  scale: 1
  warmup: 2s
  pattern: {name: [high-contention, staggered-low], tau: 10, slot: 5s}
`

// openPatternSpec is an open load under one pattern: tau is a rate.
const openPatternSpec = `name: open-pattern
tenancy: {model: schema, tenants: 1}
workload:
  name: tpcb
  scale: 1
  load: {shape: open, pool: 8}
  pattern: {name: large-spike, tau: 300, slot: 4s}
`

// writePatterned writes the results directory of specText's plan as if
// every run had completed in each second 100 transactions per client its
// tenants' targets asked for (or the target rate, open), with slots.csv
// as the driver writes it.
func writePatterned(t *testing.T, specText string) string {
	t.Helper()
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	p, problems := plan.BuildBytes([]byte(specText), plan.Builtin(reg))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	s := p.Spec
	path := filepath.Join(t.TempDir(), s.Name)
	dir, err := results.Create(path, nil)
	must(t, err)
	must(t, dir.WriteFile("spec.yaml", []byte(specText), 0o644))
	must(t, p.Write(path))
	must(t, dir.WriteFile("env.json", []byte(`{"cpus":2,"os":"linux","dbms_version":"15.18","cgroup_mode":"none"}`), 0o644))
	w := s.Workload
	phase := w.Warmup.D() + w.Duration.D()
	secs := int(phase / time.Second)
	open := w.Load.Shape == "open"
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range p.Runs {
		r := &p.Runs[i]
		lp := p.Targets(r)
		var targets []float64 // what the run writes to targets.csv
		perTxn := 100.0       // per client and second
		if open {
			perTxn = 1 // the rate itself
		}
		series := [][]string{{"second", "tenant", "txn", "warmup", "committed", "failed", "latency_mean_ms", "latency_p99_ms"}}
		slots := [][]string{{"run_id", "tenant", "slot", "start_s", "end_s", "warmup", "target", "committed", "failed",
			"rollbacks", "throughput_tps", "latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms",
			"latency_max_ms", "arrivals", "dropped", "achieved_rate", "service_mean_ms", "service_p99_ms"}}
		sum := &results.Summary{RunID: r.ID, Model: r.Model, Tenants: r.Tenants, Scale: r.Scale, Clients: r.Clients,
			Repetition: r.Repetition, Workload: "tpcb", Warmup: w.Warmup.D().Seconds(), Duration: w.Duration.D().Seconds(),
			Status: results.StatusOK, Start: start, End: start.Add(phase)}
		for k, lt := range lp.Tenants {
			name := fmt.Sprintf("t%02d", k+1)
			var committed int64
			for sec := range secs {
				from := time.Duration(sec) * time.Second
				n := int64(perTxn * lt.Profile.Mean(from, from+time.Second))
				if from >= w.Warmup.D() {
					committed += n
				}
				series = append(series, []string{fmt.Sprint(sec), name, "all", fmt.Sprint(from < w.Warmup.D()), fmt.Sprint(n), "0", "1", "2"})
				if k == 0 {
					targets = append(targets, 0)
				}
				targets[sec] += lt.Profile.Mean(from, from+time.Second)
			}
			for j, from := range lt.Windows {
				to := phase
				if j+1 < len(lt.Windows) {
					to = lt.Windows[j+1]
				}
				target := lt.Profile.Mean(from, to)
				arrivals := ""
				if open {
					arrivals = fmt.Sprint(int(target * (to - from).Seconds()))
				}
				slots = append(slots, []string{r.ID, name, fmt.Sprint(j), fmt.Sprint(from.Seconds()), fmt.Sprint(to.Seconds()),
					fmt.Sprint(from < w.Warmup.D()), fmt.Sprint(target), "0", "0", "0", fmt.Sprint(perTxn * target), "1", "1", "1", "2", "3",
					arrivals, "", "", "", ""})
			}
			tt := results.TenantTotals{Tenant: name, Committed: committed, TPS: float64(committed) / w.Duration.D().Seconds(), MeanMs: 1}
			tt.P95Ms, tt.P99Ms = 2, 2
			sum.Tenant = append(sum.Tenant, tt)
		}
		sum.Provider = results.AggregateOf(sum.Tenant, nil)
		must(t, dir.WriteJSON(filepath.Join("runs", r.ID, "summary.json"), sum))
		writeTenantsCSV(t, dir, r.ID, sum.Tenant)
		writeCSV(t, dir.RunFile(r.ID, "timeseries.csv"), series)
		writeCSV(t, dir.RunFile(r.ID, slotsFile), slots)
		must(t, dir.WriteTargets(r.ID, targets))
		must(t, dir.AppendResult(sum))
		start = start.Add(time.Minute)
	}
	return path
}

// timeCaption is the caption summary.md gives the throughput-time figure.
func timeCaption(t *testing.T, path string) string {
	t.Helper()
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	_, rest, ok := strings.Cut(md, "(throughput-time.svg)\n\n")
	if !ok {
		t.Fatalf("summary.md has no throughput-time figure:\n%s", md)
	}
	caption, _, _ := strings.Cut(rest, "\n")
	return caption
}

// TestPatternOverTime: the throughput-time figure of a patterned plan
// draws each pattern's target in a panel of its own, with tau, and its
// caption says so (Zhang et al. 2025, Fig. 3-4).
func TestPatternOverTime(t *testing.T) {
	path := writePatterned(t, patternSpec)
	must(t, Write(path))
	caption := timeCaption(t, path)
	for _, want := range []string{"step line", "CloudyBench pattern", "clients of the closed load summed over the tenants",
		"right axis", "tau = 10", "read from runs/<id>/targets.csv", "One panel per pattern of the plan (high-contention, staggered-low)"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption lacks %q: %s", want, caption)
		}
	}
	svg := readFile(t, filepath.Join(path, Subdir, "throughput-time.svg"))
	for _, want := range []string{"Target clients", "tau = 10", "target clients", "3 tenants: high-contention", "3 tenants: staggered-low"} {
		if !strings.Contains(svg, want) {
			t.Errorf("throughput-time.svg lacks %q", want)
		}
	}
	if fi, err := os.Stat(filepath.Join(path, Subdir, "throughput-time.png")); err != nil || fi.Size() == 0 {
		t.Errorf("throughput-time.png: %v", err)
	}

	// The report reads the plan the run wrote, never the spec: a spec
	// that today's rules refuse draws the same report.
	before := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	text := readFile(t, filepath.Join(path, "spec.yaml"))
	must(t, os.WriteFile(filepath.Join(path, "spec.yaml"), []byte(text+"colour: blue\ntenancy: {model: gone}\n"), 0o644))
	must(t, Write(path))
	if after := readFile(t, filepath.Join(path, Subdir, "summary.md")); after != before {
		t.Errorf("the report changed with spec.yaml:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Without plan.json (results of an older tenantbench) the targets
	// come from slots.csv; the runs can no longer be told apart by
	// pattern, so one panel.
	must(t, os.Remove(filepath.Join(path, plan.File)))
	must(t, Write(path))
	caption = timeCaption(t, path)
	if !strings.Contains(caption, "read from runs/<id>/slots.csv") || !strings.Contains(caption, "step line") || strings.Contains(caption, "panel") {
		t.Errorf("caption without plan.json: %s", caption)
	}
}

// TestOpenPatternOverTime: an open load's target is a rate, drawn on the
// throughput axis itself (no second axis).
func TestOpenPatternOverTime(t *testing.T) {
	path := writePatterned(t, openPatternSpec)
	must(t, Write(path))
	caption := timeCaption(t, path)
	for _, want := range []string{"CloudyBench pattern large-spike (tau 300, slots of 4s)", "arrivals per second, on the throughput axis",
		"tau = 300, the arrival rate"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption lacks %q: %s", want, caption)
		}
	}
	if svg := readFile(t, filepath.Join(path, Subdir, "throughput-time.svg")); strings.Contains(svg, "Target clients") ||
		!strings.Contains(svg, "target arrivals/s") {
		t.Error("an open load's target should be on the throughput axis, as arrivals/s")
	}
}

// TestNoPatternOverTime: a run without schedule or pattern draws no target.
func TestNoPatternOverTime(t *testing.T) {
	path := synth{}.write(t)
	must(t, Write(path))
	if c := timeCaption(t, path); strings.Contains(c, "step line") || strings.Contains(c, "tau") {
		t.Errorf("a plain run's caption mentions a target: %s", c)
	}
}

// TestPatternInChromium opens the report of a patterned plan, whose
// throughput-time figure has a panel per pattern, in Chromium.
func TestPatternInChromium(t *testing.T) {
	chromiumPath(t)
	path := writePatterned(t, patternSpec)
	must(t, Write(path))
	checkInBrowser(t, path)
}
