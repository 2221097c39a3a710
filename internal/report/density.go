package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenantbench/tenantbench/internal/results"
)

// The density search (`tenantbench density`, Oracle 2014, Test 3): its
// directory holds density.csv and probes.csv (package density writes
// them), and each probe's results directory under probes/. The report
// shows the search as the paper's Table 12 and every probe, each a run of
// its own kept whatever its outcome.

const (
	densityFile = "density.csv"
	probesFile  = "probes.csv"
)

// densityPart is the density search's tables; nil without density.csv.
type densityPart struct {
	Note   string
	Table  *table // a row per model: Table 12
	Probes *table // a row per probe
	// Links are each probe's own report, relative to report.html.
	Links []probeLink
}

type probeLink struct{ Label, Href string }

// readDensity reads dir's density.csv and probes.csv: nil, nil when dir has
// no density.csv.
func readDensity(dir string) (*densityPart, error) {
	d, err := results.ReadTable(filepath.Join(dir, densityFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", densityFile, err)
	}
	part := &densityPart{}
	t := newTable("Density per model", "model", "tenants", "throughput (tps)", "mean latency (ms)", "p95 (ms)",
		"CPU (%)", "memory (MiB)", "memory (%)", "IOPS", "probes").numbers(2, 3, 4, 5, 6, 7, 8, 9)
	var cpu, mem string
	for i := range d.Rows {
		found := d.Get(i, "tenants_found")
		if d.Get(i, "exact") != "true" {
			found = "at least " + found + " (" + d.Get(i, "stopped") + ")"
		}
		row := []string{d.Get(i, "model"), found}
		for _, c := range []string{"throughput_tps", "latency_mean_ms", "latency_p95_ms", "cpu_pct", "mem_mb", "mem_pct", "iops", "probes"} {
			row = append(row, orDash(d.Get(i, c)))
		}
		t.Rows = append(t.Rows, row)
		cpu, mem = d.Get(i, "cpu_limit_pct"), d.Get(i, "mem_limit_pct")
	}
	ceilings := "the ceilings given to tenantbench density (68 % CPU and 75 % memory by default)"
	if cpu != "" && mem != "" {
		ceilings = fmt.Sprintf("the servers' CPU at most %s %% and their memory at most %s %% of the machine's", cpu, mem)
	}
	part.Note = "Oracle 2014, Test 3 (Table 12): per model, the most tenants at which every tenant met its SLA with " + ceilings +
		", and the figures of the probe that found it (density.csv). The search grew the tenant count until a probe did not " +
		"fit, then bisected; \"at least\" marks a search its budget cut. Each probe is a run of its own, kept whatever its " +
		"outcome (probes.csv, below), with its results and report in probes/<model>-<tenants>/."
	part.Table = t
	p, err := results.ReadTable(filepath.Join(dir, probesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return part, nil
	case err != nil:
		return part, fmt.Errorf("%s: %w", probesFile, err)
	}
	pt := newTable("Probes", "model", "tenants", "verdict", "run ok", "SLA met", "throughput (tps)", "mean latency (ms)",
		"p95 (ms)", "CPU (%)", "memory (%)", "IOPS", "elapsed (s)").numbers(1, 5, 6, 7, 8, 9, 10, 11)
	for i := range p.Rows {
		verdict := "fits"
		if p.Get(i, "fits") != "true" {
			verdict = p.Get(i, "why")
		}
		pt.Rows = append(pt.Rows, []string{p.Get(i, "model"), p.Get(i, "tenants"), verdict, p.Get(i, "ok"), p.Get(i, "sla_met"),
			p.Get(i, "throughput_tps"), p.Get(i, "latency_mean_ms"), p.Get(i, "latency_p95_ms"), orDash(p.Get(i, "cpu_pct")),
			orDash(p.Get(i, "mem_pct")), orDash(p.Get(i, "iops")), p.Get(i, "elapsed_s")})
		// A probe's directory is probes/<model>-<n> in the search's
		// directory, wherever the search was run from.
		name := fmt.Sprintf("%s-%s", p.Get(i, "model"), p.Get(i, "tenants"))
		if st, err := os.Stat(filepath.Join(dir, "probes", name)); err == nil && st.IsDir() {
			part.Links = append(part.Links, probeLink{Label: name, Href: "../probes/" + name + "/" + Subdir + "/report.html"})
		}
	}
	part.Probes = pt
	return part, nil
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}

// writeDensityMD writes the density part as summary.md does its sections.
func writeDensityMD(b *strings.Builder, d *densityPart) {
	fmt.Fprintf(b, "## Density (Oracle 2014, Test 3)\n\n%s\n\n", d.Note)
	writeMDTable(b, d.Table)
	if d.Probes != nil {
		b.WriteString("### Probes\n\nEvery probe in the order run: whether it fit, else why not (run failed, SLA not met, " +
			"CPU or memory over its ceiling, not measured).\n\n")
		writeMDTable(b, d.Probes)
	}
	if len(d.Links) > 0 {
		b.WriteString("Each probe's report:")
		for _, l := range d.Links {
			fmt.Fprintf(b, " [%s](%s)", l.Label, l.Href)
		}
		b.WriteString("\n\n")
	}
}

// writeDensityOnly renders a density search's directory, which is no
// results directory of its own (its probes are): report.html and
// summary.md with the search's tables and links to the probes' reports.
func writeDensityOnly(dir string, d *densityPart, generated string) error {
	p := &densityPage{Name: filepath.Base(filepath.Clean(dir)), Dir: dir, Density: d, Generated: generated}
	var html strings.Builder
	if err := densityTemplate.ExecuteTemplate(&html, "density", p); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\nDensity search directory `%s`.\n\n", p.Name, dir)
	writeDensityMD(&md, d)
	return writeReportFiles(dir, map[string][]byte{"report.html": []byte(html.String()), "summary.md": []byte(md.String())})
}

type densityPage struct {
	Name, Dir string
	Density   *densityPart
	Generated string
}
