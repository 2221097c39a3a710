package report

import (
	"strconv"

	"github.com/tenantbench/tenantbench/internal/results"
)

// perfectTable is Zhang et al.'s (2025) Table IX for this experiment: its
// seven scores and the O-Score (results.PerfectOf); nil when fewer than
// four of the seven were measured (an experiment that is not about them).
// Compare puts several experiments' rows side by side.
func (e *experiment) perfectTable() *table {
	var rows []results.ResultRow
	for _, r := range e.runs {
		rows = append(rows, r.row)
	}
	// The scores each run measures, from its case (plan.json).
	var measures map[string][]string
	if e.plan != nil {
		measures = map[string][]string{}
		for _, r := range e.plan.Runs {
			measures[r.ID] = r.Scores
		}
	}
	p := results.PerfectMeasured(rows, measures)
	if len(p.Scores) < 4 {
		return nil
	}
	t := newTable("PERFECT scores (Zhang et al. 2025, Table IX)", "system", "P-Score", "T-Score", "E1-Score",
		"E2-Score", "R-Score (s)", "F-Score (s)", "C-Score (ms)", "SF", "O-Score").numbers(1, 2, 3, 4, 5, 6, 7, 8, 9)
	t.ID = "perfect"
	cells := []string{e.name}
	for _, c := range results.PerfectColumns {
		if n := p.Runs[c]; n > 0 {
			cells = append(cells, fmtNum(p.Scores[c])+" ("+strconv.Itoa(n)+")")
		} else {
			cells = append(cells, "")
		}
	}
	sf, o := "", ""
	if p.SF > 0 {
		sf = fmtNum(p.SF)
	}
	if p.O != nil {
		o = strconv.FormatFloat(*p.O, 'f', 2, 64)
	}
	t.Rows = append(t.Rows, append(cells, sf, o))
	t.Note = "Each score is the mean over the successful runs that measured it (their number in brackets; with the " +
		"cases' scores, over the runs of the cases that name it), as " +
		"Zhang et al. (2025) average P over their RO, RW and WO patterns and F and R over RW and RO failure; " +
		"O-Score = SF x lg(P x T x E1 x E2 / (R x F x C)) (eq. 8) with C in seconds, as Table IX reproduces " +
		"(docs/metrics.md). "
	if p.O == nil {
		t.Note += p.Why + "."
	}
	return t
}
