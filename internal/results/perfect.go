package results

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// PerfectColumns are the results.csv columns of Zhang et al.'s (2025)
// seven scores (section II-G), in Table IX's order of eq. 8's factors: P,
// T, E1, E2 over R, F, C. c_score_ms comes with the replication lag
// workload; until a run writes it, no O-Score.
var PerfectColumns = []string{"p_score", "t_score", "e1_score", "e2_score", "r_score_s", "f_score_s", "c_score_ms"}

// Perfect are an experiment's seven scores as one row of Zhang et al.'s
// (2025) Table IX: each the mean over the successful runs that have it
// (the paper averages P over its RO, RW and WO patterns, E1 and T over
// theirs, F and R over RW and RO failure: Tables V-VIII), by column; Runs
// how many runs each mean is over; SF the runs' scale (eq. 8's scale
// factor) when they share one; O the O-Score when all seven are there
// and positive, else Why says what is missing.
type Perfect struct {
	Scores map[string]float64
	Runs   map[string]int
	SF     float64
	O      *float64
	Why    string
}

// PerfectOf is the row of rows (one experiment's results.csv runs).
func PerfectOf(rows []ResultRow) Perfect {
	p := Perfect{Scores: map[string]float64{}, Runs: map[string]int{}}
	sum := map[string]float64{}
	scales := map[float64]bool{}
	for _, r := range rows {
		if r.Status != StatusOK {
			continue
		}
		scales[r.Scale] = true
		for _, c := range PerfectColumns {
			if v, ok := r.Extra[c]; ok {
				sum[c] += v
				p.Runs[c]++
			}
		}
	}
	for c, n := range p.Runs {
		p.Scores[c] = sum[c] / float64(n)
	}
	if len(scales) == 1 {
		for s := range scales {
			p.SF = s
		}
	}
	var missing []string
	for _, c := range PerfectColumns {
		if p.Runs[c] == 0 {
			missing = append(missing, c)
		}
	}
	switch {
	case len(missing) > 0:
		p.Why = fmt.Sprintf("no O-Score: no run has %v", missing)
		return p
	case p.SF == 0:
		p.Why = "no O-Score: the runs differ in scale, and eq. 8 takes one scale factor"
		return p
	}
	s := p.Scores
	// C in seconds: Table IX reproduces so (metrics.OScore).
	o, err := metrics.OScore(p.SF, metrics.Perfect{P: s["p_score"], T: s["t_score"], E1: s["e1_score"], E2: s["e2_score"],
		R: s["r_score_s"], F: s["f_score_s"], C: s["c_score_ms"] / 1000})
	if err != nil {
		p.Why = "no O-Score: " + err.Error()
		return p
	}
	p.O = &o
	return p
}
