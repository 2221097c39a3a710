package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// PerfectColumns are the results.csv columns of Zhang et al.'s (2025)
// seven scores (section II-G), in Table IX's order of eq. 8's factors: P,
// T, E1, E2 over R, F, C (metrics.PerfectScores, one for one). c_score_ms comes with the replication lag
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

// PerfectOf is the row of rows (one experiment's results.csv runs),
// every score from every run that has it.
func PerfectOf(rows []ResultRow) Perfect { return PerfectMeasured(rows, nil) }

// PerfectMeasured is the row of rows where measures, by run ID, says
// which scores (metrics.PerfectScores: "P", "E1", ...) each run measures
// (plan.json's scores, from its case): when any run says, a score is
// the mean over the runs that say it only, so that the P-Score comes from
// the OLTP test and not from the lag test's run, which has one too. A
// run saying none then gives none; nil measures: every run every score
// it has (PerfectOf). An aggregate row ("001-003") is its first run's.
func PerfectMeasured(rows []ResultRow, measures map[string][]string) Perfect {
	p := Perfect{Scores: map[string]float64{}, Runs: map[string]int{}}
	sum := map[string]float64{}
	scales := map[float64]bool{}
	picked := false
	for _, m := range measures {
		picked = picked || len(m) > 0
	}
	for _, r := range rows {
		if r.Status != StatusOK {
			continue
		}
		first, _, _ := strings.Cut(r.RunID, "-")
		var cols []string
		for _, sc := range measures[first] {
			if i := slices.Index(metrics.PerfectScores, sc); i >= 0 {
				cols = append(cols, PerfectColumns[i])
			}
		}
		if picked && len(cols) == 0 {
			continue // a run of none of the seven tests
		}
		scales[r.Scale] = true
		for _, c := range PerfectColumns {
			if picked && !slices.Contains(cols, c) {
				continue
			}
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
