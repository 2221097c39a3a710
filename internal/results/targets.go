package results

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// TargetsFile is the per-second target of a run whose load follows a
// schedule or pattern: what the plan asked of all tenants together, in
// each second of the workload phase.
const TargetsFile = "targets.csv"

// WriteTargets writes runs/<id>/targets.csv: a row per second of the
// workload phase (t_s from its start) with the target summed over the
// run's tenants, in clients or arrivals per second.
func (d *Dir) WriteTargets(id string, perSecond []float64) error {
	rows := make([][]string, len(perSecond))
	for i, v := range perSecond {
		rows[i] = []string{strconv.Itoa(i), ftoa(v)}
	}
	return d.writeCSV(filepath.Join("runs", id, TargetsFile), []string{"t_s", "target"}, rows)
}

// ReadTargets reads runs/<id>/targets.csv back: the target of each second.
func (d *Dir) ReadTargets(id string) ([]float64, error) {
	t, err := ReadTable(d.RunFile(id, TargetsFile))
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(t.Rows))
	for i := range t.Rows {
		v, err := strconv.ParseFloat(t.Get(i, "target"), 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: target %q is not a number", TargetsFile, i+2, t.Get(i, "target"))
		}
		out[i] = v
	}
	return out, nil
}
