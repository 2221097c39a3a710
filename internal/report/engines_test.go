package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

// enginesSpec is Matos and Pedreira's matrix in small: two cases, each
// with its settings per engine, on both engines, three repetitions.
const enginesSpec = `name: engines
seed: 1
repeat: 3
order: interleaved
sut:
  engine: [postgres, mariadb]
tenancy: {model: database, tenants: 1}
workload:
  name: tpcc
  warmup: 2s
  duration: 10s
  options: {interaction: procedures}
  cases:
    - name: small
      settings:
        postgres: {max_connections: 100, shared_buffers: 256MB}
        mariadb: {max_connections: 100, innodb_buffer_pool_size: 256MB}
      clients: 1
    - name: small-aw
      settings:
        postgres: {max_connections: 100, shared_buffers: 256MB}
        mariadb: {max_connections: 100, innodb_buffer_pool_size: 256MB}
      clients: 2
      options: {all_warehouses: true}
`

// engineTPM is a run's TPM: distinct per case, engine and repetition.
func engineTPM(cs, eng string, rep int) float64 {
	base := map[string]float64{"small": 6000, "small-aw": 9000}[cs]
	if eng == "mariadb" {
		base += 1200
	}
	return base + 300*float64(rep*rep)
}

// writeEngines writes a results directory of spec src (a tpcc plan over
// cases and engines) whose every run has engineTPM's throughput, and
// returns it with its directory.
func writeEngines(t *testing.T, src string) (string, *results.Dir) {
	t.Helper()
	reg := workload.Registry{}
	reg.Add(tpcc.Factory())
	p, problems := plan.BuildBytes([]byte(src), plan.Builtin(reg))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	path := filepath.Join(t.TempDir(), "engines")
	dir, err := results.Create(path, p.SettingKeys)
	must(t, err)
	must(t, dir.WriteFile("spec.yaml", []byte(src), 0o644))
	must(t, p.Write(path))
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, r := range p.Runs {
		tpm := engineTPM(r.Case, r.Engine, r.Repetition)
		nopm := tpm * 0.45
		tt := results.TenantTotals{Tenant: "t01", TPS: tpm / 60, MeanMs: 5, P95Ms: 10, P99Ms: 15, Committed: int64(tpm / 6)}
		sum := &results.Summary{RunID: r.ID, Model: r.Model, Tenants: 1, Scale: 1, Clients: r.Clients, Repetition: r.Repetition,
			Settings: r.Settings, Workload: "tpcc", Engine: r.Engine, Case: r.Case, Warmup: 2, Duration: 10,
			Status: results.StatusOK, Start: start, End: start.Add(20 * time.Second), Tenant: []results.TenantTotals{tt}}
		start = start.Add(30 * time.Second)
		sum.Provider = results.AggregateOf(sum.Tenant, nil)
		sum.Provider.TPM, sum.Provider.NOPM = tpm, &nopm
		must(t, dir.WriteJSON(filepath.Join("runs", r.ID, "summary.json"), sum))
		writeTenantsCSV(t, dir, r.ID, sum.Tenant)
		writeSeriesCSV(t, dir, r.ID, sum.Tenant)
		must(t, dir.AppendResult(sum))
	}
	return path, dir
}

