package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// coreFigures are the figures every report with repetitions draws.
var coreFigures = []string{"throughput", "latency-mean", "latency-p99", "fairness", "tenant-throughput",
	"tenant-latency-mean", "tenant-latency-p99", "throughput-time", "tenant-throughput-time", "box-throughput", "box-latency-mean", "cv", "phases"}

// monitorFigures are drawn only from the monitor's files.
var monitorFigures = []string{"cpu", "e-tpx", "e-lat", "memory-peak", "tenant-cpu", "tenant-blks-read", "waits",
	"resources-cpus", "resources-rss_mb"}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// appendAggregateRow adds a row such as `repeat` writes (an
// aggregate over a point's repetitions): readers must leave it out.
func appendAggregateRow(t *testing.T, path string) {
	tab, err := results.ReadTable(filepath.Join(path, "results.csv"))
	must(t, err)
	row := append([]string{}, tab.Rows[0]...)
	for i, h := range tab.Header {
		switch h {
		case "run_id", "repetition":
			row[i] = "mean"
		case "throughput_tps":
			row[i] = "999999"
		}
	}
	writeCSV(t, filepath.Join(path, "results.csv"), append(append([][]string{tab.Header}, tab.Rows...), row))
}

func TestReportTables(t *testing.T) {
	s := synth{failLast: true}
	path := s.write(t)
	appendAggregateRow(t, path)
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))

	// Two repetitions with known throughputs: the table's statistics are
	// those of the two numbers (sample std = |a-b|/sqrt 2).
	a, b := s.tenantTPS("schema", 1, 1, 0), s.tenantTPS("schema", 1, 2, 0)
	mean, std := (a+b)/2, math.Abs(a-b)/math.Sqrt2
	want := []string{"schema, 1 tenant", "2", "0", fmtNum(mean), fmtNum(std), fmtPct(std / mean), fmtNum(min(a, b)),
		fmtNum(max(a, b)), fmtNum(min(a, b))}
	if got := mdRow(t, md, "Throughput (tx/s)", "schema, 1 tenant"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("throughput row = %q\nwant %q", got, want)
	}
	if fmtNum(mean) != "110.00" || fmtNum(std) != "14.14" {
		t.Errorf("mean %s, std %s: want 110.00 and 14.14", fmtNum(mean), fmtNum(std))
	}

	// Mean latency is the macro-average over tenants; lower is better,
	// so the less favourable repetition is the larger.
	lat := func(rep int) float64 {
		return (s.tenantMeanMs("schema", 2, rep, 0) + s.tenantMeanMs("schema", 2, rep, 1)) / 2
	}
	got := mdRow(t, md, "Mean latency (ms)", "schema, 2 tenants")
	if got[3] != fmtNum((lat(1)+lat(2))/2) || got[8] != fmtNum(max(lat(1), lat(2))) {
		t.Errorf("mean latency row = %q, want mean %s and less favourable %s", got, fmtNum((lat(1)+lat(2))/2),
			fmtNum(max(lat(1), lat(2))))
	}

	// Jain's index of two tenants x, y: (x+y)^2 / (2 (x^2 + y^2)).
	jain := func(rep int) float64 {
		x, y := s.tenantTPS("schema", 2, rep, 0), s.tenantTPS("schema", 2, rep, 1)
		return (x + y) * (x + y) / (2 * (x*x + y*y))
	}
	got = mdRow(t, md, "Fairness, Jain's index", "schema, 2 tenants")
	if got[3] != fmtNum((jain(1)+jain(2))/2) || got[8] != fmtNum(min(jain(1), jain(2))) {
		t.Errorf("fairness row = %q, want mean %s", got, fmtNum((jain(1)+jain(2))/2))
	}

	// The failed run is listed with its error and left out of the
	// statistics: its point has one repetition, hence no deviation.
	got = mdRow(t, md, "Throughput (tx/s)", "database, 2 tenants")
	if got[1] != "1" || got[2] != "1" || got[3] != fmtNum(s.tenantTPS("database", 2, 1, 0)+s.tenantTPS("database", 2, 1, 1)) || got[4] != "" {
		t.Errorf("point with a failed repetition = %q", got)
	}
	if !strings.Contains(md, "| 008 | database, 2 tenants | 2 | workload: instance t02 exited: synthetic failure |") {
		t.Errorf("summary.md does not list the failed run:\n%s", md)
	}
	if strings.Contains(md, "999999") {
		t.Error("the aggregate row of results.csv was read as a run")
	}

	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	for _, want := range []string{"<h1>synth</h1>", "8 CPUs, 16 GiB memory", "PostgreSQL 16.4", "cgroups v2, limits enforced",
		"synthetic failure", "8 run(s) ended: 7 ok, 1 failed."} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, id := range coreFigures {
		for _, ext := range []string{".svg", ".png", ".pdf"} {
			st, err := os.Stat(filepath.Join(path, Subdir, id+ext))
			if err != nil || st.Size() < 1000 {
				t.Errorf("figure %s%s: %v", id, ext, err)
			}
		}
		if b := readFile(t, filepath.Join(path, Subdir, id+".pdf")); !strings.HasPrefix(b, "%PDF-") {
			t.Errorf("figure %s.pdf is not a PDF: %.20q", id, b)
		}
		if !strings.Contains(html, `<figure id="fig-`+id+`">`) {
			t.Errorf("report.html lacks figure %s", id)
		}
	}
	for _, id := range monitorFigures[:7] {
		if !strings.Contains(html, `<figure class="missing" id="fig-`+id+`">`) {
			t.Errorf("figure %s should be noted as not measured", id)
		}
	}
	if n := strings.Count(html, "not measured: "); n != 8 { // 7 figures and resources
		t.Errorf("%d figures not measured, want 8", n)
	}
}

