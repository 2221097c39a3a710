package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestCPUSplitTable: a run whose summary has background and foreground
// CPU gets Oracle 2014's Table 5 rows, the run's and each instance's;
// runs without them get none, and without any there is no section.
func TestCPUSplitTable(t *testing.T) {
	path := synth{}.write(t)
	must(t, Write(path))
	if md := readFile(t, filepath.Join(path, Subdir, "summary.md")); strings.Contains(md, "Background and foreground CPU") {
		t.Fatal("a CPU split section without any run's shares")
	}
	p := filepath.Join(path, "runs", "001", "summary.json")
	var sum results.Summary
	b, err := os.ReadFile(p)
	must(t, err)
	must(t, json.Unmarshal(b, &sum))
	f := func(v float64) *float64 { return &v }
	sum.Provider.CPUBackgroundPct, sum.Provider.CPUForegroundPct, sum.Provider.CPUServersPct = f(20), f(40), f(64)
	sum.Instances = []results.Instance{
		{Name: "i01", Tenants: []string{"t01"}, CPUBackgroundPct: f(12), CPUForegroundPct: f(18), CPUPct: f(31)},
		{Name: "i02", Tenants: []string{"t02"}, CPUBackgroundPct: f(8), CPUForegroundPct: f(22), CPUPct: f(33)}}
	b, err = json.Marshal(&sum)
	must(t, err)
	must(t, os.WriteFile(p, b, 0o644))
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	i := strings.Index(md, "## Background and foreground CPU\n")
	if i < 0 {
		t.Fatalf("summary.md has no CPU split section:\n%s", md)
	}
	sec := md[i:]
	if j := strings.Index(sec[1:], "\n## "); j >= 0 {
		sec = sec[:j+1]
	}
	for _, want := range []string{"| 001 | " + sum.Model + " | 1 | (all) | 20.0 | 40.0 | 64.0 | 31 |",
		"| 001 | " + sum.Model + " | 1 | i01 | 12.0 | 18.0 | 31.0 | 39 |", "| 001 | " + sum.Model + " | 1 | i02 | 8.0 | 22.0 | 33.0 | 24 |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("CPU split table lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "| 002 |") {
		t.Errorf("a row for a run without shares:\n%s", sec)
	}
	if html := readFile(t, filepath.Join(path, Subdir, "report.html")); !strings.Contains(html, `<section id="cpu-split">`) {
		t.Error("report.html has no CPU split section")
	}
}