// TestEngineTables: the report's tables of TPM and NOPM have a row per
// case and engine, the engines of a case next to each other, with
// Matos and Pedreira's statistics (mean, std, CV, min, max) over the
// repetitions; the plan table has the case and engine columns; the
// throughput over time has a panel per engine.
func TestEngineTables(t *testing.T) {
	path, dir := writeEngines(t, enginesSpec)
	rows, err := dir.ReadResults()
	must(t, err)
	if len(rows) != 12 || rows[0].Engine != "postgres" || rows[1].Engine != "mariadb" || rows[0].Case != "small" {
		t.Fatalf("results.csv: %d rows, first %+v", len(rows), rows[0])
	}
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))

	stats := func(v []float64) (mean, std float64) {
		for _, x := range v {
			mean += x
		}
		mean /= float64(len(v))
		for _, x := range v {
			std += (x - mean) * (x - mean)
		}
		return mean, math.Sqrt(std / float64(len(v)-1))
	}
	var order []string
	for _, heading := range []string{"TPM (tx/min)", "NOPM (New-Orders/min)"} {
		for _, cs := range []string{"small", "small-aw"} {
			for _, eng := range []string{"postgres", "mariadb"} {
				var v []float64
				for rep := 1; rep <= 3; rep++ {
					x := engineTPM(cs, eng, rep)
					if strings.HasPrefix(heading, "NOPM") {
						x *= 0.45
					}
					v = append(v, x)
				}
				mean, std := stats(v)
				label := fmt.Sprintf("%s, %s, database, 1 tenant", cs, eng)
				want := []string{label, "3", "0", fmtNum(mean), fmtNum(std), fmtPct(std / mean), fmtNum(v[0]), fmtNum(v[2])}
				if got := mdRow(t, md, heading, label); strings.Join(got[:8], "|") != strings.Join(want, "|") {
					t.Errorf("%s row = %q\nwant %q", heading, got, want)
				}
				order = append(order, label)
			}
		}
	}
	// The engines of a case are next to each other, in sut.engine's order.
	i := strings.Index(md, "### TPM (tx/min)\n")
	last := i
	for _, label := range order[:4] {
		j := strings.Index(md[i:], "| "+label+" |")
		if j < 0 || i+j < last {
			t.Errorf("%q out of order in the TPM table", label)
		}
		last = i + j
	}
	// The plan's product has the cases, not the scale, clients and
	// settings they decide.
	if !strings.Contains(md, "12 runs: engine [postgres, mariadb] x model database x tenants 1 x 2 cases of workload.cases (") {
		t.Errorf("the plan's product does not name the cases:\n%s", md)
	}
	// The plan's table names each run's case and engine.
	if !strings.Contains(md, "| run | case | engine | model |") {
		t.Errorf("plan table without case and engine columns:\n%s", md)
	}
	// The findings compare the engines within each case (paired within
	// the three rounds), not the cases with each other, since the engine
	// varies too; the clients the cases decide are no dimension of their
	// own, so no EDB table.
	for _, want := range []string{"At 1 tenant, case `small`, `mariadb` gave", "than `postgres` (95 % CI",
		"At 1 tenant, case `small-aw`, `mariadb` gave", "paired within 3 rounds"} {
		if !strings.Contains(md, want) {
			t.Errorf("findings do not say %q:\n%s", want, md)
		}
	}
	for _, not := range []string{"varies nothing", "Latency by placement, noise and clients", "than case `small`"} {
		if strings.Contains(md, not) {
			t.Errorf("summary.md has %q", not)
		}
	}
	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	// A panel per engine and all-warehouses setting, as Matos and
	// Pedreira draw them (small-aw alone sets all_warehouses).
	if !strings.Contains(html, "One panel per engine and set of the workload options in which the runs differ") ||
		!strings.Contains(html, "(postgres, all_warehouses=(default), postgres, all_warehouses=true, mariadb, all_warehouses=(default), mariadb, all_warehouses=true)") {
		t.Errorf("throughput over time is not drawn per engine and all-warehouses setting")
	}
	// Matos and Pedreira's figure: TPM over time (their workload reports
	// NOPM), the engines' panels on one axis so that they compare.
	for _, want := range []string{"TPM over time, as Matos and Pedreira (2025, Fig. 2) draw it", "the band spans &#43;-1 sample standard deviation",
		"The panels share the throughput axis"} {
		if !strings.Contains(html, want) {
			t.Errorf("the figure over time does not say %q", want)
		}
	}
	e, err := load(path)
	must(t, err)
	points := e.largestPoints()
	panels := e.timePanels(points)
	unit := e.timeUnit(points)
	if unit.factor != 60 || unit.axis != "TPM (tx/min)" || len(panels) != 4 {
		t.Fatalf("unit %+v, %d panels", unit, len(panels))
	}
	var tops []float64
	for _, pn := range panels {
		if len(pn.groups) != 1 {
			t.Errorf("panel %s, %s has %d lines, want one case", pn.engine, pn.options, len(pn.groups))
		}
		c, _ := e.timeChart("x", pn.groups, unit, 0)
		tops = append(tops, c.Y.Max)
	}
	if slices.Max(tops) == slices.Min(tops) {
		t.Errorf("the panels' own axes are alike (%v): the test shows no sharing", tops)
	}
	charts, _, shared := e.timeCharts("x", panels, unit)
	if !shared || len(charts) != 4 {
		t.Fatalf("shared %v, %d charts", shared, len(charts))
	}
	for _, c := range charts {
		if c.Y.Max != slices.Max(tops) {
			t.Errorf("axes %v, want all at %v (own %v)", c.Y.Max, slices.Max(tops), tops)
		}
	}
	// Matos and Pedreira's bars: a group per case, a bar per engine, in
	// TPM.
	if f := e.caseBars(); f == nil || f.Note != "" || !strings.Contains(f.Caption, "in TPM") {
		t.Errorf("case bars: %+v", f)
	}
	if !strings.Contains(md, "## Cases (Matos and Pedreira 2025") || !strings.Contains(md, "](cases.svg)") {
		t.Error("summary.md has no section of the cases' bars")
	}
	// The legend names each engine's bars, without a case.
	bars := readFile(t, filepath.Join(path, Subdir, "cases.svg"))
	for _, want := range []string{">postgres, database<", ">mariadb, database<"} {
		if strings.Count(bars, want) != 1 {
			t.Errorf("cases.svg has %q %d times, want once", want, strings.Count(bars, want))
		}
	}
	// One tenant count: nothing is drawn against tenants.
	if !strings.Contains(md, "**Throughput against tenants**: every point has 1 tenant: nothing to draw against tenants") {
		t.Error("a figure against tenants is drawn for one tenant count")
	}
	svg := readFile(t, filepath.Join(path, Subdir, "throughput-time.svg"))
	if !strings.Contains(svg, "TPM (tx/min)") {
		t.Error("throughput-time.svg has no TPM axis")
	}
}

