package isolation

// File is the audit's results file in a run's directory,
// runs/<id>/isolation.csv: one row per probe, with Header's columns.
const File = "isolation.csv"

// Header is the columns of File: the run's tenancy model, the probe's
// name, its outcome (denied, visible or possible) and the evidence.
var Header = []string{"model", "probe", "outcome", "evidence"}

// Rows are findings as File's rows, header first.
func Rows(model string, fs []Finding) [][]string {
	rows := [][]string{Header}
	for _, f := range fs {
		rows = append(rows, []string{model, f.Probe, string(f.Outcome), f.Evidence})
	}
	return rows
}
