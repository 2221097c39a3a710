package report

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/tenantbench/tenantbench/internal/results"
)

// classesTable breaks every run down by its tenants' classes, from
// classes.csv: a row per run and class with the class's throughput,
// latency and SLA attainment. Nil when the experiment has no classes.
func (e *experiment) classesTable() *table {
	t, err := results.ReadTable(filepath.Join(e.dir.Path, "classes.csv"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		e.warn("%v", err)
		return nil
	}
	for _, c := range []string{"run_id", "class", "throughput_tps"} {
		if !t.Has(c) {
			e.warn("classes.csv has no column %s", c)
			return nil
		}
	}
	out := newTable("Tenant classes (classes.csv)", "run", "model", "tenants", "class", "class tenants", "status",
		"throughput (tps)", "mean latency (ms)", "p95 (ms)", "p99 (ms)", "SLA met").numbers(2, 4, 6, 7, 8, 9)
	out.Note = "Each run broken down by the classes of its tenants (tenancy.classes): the class's summed throughput, " +
		"the macro-average of its tenants' mean latency and its worst tenant's p95 and p99, as results.csv aggregates the run. " +
		"SLA met: how many of the class's tenants with an SLA met it (workload.sla or the class's); –: no SLA."
	for i := range t.Rows {
		sla := "–"
		if n := t.Get(i, "sla_tenants"); n != "" {
			sla = t.Get(i, "sla_met_tenants") + " of " + n
		}
		out.Rows = append(out.Rows, []string{t.Get(i, "run_id"), t.Get(i, "model"), t.Get(i, "tenants"), t.Get(i, "class"),
			t.Get(i, "class_tenants"), t.Get(i, "status"), t.Get(i, "throughput_tps"), t.Get(i, "latency_mean_ms"),
			t.Get(i, "latency_p95_ms"), t.Get(i, "latency_p99_ms"), sla})
	}
	return out
}
