package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDensity runs the density search for real on a tiny spec: one
// model, tpcb tenants at 5 arrivals per second with an SLA any working
// server meets, up to 2 tenants. It grows 1 -> 2, where it stops (the
// most asked for), and records each probe as a run of its own.
func TestDensity(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL twice")
	}
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "d.yaml")
	if err := os.WriteFile(specPath, []byte(`name: d
tenancy: {model: schema}
workload:
  name: tpcb
  duration: 2s
  load: {shape: open, rate: 5}
  sla: {min_rate_ratio: 0.5, p95: 20s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(binary, "density", specPath, "--out", out, "--max", "2", "--max-runs", "3")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("density: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "density.csv"))
	if len(rows) != 1 || rows[0]["model"] != "schema" || rows[0]["tenants_found"] != "2" || rows[0]["exact"] != "true" ||
		rows[0]["probes"] != "2" || rows[0]["probe_list"] != "1:fits;2:fits" {
		t.Fatalf("density.csv %v\n%s", rows, b)
	}
	if cpu := num(t, rows[0]["cpu_pct"]); cpu <= 0 || cpu > 100 {
		t.Errorf("cpu_pct %v", cpu)
	}
	probes := readCSV(t, filepath.Join(out, "probes.csv"))
	if len(probes) != 2 {
		t.Fatalf("probes.csv %v", probes)
	}
	for _, p := range probes {
		res := readCSV(t, filepath.Join(p["results"], "results.csv"))
		if len(res) != 1 || res[0]["tenants"] != p["tenants"] || res[0]["sla_met"] != "true" {
			t.Errorf("probe of %s tenants: results.csv %v", p["tenants"], res)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "density.md"))
	if err != nil || !strings.Contains(string(md), "| schema | 2 |") {
		t.Errorf("density.md: %v\n%s", err, md)
	}
	// The search's own report: its table, and a link to each probe's.
	html, err := os.ReadFile(filepath.Join(out, "report", "report.html"))
	if err != nil || !strings.Contains(string(html), `<section id="density">`) ||
		!strings.Contains(string(html), `<a href="../probes/schema-2/report/report.html">schema-2</a>`) {
		t.Errorf("the search's report.html: %v", err)
	}
}
