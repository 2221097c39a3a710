package report

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/density"
)

// writeSearch runs the density search against a fake deployment (each
// tenant costs 3 % CPU; beyond 5 tenants of model "schema" the SLA
// fails) and writes density.csv and probes.csv into dir with the density
// package's own writers, as `tenantbench density` does.
func writeSearch(t *testing.T, dir string) {
	t.Helper()
	var models []density.Model
	for _, name := range []string{"instance", "schema"} {
		probe := func(_ context.Context, n int) (density.Probe, error) {
			return density.Probe{Tenants: n, OK: true, SLAMet: name != "schema" || n <= 5, CPUPct: 3 * float64(n), MemPct: float64(n),
				MemMB: 10 * float64(n), IOPS: -1, TPS: 100 * float64(n), MeanMs: 2, P95Ms: 5, Elapsed: time.Second,
				Where: filepath.Join("elsewhere", "probes", name+"-"+strconv.Itoa(n))}, nil
		}
		res, err := density.Search(context.Background(), density.Config{Start: 1, Max: 100, Factor: 2, Limits: density.Oracle2014}, probe)
		must(t, err)
		models = append(models, density.Model{Name: name, Result: res})
	}
	for name, write := range map[string]func(f *os.File) error{
		"density.csv": func(f *os.File) error { return density.WriteDensity(f, models, density.Oracle2014) },
		"probes.csv":  func(f *os.File) error { return density.WriteProbes(f, models, density.Oracle2014) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		must(t, err)
		must(t, write(f))
		must(t, f.Close())
	}
}

// TestDensityDirectory: a density search's directory, no results
// directory itself, gets a report of the search: Table 12's row per model
// (22 instances at 3 % CPU each under 68 %; 5 schemas, the SLA failing
// beyond), every probe with its verdict, the failed ones kept, and a link
// to each probe's own report where its directory is.
func TestDensityDirectory(t *testing.T) {
	dir := t.TempDir()
	writeSearch(t, dir)
	must(t, os.MkdirAll(filepath.Join(dir, "probes", "schema-6"), 0o755))
	must(t, Write(dir))
	md := readFile(t, filepath.Join(dir, Subdir, "summary.md"))
	html := readFile(t, filepath.Join(dir, Subdir, "report.html"))
	for _, want := range []string{
		"| instance | 22 | 2200 | 2 | 5 | 66 | 220 | 22 | – | 10 |",
		"| schema | 5 | 500 | 2 | 5 | 15 | 50 | 5 | – |",
		"| instance | 23 | cpu 69.0 % > 68 % | true | true |",
		"| schema | 6 | sla not met | true | false |",
		"at most 68 % and their memory at most 75 %",
		"[schema-6](../probes/schema-6/report/report.html)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "instance-22](") {
		t.Error("a link to a probe whose directory is not there")
	}
	for _, want := range []string{`<section id="density">`, "<td class=\"\">sla not met</td>", `<a href="../probes/schema-6/report/report.html">schema-6</a>`} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Not a results directory, and no density.csv: still refused.
	if err := Write(t.TempDir()); err == nil {
		t.Error("an empty directory got a report")
	}
}

// TestDensitySection: a results directory with density.csv shows it as a
// section of its report.
func TestDensitySection(t *testing.T) {
	path := synth{}.write(t)
	writeSearch(t, path)
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if !strings.Contains(md, "## Density (Oracle 2014, Test 3)") || !strings.Contains(md, "| schema | 6 | sla not met |") {
		t.Errorf("summary.md lacks the density section:\n%s", md)
	}
	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	if !strings.Contains(html, `<li><a href="#density">Density</a></li>`) || !strings.Contains(html, `<section id="density">`) {
		t.Error("report.html lacks the density section")
	}
}
