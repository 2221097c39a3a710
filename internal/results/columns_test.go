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
		if !strings.HasPrefix(name, "set_") && !strings.Contains(string(docs), "`"+name+"`") {
			t.Errorf("docs/results.md does not document %s", name)
		}
	}
	s := observedSummary()
	s.Settings = map[string]string{"work_mem": "4MB"}
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
	if _, ok := ColumnOf("no_such_column"); ok {
		t.Error("an undeclared column has a declaration")
	}
}

// observedSummary is the summary of the observations of summarize_test.
func observedSummary() *Summary { return Summarize(monitored(observed())) }