// TestEngineDrift: with more than four series (three cases on two
// engines) the drift section compares each case's engines, paired within
// the rounds, as the findings do, not every point with the plan's first;
// with one round there is no paired ratio to show.
func TestEngineDrift(t *testing.T) {
	spec := strings.Replace(enginesSpec, "      options: {all_warehouses: true}\n", `      options: {all_warehouses: true}
    - name: medium
      settings:
        postgres: {max_connections: 200, shared_buffers: 512MB}
        mariadb: {max_connections: 200, innodb_buffer_pool_size: 512MB}
      clients: 2
`, 1)
	for _, repeat := range []int{3, 1} {
		src := strings.Replace(spec, "repeat: 3", fmt.Sprintf("repeat: %d", repeat), 1)
		path, _ := writeEngines(t, src)
		e, err := load(path)
		must(t, err)
		d := e.driftPart()
		if d == nil || d.Table == nil {
			t.Fatalf("repeat %d: no comparisons", repeat)
		}
		var names []string
		for _, row := range d.Table.Rows {
			names = append(names, row[0])
			if repeat == 1 && (row[2] != "" || row[3] != "too few runs") {
				t.Errorf("repeat 1: paired cells %q, %q, want none", row[2], row[3])
			}
			if repeat == 3 && (row[1] != "3" || !strings.HasPrefix(row[2], "+")) {
				t.Errorf("repeat 3: %q: rounds %q, paired %q, want 3 rounds and MariaDB ahead", row[0], row[1], row[2])
			}
		}
		want := []string{"small, mariadb, database vs small, postgres, database, 1 tenant",
			"small-aw, mariadb, database vs small-aw, postgres, database, 1 tenant",
			"medium, mariadb, database vs medium, postgres, database, 1 tenant"}
		if !slices.Equal(names, want) {
			t.Errorf("repeat %d: comparisons %q, want %q", repeat, names, want)
		}
	}
}

// TestPointLabels: a category axis leaves out the parts every point's
// label has, keeps a lone point's whole, and keeps a part some points
// lack.
func TestPointLabels(t *testing.T) {
	pts := func(labels ...string) []*point {
		var out []*point
		for _, l := range labels {
			out = append(out, &point{label: l})
		}
		return out
	}
	for _, c := range []struct{ in, want []string }{
		{[]string{"small, postgres, database, 1 tenant", "small, mariadb, database, 1 tenant", "large, postgres, database, 1 tenant"},
			[]string{"small, postgres", "small, mariadb", "large, postgres"}},
		{[]string{"schema, 1 tenant"}, []string{"schema, 1 tenant"}},
		{[]string{"schema, 1 tenant", "schema, 2 tenants", "database, 2 tenants"}, []string{"schema, 1 tenant", "schema, 2 tenants", "database, 2 tenants"}},
	} {
		if got := pointLabels(pts(c.in...)); !slices.Equal(got, c.want) {
			t.Errorf("pointLabels(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
