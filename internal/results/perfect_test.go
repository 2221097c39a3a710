package results

import (
	"math"
	"strings"
	"testing"
)

// TestPerfectOf builds Table IX's CDB3 row from constructed runs: each
// score spread over the runs that measured it, as perfect.yaml's seven
// tests would write them.
func TestPerfectOf(t *testing.T) {
	row := func(status string, scale float64, extra map[string]float64) ResultRow {
		return ResultRow{Status: status, Scale: scale, Extra: extra}
	}
	rows := []ResultRow{
		// P over three patterns: mean 217002.
		row(StatusOK, 1, map[string]float64{"p_score": 217002 - 100, "t_score": 75377, "e1_score": 286643}),
		row(StatusOK, 1, map[string]float64{"p_score": 217002 + 100}),
		row(StatusOK, 1, map[string]float64{"p_score": 217002, "f_score_s": 12, "r_score_s": 30}),
		row(StatusOK, 1, map[string]float64{"f_score_s": 6, "r_score_s": 6}), // RW and RO failure: F 9, R 18
		row(StatusOK, 1, map[string]float64{"e2_score": 4, "c_score_ms": 14}),
		row(StatusFailed, 1, map[string]float64{"p_score": 1}), // a failed run is no point
	}
	p := PerfectOf(rows)
	if p.Scores["p_score"] != 217002 || p.Runs["p_score"] != 3 || p.Scores["f_score_s"] != 9 || p.Scores["r_score_s"] != 18 || p.SF != 1 {
		t.Fatalf("%+v", p)
	}
	if p.O == nil || math.Abs(*p.O-15.918) > 0.0006 {
		t.Fatalf("O-Score %v (%s), want 15.918 (Table IX prints 15.92)", deref(p.O), p.Why)
	}
	// Without C: no O-Score, and why.
	p = PerfectOf(rows[:4])
	if p.O != nil || !strings.Contains(p.Why, "c_score_ms") || !strings.Contains(p.Why, "e2_score") {
		t.Errorf("without C and E2: %+v", p)
	}
	// Two scales: no one SF.
	rows[1].Scale = 10
	if p := PerfectOf(rows); p.O != nil || !strings.Contains(p.Why, "scale") {
		t.Errorf("two scales: %+v", p)
	}
}