func TestReportMonitorFigures(t *testing.T) {
	path := synth{}.write(t)
	addMonitorFiles(t, path)
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	if strings.Contains(html, "not measured") {
		t.Error("report.html says not measured although the monitor's files are there")
	}
	for _, id := range monitorFigures {
		if _, err := os.Stat(filepath.Join(path, Subdir, id+".svg")); err != nil {
			t.Errorf("figure %s: %v", id, err)
		}
	}
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	// cpu_s is 5 and 6 for runs 001 and 002, whose throughputs are 100 and
	// 120 over 10 s: E_TpX = tps x 10 / cpu_s = 200 both times.
	if got := mdRow(t, md, "E_TpX, throughput efficiency (tx per CPU-s)", "schema, 1 tenant"); got[3] != "200.00" || got[4] != "0.000" {
		t.Errorf("E_TpX row = %q", got)
	}
	if got := mdRow(t, md, "Peak memory (MB)", "schema, 1 tenant"); got[3] != "105.00" {
		t.Errorf("peak memory row = %q", got)
	}
}

func TestWriteNotResults(t *testing.T) {
	err := Write(t.TempDir())
	if !errors.Is(err, ErrNotResults) {
		t.Errorf("Write(empty dir) = %v, want ErrNotResults", err)
	}
	if err := Compare(&bytes.Buffer{}, []string{t.TempDir()}, false); !errors.Is(err, ErrNotResults) {
		t.Errorf("Compare(empty dir) = %v, want ErrNotResults", err)
	}
}

// A report replaces the previous one whole: no figure of an older report
// stays behind.
func TestWriteReplaces(t *testing.T) {
	path := synth{}.write(t)
	must(t, os.MkdirAll(filepath.Join(path, Subdir), 0o755))
	stale := filepath.Join(path, Subdir, "stale.svg")
	must(t, os.WriteFile(stale, []byte("<svg/>"), 0o644))
	must(t, Write(path))
	if _, err := os.Stat(stale); err == nil {
		t.Error("a figure of the previous report stayed")
	}
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".report-") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
}

// Only the plan: an experiment cut before its first run ended still gets
// a report, with every run "not run".
func TestWriteNoRuns(t *testing.T) {
	path := synth{}.write(t)
	must(t, os.Remove(filepath.Join(path, "results.csv")))
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if strings.Count(md, "| not run |") != 8 {
		t.Errorf("summary.md should list 8 runs not run:\n%s", md)
	}
}

