package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestIsolationTable: the report lists each probe's outcome per model,
// from the first run of each model that has isolation.csv, "–" for a
// probe a model's file lacks; without any isolation.csv there is no such
// section.
func TestIsolationTable(t *testing.T) {
	path := synth{}.write(t)
	must(t, Write(path))
	if md := readFile(t, filepath.Join(path, Subdir, "summary.md")); strings.Contains(md, "Isolation audit") {
		t.Fatal("an isolation section without any isolation.csv")
	}
	tab, err := results.ReadTable(filepath.Join(path, "results.csv"))
	must(t, err)
	first := map[string]string{} // model -> its first run
	for i := range tab.Rows {
		if m := tab.Get(i, "model"); first[m] == "" {
			first[m] = tab.Get(i, "run_id")
		}
	}
	h := results.IsolationHeader
	writeCSV(t, filepath.Join(path, "runs", first["schema"], results.IsolationFile), [][]string{h,
		{"schema", "read: direct", "denied", "42501 permission denied for schema t02"},
		{"schema", "metadata: table names", "visible", "pg_class lists t02's table"}})
	writeCSV(t, filepath.Join(path, "runs", first["database"], results.IsolationFile), [][]string{h,
		{"database", "read: direct", "denied", "42P01"}})
	must(t, Write(path))
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	i := strings.Index(md, "## Isolation audit\n")
	if i < 0 {
		t.Fatalf("summary.md has no isolation audit:\n%s", md)
	}
	sec := md[i:]
	for _, want := range []string{"| probe | schema | database |", "| read: direct | denied | denied |",
		"| metadata: table names | visible | – |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("isolation table lacks %q:\n%s", want, sec)
		}
	}
	if html := readFile(t, filepath.Join(path, Subdir, "report.html")); !strings.Contains(html, `<section id="isolation">`) {
		t.Error("report.html has no isolation section")
	}

	// The same runs, planned with guards: each column names them, from
	// plan.json.
	writePlan(t, path, strings.Replace(synthSpec, "  tenants: [1, 2]\n", "  tenants: [1, 2]\n  guards: [connection_limit, lock_timeout]\n", 1))
	must(t, Write(path))
	md = readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if want := "| probe | schema (guards: connection_limit, lock_timeout) | database (guards: connection_limit, lock_timeout) |"; !strings.Contains(md, want) {
		t.Errorf("isolation table lacks %q:\n%s", want, md[strings.Index(md, "## Isolation audit\n"):])
	}
}
