package isolation

import "github.com/tenantbench/tenantbench/internal/results"

// File is the audit's results file in a run's directory,
// runs/<id>/isolation.csv; its format is the results package's.
const File = results.IsolationFile

// Header is the columns of File.
var Header = results.IsolationHeader

// Rows are findings as File's rows, header first.
func Rows(model string, fs []Finding) [][]string {
	rows := [][]string{Header}
	for _, f := range fs {
		rows = append(rows, []string{model, f.Probe, string(f.Outcome), f.Evidence})
	}
	return rows
}
