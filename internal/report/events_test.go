package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestReportInterference: a run with interference gets a row per
// occurrence in the Interference table (F and R of a fault, requested and
// achieved load of a noise) and the figure of its tenants' throughput with
// the events on it; a report without any has neither.
func TestReportInterference(t *testing.T) {
	path := synth{}.write(t)
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(path, Subdir, "summary.md"))
	if strings.Contains(md, "## Interference") {
		t.Error("a report without interference has an Interference table")
	}
	dir, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := dir.ReadSummary("003")
	if err != nil {
		t.Fatal(err)
	}
	p := func(f float64) *float64 { return &f }
	sum.Events = []results.Event{
		{AtS: 4, EndS: 4.6, Kind: "restart", Target: "shared", Fault: true, Tenants: []string{"t01", "t02"},
			ResumedS: p(5.25), FS: p(1.25), RS: p(2.75), Observed: "log: ready 03:05:39.100"},
		{AtS: 1, EndS: 3, Kind: "cpu", Target: "host", Params: "load=30%;share=false", Requested: p(30), Achieved: p(28.5)},
	}
	if err := dir.WriteJSON(filepath.Join("runs", "003", "summary.json"), sum); err != nil {
		t.Fatal(err)
	}
	if err := Write(path); err != nil {
		t.Fatal(err)
	}
	md = readFile(t, filepath.Join(path, Subdir, "summary.md"))
	for _, want := range []string{
		"| 003 | 4.000 | restart | shared |  | 1.250 | 2.750 |  |  | log: ready 03:05:39.100 |",
		"| 003 | 1.000 | cpu | host | load=30%;share=false |  |  | 30.000 | 28.500 |  |",
		"](interference.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(path, Subdir, "interference.png")); err != nil {
		t.Error(err)
	}
}