func TestCompare(t *testing.T) {
	one := synth{}.write(t)
	two := synth{scale: 2}.write(t)
	var out bytes.Buffer
	if err := Compare(&out, []string{one, two}, false); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	var row string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "schema, 1 tenant ") {
			row = line
		}
	}
	// Twice the throughput in the second directory: ratio 2.
	f := strings.Fields(row)
	if len(f) < 4 || f[len(f)-1] != "2.000" || f[len(f)-3] != fmtNum(110) || f[len(f)-2] != fmtNum(220) {
		t.Errorf("compare row = %q in\n%s", row, text)
	}
	if !strings.Contains(text, "[1] "+one) || !strings.Contains(text, "[2] "+two) {
		t.Errorf("compare does not name its directories:\n%s", text)
	}
	out.Reset()
	if err := Compare(&out, []string{one, two}, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| schema, 1 tenant | Throughput (tx/s) | 110.00 | 220.00 | 2.000 |") {
		t.Errorf("markdown compare:\n%s", out.String())
	}
}

// A run whose files are missing costs its own figures, not the report:
// the report says which file it could not read.
func TestWriteBrokenRun(t *testing.T) {
	path := synth{}.write(t)
	must(t, os.Remove(filepath.Join(path, "runs", "001", "tenants.csv")))
	must(t, os.WriteFile(filepath.Join(path, "runs", "002", "timeseries.csv"), []byte("second,tenant\n1,t01,extra\n"), 0o644))
	must(t, Write(path))
	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	for _, want := range []string{`id="warnings"`, "run 001: open ", "run 002: ", `<figure id="fig-throughput">`} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A run that failed before its workload measured anything has empty
// figures in results.csv (not 0); the report still draws the others and
// lists it, with no throughput of 0 among the statistics.
func TestReportRunFailedEarly(t *testing.T) {
	s := synth{failEarly: true}
	path := s.write(t)
	tab, err := results.ReadTable(filepath.Join(path, "results.csv"))
	must(t, err)
	last := len(tab.Rows) - 1
	for _, col := range []string{"throughput_tps", "latency_mean_ms", "committed", "tpm", "fairness_jain", "post_ingest_s", "workload_s"} {
		if v := tab.Get(last, col); v != "" {
			t.Errorf("failed run's %s = %q, want empty (not measured)", col, v)
		}
	}
	for _, col := range []string{"provision_s", "setup_s", "ingest_s"} {
		if v := tab.Get(last, col); v == "" {
			t.Errorf("failed run's %s is empty; the phase ran", col)
		}
	}
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if !strings.Contains(md, "| 008 | database, 2 tenants | 2 | ingest: t02: synthetic failure |") {
		t.Errorf("summary.md does not list the failed run:\n%s", md)
	}
	got := mdRow(t, md, "Throughput (tx/s)", "database, 2 tenants")
	if got[1] != "1" || got[3] != fmtNum(s.tenantTPS("database", 2, 1, 0)+s.tenantTPS("database", 2, 1, 1)) {
		t.Errorf("point with a run failed early = %q", got)
	}
}

// TestTenantPerspectiveEveryCount: the tenant perspective has a panel
// per tenant count, bars up to barsUpTo tenants and a CDF above.
func TestTenantPerspectiveEveryCount(t *testing.T) {
	path := synth{tenants: []int{2, 50}}.write(t)
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	svg := readFile(t, filepath.Join(path, Subdir, "tenant-throughput.svg"))
	for _, want := range []string{"Throughput per tenant, 2 tenants", "Throughput per tenant, 50 tenants", "Share of tenants"} {
		if !strings.Contains(svg, want) {
			t.Errorf("tenant-throughput.svg lacks %q", want)
		}
	}
	if strings.Count(svg, "Share of tenants") != 1 {
		t.Error("the 2-tenant panel is drawn as a CDF, or the 50-tenant one twice")
	}
}

// A run whose driver took more than a quarter of the host's CPU is warned
// about, by name; the others are not.
func TestDriverWarning(t *testing.T) {
	path := synth{driverCPU: true}.write(t)
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if !strings.Contains(md, "run 001: the driver used 40 % of the host's CPU during the workload") {
		t.Errorf("no warning for run 001:\n%s", md)
	}
	if strings.Contains(md, "run 002: the driver used") {
		t.Error("run 002, at 10 %, warned about")
	}
	tab, err := results.ReadTable(filepath.Join(path, "results.csv"))
	if err != nil || tab.Get(0, "driver_cpu_share") != "0.4" || tab.Get(1, "driver_cpu_share") != "0.1" {
		t.Errorf("results.csv driver_cpu_share: %v", err)
	}
}
