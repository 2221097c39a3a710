package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestClassesTable: the report breaks runs down by class from
// classes.csv, with each class's SLA attainment; without the file there
// is no such section.
func TestClassesTable(t *testing.T) {
	path := synth{}.write(t)
	must(t, Write(path))
	if md := readFile(t, filepath.Join(path, Subdir, "summary.md")); strings.Contains(md, "Tenant classes") {
		t.Fatal("a classes section without classes.csv")
	}
	writeCSV(t, filepath.Join(path, "classes.csv"), [][]string{results.ClassesHeader,
		{"001", "schema", "2", "small", "1", "ok", "120.5", "1.5", "3", "4", "0", "0", "1", "1"},
		{"001", "schema", "2", "large", "1", "ok", "30", "9", "20", "25", "0", "0", "1", "0"},
		{"002", "schema", "2", "small", "1", "ok", "110", "1.7", "3.5", "4", "0", "0", "", ""}})
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	i := strings.Index(md, "## Tenant classes\n")
	if i < 0 {
		t.Fatalf("summary.md has no classes section:\n%s", md)
	}
	for _, want := range []string{"| 001 | schema | 2 | small | 1 | ok | 120.5 | 1.5 | 3 | 4 | 1 of 1 |",
		"| 001 | schema | 2 | large | 1 | ok | 30 | 9 | 20 | 25 | 0 of 1 |", "| 002 | schema | 2 | small | 1 | ok | 110 | 1.7 | 3.5 | 4 | – |"} {
		if !strings.Contains(md[i:], want) {
			t.Errorf("classes table lacks %q:\n%s", want, md[i:])
		}
	}
	if html := readFile(t, filepath.Join(path, Subdir, "report.html")); !strings.Contains(html, `<section id="classes">`) {
		t.Error("report.html has no classes section")
	}
}
