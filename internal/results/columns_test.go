package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestColumnsDeclared: every results.csv column has one declaration with
// a title and a source, and docs/results.md documents it; a column added
// to the header without a declaration, or a row written with another
// number of cells than the header, fails here.
func TestColumnsDeclared(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Create(filepath.Join(t.TempDir(), "out"), []string{"work_mem"})
	if err != nil {
		t.Fatal(err)
	}
	d.SetInterferenceKeys([]string{"interference[0].load"})
	seen := map[string]bool{}
	for _, name := range d.ResultsHeader() {
		c, ok := ColumnOf(name)
		switch {
		case !ok:
			t.Errorf("column %s has no declaration (columns.go)", name)
		case c.Title == "" || c.Source == "":
			t.Errorf("column %s: title %q, source %q", name, c.Title, c.Source)
		case seen[name]:
			t.Errorf("column %s twice", name)
		}
		seen[name] = true
		if !strings.HasPrefix(name, "set_") && !IsInterferenceColumn(name) && !strings.Contains(string(docs), "`"+name+"`") {
			t.Errorf("docs/results.md does not document %s", name)
		}
	}
	s := observedSummary()
	s.Settings = map[string]string{"work_mem": "4MB"}
	s.Interference = map[string]string{"interference[0].load": "30"}
	if err := d.AppendResult(s); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 1 || len(tab.Rows[0]) != len(tab.Header) {
		t.Fatalf("results.csv: %d rows, header %d cells, row %v", len(tab.Rows), len(tab.Header), tab.Rows)
	}
	// The interference column follows the settings', before status.
	if h := strings.Join(tab.Header, ","); !strings.Contains(h, "repetition,set_work_mem,interference[0].load,status") {
		t.Errorf("header %s", h)
	}
	rows, err := d.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Interference["interference[0].load"] != "30" {
		t.Errorf("read back: %+v", rows)
	}
	if _, ok := ColumnOf("no_such_column"); ok {
		t.Error("an undeclared column has a declaration")
	}
}

// observedSummary is the summary of the observations of summarize_test.
func observedSummary() *Summary { return Summarize(monitored(observed())) }
