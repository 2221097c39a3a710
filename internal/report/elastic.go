package report

import (
	"math"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/results"
)

// elasticTable is the elasticity of each run whose servers' limits changed
// (runs/<id>/limits.csv: sut.resources.schedule or autoscale), as Zhang et
// al. (2025) report theirs (section III-C, Table VI and Fig. 6): how often
// the limits changed, the CPU quota's range, what the limits held over the
// measured part and cost, and E1. nil when no run changed its limits.
func (e *experiment) elasticTable() *table {
	t := newTable("Elasticity", "run", "model", "tenants", "changes", "CPUs from", "CPUs to", "CPU-s held",
		"GB-s held", "cost (USD)", "throughput (tx/s)", "E1-Score").numbers(2, 3, 4, 5, 6, 7, 8, 9, 10)
	t.ID = "elasticity"
	for _, r := range e.runs {
		if !e.dir.HasRunFile(r.row.RunID, "limits.csv") {
			continue
		}
		tab, err := results.ReadTable(e.dir.RunFile(r.row.RunID, "limits.csv"))
		if err != nil {
			e.warn("%v", err)
			continue
		}
		changes, lo, hi := 0, math.Inf(1), math.Inf(-1)
		for i := range tab.Rows {
			reason := tab.Get(i, "reason")
			if reason == "restore" || tab.Get(i, "error") != "" {
				continue
			}
			if reason != "start" {
				changes++
			}
			if c, err := tab.Float(i, "cpus_new"); err == nil {
				lo, hi = math.Min(lo, c), math.Max(hi, c)
			}
		}
		row := []string{r.row.RunID, r.row.Model, strconv.Itoa(r.row.Tenants), strconv.Itoa(changes), "", "", "", "", "", "", ""}
		if hi >= lo {
			row[4], row[5] = fmtNum(lo), fmtNum(hi)
		}
		if r.ok() {
			row[9] = fmtNum(r.row.TPS)
		}
		if s := r.summary; s != nil && s.Provider.Elastic != nil {
			el := s.Provider.Elastic
			row[6], row[7] = fmtNum(el.CPUSeconds), fmtNum(el.MemoryGBSeconds)
			row[8] = strconv.FormatFloat(el.USD, 'f', 6, 64)
			row[10] = optNum(s.Provider.E1Score)
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Note = "Runs whose servers' limits changed during the workload phase (sut.resources.schedule or autoscale; " +
		"runs/<id>/limits.csv): the changes made (start and restore left out), the least and the most CPUs of quota " +
		"given, what the limits held over the measured part (CPU-seconds of quota and GB-seconds of memory, summed " +
		"over the servers; measured use where a server had no limit), its cost at Table III's prices, and E1 = " +
		"throughput / cost (Zhang et al. 2025, eq. 2, section III-C, Table VI and Fig. 6; docs/metrics.md)."
	return t
}
