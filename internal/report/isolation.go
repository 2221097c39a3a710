package report

import (
	"strings"

	"github.com/tenantbench/tenantbench/internal/results"
)

// isolationTable lists, per probe, the outcome of the isolation audit in
// each model and set of tenancy guards: from the first run of the model
// with those guards (in plan order) that has runs/<id>/isolation.csv, so
// that a model's outcomes with and without guards stand side by side. Nil
// when no run has one.
func (e *experiment) isolationTable() *table {
	var models, probes, ids []string
	cell := map[[2]string]string{} // probe, model -> outcome
	for _, r := range e.runs {
		id, model := r.row.RunID, r.row.Model
		if pr := e.planRun(id); pr != nil && len(pr.Guards) > 0 {
			model += " (guards: " + strings.Join(pr.Guards, ", ") + ")"
		}
		if !e.dir.HasRunFile(id, results.IsolationFile) || contains(models, model) {
			continue
		}
		t, err := results.ReadTable(e.dir.RunFile(id, results.IsolationFile))
		if err != nil {
			e.warn("run %s: %v", id, err)
			continue
		}
		if !t.Has("probe") || !t.Has("outcome") {
			e.warn("run %s: %s has no probe or outcome column", id, results.IsolationFile)
			continue
		}
		models = append(models, model)
		ids = append(ids, "run "+id)
		for i := range t.Rows {
			p := t.Get(i, "probe")
			if !contains(probes, p) {
				probes = append(probes, p)
			}
			cell[[2]string{p, model}] = t.Get(i, "outcome")
		}
	}
	if len(models) == 0 {
		return nil
	}
	t := newTable("Isolation audit (isolation.csv)", append([]string{"probe"}, models...)...)
	t.Note = "From one tenant's role against another tenant of the same run: denied, visible (the other tenant's data or " +
		"metadata was seen) or possible (the other tenant could be stalled, crowded out or disconnected). Some are " +
		"properties of a model rather than faults. A column names the tenancy guards that were on (tenancy.guards); " +
		"one that names none had none. Each column is from the first run of its model and guards with the audit (" +
		strings.Join(ids, ", ") + "), whose isolation.csv holds the evidence. –: not probed."
	for _, p := range probes {
		row := []string{p}
		for _, m := range models {
			v, ok := cell[[2]string{p, m}]
			if !ok {
				v = "–"
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
