package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// addQueryFiles gives every run of a synthetic directory the files of a
// run of query streams: queries.csv with q01 and q06 per tenant (q01 takes
// 1 s under schema, 2 s under database) and results.csv's TPC-H columns.
func addQueryFiles(t *testing.T, path string) {
	t.Helper()
	dir, err := results.Open(path)
	must(t, err)
	rows, err := dir.ReadResults()
	must(t, err)
	for _, r := range rows {
		q1 := map[string]float64{"schema": 1, "database": 2}[r.Model]
		out := [][]string{{"run_id", "tenant", "query", "executions", "failed", "mean_s", "min_s", "max_s", "geomean_s"}}
		for k := range r.Tenants {
			tn := fmt.Sprintf("t%02d", k+1)
			out = append(out, []string{r.RunID, tn, "q01", "2", "0", fmt.Sprint(q1), fmt.Sprint(q1), fmt.Sprint(q1), fmt.Sprint(q1)},
				[]string{r.RunID, tn, "q06", "2", "0", "0.5", "0.5", "0.5", "0.5"})
		}
		writeCSV(t, dir.RunFile(r.RunID, "queries.csv"), out)
	}
	setColumn(t, filepath.Join(path, "results.csv"), func(tab *results.Table, i int, col string) (string, bool) {
		switch col {
		case "power_at_size", "throughput_at_size", "e_cpu", "e_ram":
			return fmt.Sprint(100 * (i + 1)), true
		}
		return "", false
	}, "power_at_size", "throughput_at_size", "e_cpu", "e_ram")
}

// TestReportQueries: a run of query streams gets the TPC-H figures, the
// query times one group per query and one bar per model; other runs do
// not.
func TestReportQueries(t *testing.T) {
	path := synth{}.write(t)
	must(t, Write(path))
	if _, err := os.Stat(filepath.Join(path, Subdir, "query-times.svg")); err == nil {
		t.Error("a report without queries.csv has a query figure")
	}
	addQueryFiles(t, path)
	must(t, Write(path))
	for _, id := range []string{"query-times", "power-at-size", "throughput-at-size", "e-cpu", "e-ram"} {
		if _, err := os.Stat(filepath.Join(path, Subdir, id+".svg")); err != nil {
			t.Errorf("figure %s: %v", id, err)
		}
	}
	svg := readFile(t, filepath.Join(path, Subdir, "query-times.svg"))
	for _, want := range []string{"q01", "q06", "schema", "database", "Query execution times, 2 tenants"} {
		if !strings.Contains(svg, want) {
			t.Errorf("query-times.svg lacks %q", want)
		}
	}
	html := readFile(t, filepath.Join(path, Subdir, "report.html"))
	if !strings.Contains(html, "Query streams (Erdelt and Rabl 2026") || !strings.Contains(html, "across tenants and repetitions") {
		t.Error("report.html lacks the query streams section or its caption")
	}
}

// TestQueriesInChromium opens a report with the TPC-H figures.
func TestQueriesInChromium(t *testing.T) {
	chromiumPath(t)
	path := synth{}.write(t)
	addQueryFiles(t, path)
	must(t, Write(path))
	checkInBrowser(t, path)
}
