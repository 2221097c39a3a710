package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAggregateRuns(t *testing.T) {
	run := func(id string, rep int, status string, tps, cpu float64) *Summary {
		s := &Summary{RunID: id, Model: "schema", Tenants: 2, Scale: 1, Clients: 4, Repetition: rep, Status: status,
			Provider: Aggregate{TPS: tps, MeanMs: tps / 100, Committed: int64(tps * 10), TPM: tps * 60}}
		if cpu > 0 {
			s.Provider.CPUS = ptr(cpu)
		}
		return s
	}
	agg := AggregateRuns([]*Summary{run("004", 1, StatusOK, 100, 10), run("005", 2, StatusOK, 200, 20), run("006", 3, StatusOK, 300, 30)})
	if agg.RunID != "004-006" || agg.Status != StatusOK || agg.Repetition != AggregateRepetition {
		t.Errorf("aggregate = %+v", agg)
	}
	p := agg.Provider
	if p.TPS != 200 || p.MeanMs != 2 || p.Committed != 2000 || p.TPM != 12000 || p.CPUS == nil || math.Abs(*p.CPUS-20) > 1e-9 {
		t.Errorf("means = %+v (cpu %v), want tps 200, mean 2 ms, committed 2000, cpu 20", p, p.CPUS)
	}
	// a failed repetition is left out of the means and fails the point;
	// a figure one repetition lacks stays absent
	agg = AggregateRuns([]*Summary{run("001", 1, StatusOK, 100, 10), run("002", 2, StatusFailed, 5, 0), run("003", 3, StatusOK, 300, 0)})
	if agg.Status != StatusFailed || agg.Provider.TPS != 200 || agg.Provider.CPUS != nil || agg.Error == "" {
		t.Errorf("aggregate with a failed repetition = %+v", agg)
	}
	if AggregateRuns(nil) != nil {
		t.Error("aggregate of no runs")
	}

	d, err := Create(filepath.Join(t.TempDir(), "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendResult(agg); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(d.Path, "results.csv"))
	if !strings.Contains(string(b), "\n001-003,schema,2,1,4,mean,failed,200,") {
		t.Errorf("results.csv aggregate row:\n%s", b)
	}
}

// A point none of whose repetitions succeeded measured nothing: its mean
// row's figures are empty in results.csv, not 0.
func TestAggregateOfFailedRunsIsEmpty(t *testing.T) {
	failed := &Summary{RunID: "001", Model: "schema", Tenants: 2, Scale: 1, Clients: 4, Repetition: 1, Status: StatusFailed,
		Phases: []Phase{{Tenant: "t01", Phase: "provision", End: 1, Status: "failed"}}}
	failed.Provider = AggregateOf(nil, failed.Phases)
	d, err := Create(filepath.Join(t.TempDir(), "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Summary{failed, AggregateRuns([]*Summary{failed})} {
		if err := d.AppendResult(s); err != nil {
			t.Fatal(err)
		}
	}
	tab, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Get(0, "provision_s"); got != "1" {
		t.Errorf("the failed run's provision_s = %q, want 1 (it ran)", got)
	}
	for i := range tab.Rows {
		for _, col := range []string{"throughput_tps", "latency_p99_ms", "committed", "failed", "setup_s", "workload_s", "tpm", "fairness_jain"} {
			if v := tab.Get(i, col); v != "" {
				t.Errorf("row %s: %s = %q, want empty", tab.Get(i, "run_id"), col, v)
			}
		}
	}
	rows, err := d.ReadResults() // the mean row is not a run
	if err != nil || len(rows) != 1 || rows[0].TPS != 0 || rows[0].ProvisionS != 1 || rows[0].Status != StatusFailed {
		t.Errorf("ReadResults of empty cells: %+v, %v", rows, err)
	}
}
