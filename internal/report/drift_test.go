package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
)

const driftSpec = `name: drift
seed: 1
repeat: 4
tenancy: {model: [schema, database], tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 10s}
`

// writeDrift writes a results directory of two identical deployments
// (schema and database at 1 tenant: the same true throughput) on a
// machine whose speed is speed(slot, round) when a run takes the slot-th
// place in time, with a CPU probe before every run that reads the same
// speed.
func writeDrift(t *testing.T, order string, speed func(slot, round int) float64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "drift")
	dir, err := results.Create(path, nil)
	must(t, err)
	src := driftSpec + "order: " + order + "\nprobe: {every: run, what: cpu}\n"
	must(t, dir.WriteFile("spec.yaml", []byte(src), 0o644))
	writePlan(t, path, src)
	p, err := plan.Read(path)
	must(t, err)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for slot, r := range p.Runs {
		s := speed(slot, r.Round)
		at := start.Add(time.Duration(slot) * time.Minute)
		must(t, dir.AppendProbe(results.ProbeRow{Time: at, Round: r.Round, RunID: r.ID, What: "cpu", Value: 20000 * s, Unit: "ops/s"}))
		tps := 4000 * s
		sum := &results.Summary{RunID: r.ID, Model: r.Model, Tenants: 1, Scale: 1, Clients: 1, Repetition: r.Repetition,
			Workload: "tpcb", Duration: 10, Measured: 10, Status: results.StatusOK, Start: at, End: at.Add(20 * time.Second),
			HostSpeed: &[]float64{20000 * s}[0],
			Tenant:    []results.TenantTotals{{Tenant: "t01", TPS: tps, Committed: int64(tps * 10), MeanMs: 0.25}}}
		phases := []results.Phase{{Tenant: "t01", Phase: "workload", Start: 0, End: 10, Status: "ok"}}
		sum.Provider = results.AggregateOf(sum.Tenant, phases)
		must(t, dir.WriteJSON(filepath.Join("runs", r.ID, "summary.json"), sum))
		must(t, dir.AppendResult(sum))
	}
	return path
}

// jitter is a small deterministic noise, within +-0.5 %.
func jitter(slot int) float64 { return 1 + 0.005*math.Sin(float64(7*slot+3)) }

// TestDriftBlocked: blocked order on a machine getting faster by 3 % a
// run: the unpaired comparison finds a difference between identical
// deployments, and the report warns that the probe varied more than it.
func TestDriftBlocked(t *testing.T) {
	e, err := load(writeDrift(t, "blocked", func(slot, _ int) float64 { return (1 + 0.03*float64(slot)) * jitter(slot) }))
	must(t, err)
	if e.caseBars() != nil {
		t.Error("case bars without workload.cases")
	}
	d := e.driftPart()
	if d == nil || d.Table == nil || len(d.Table.Rows) != 1 {
		t.Fatalf("drift part: %+v", d)
	}
	row := d.Table.Rows[0]
	if row[0] != "database vs schema, 1 tenant" || row[2] != "" || row[5] != "differ" {
		t.Errorf("blocked comparison row %q: want no paired value and an unpaired difference", row)
	}
	if len(d.Warn) != 1 || !strings.Contains(d.Warn[0], "database vs schema, 1 tenant (+12.") ||
		!strings.Contains(d.Warn[0], "In blocked order these differences may be the machine's drift") {
		t.Errorf("warnings %q", d.Warn)
	}
}

// TestDriftInterleaved: in rounds, on a machine whose speed moves from
// round to round by up to 30 %, the paired comparison of identical
// deployments shows no difference (its interval holds 0 %), while the
// probe varies more than the unpaired ratio, which the report names.
func TestDriftInterleaved(t *testing.T) {
	steps := []float64{1, 1.3, 0.95, 1.2}
	path := writeDrift(t, "interleaved", func(slot, round int) float64 { return steps[round-1] * jitter(slot) })
	e, err := load(path)
	must(t, err)
	d := e.driftPart()
	if d == nil || d.Table == nil || len(d.Table.Rows) != 1 {
		t.Fatalf("drift part: %+v", d)
	}
	row := d.Table.Rows[0]
	if row[1] != "4" || row[3] != "no difference shown" || !strings.HasPrefix(row[2], "+0.") && !strings.HasPrefix(row[2], "-0.") {
		t.Errorf("paired comparison row %q: want 4 rounds and no difference", row)
	}
	lo, hi := parseInterval(t, row[2])
	if !(lo < 0 && hi > 0) {
		t.Errorf("paired interval [%v, %v] does not hold 0", lo, hi)
	}
	if len(d.Warn) != 1 || !strings.Contains(d.Warn[0], "Trust their paired comparisons") {
		t.Errorf("warnings %q", d.Warn)
	}
	if f := e.probeFigure(); f.Note != "" || !strings.Contains(f.Caption, "Spread: 3") {
		t.Errorf("probe figure: note %q, caption %q", f.Note, f.Caption)
	}
	// The rendered report has the section, in both formats.
	must(t, Write(path))
	for _, name := range []string{"report.html", "summary.md"} {
		b, err := os.ReadFile(filepath.Join(path, Subdir, name))
		must(t, err)
		if !strings.Contains(string(b), "Drift and paired comparisons") || !strings.Contains(string(b), "database vs schema, 1 tenant") {
			t.Errorf("%s lacks the drift section", name)
		}
	}
}

// parseInterval reads "[-1.2, +3.4]" of "+1.1 % [-1.2, +3.4]".
func parseInterval(t *testing.T, s string) (lo, hi float64) {
	t.Helper()
	_, in, ok := strings.Cut(s, "[")
	if !ok {
		t.Fatalf("no interval in %q", s)
	}
	if _, err := fmt.Sscanf(strings.TrimSuffix(in, "]"), "%g, %g", &lo, &hi); err != nil {
		t.Fatalf("interval %q: %v", s, err)
	}
	return lo, hi
}
