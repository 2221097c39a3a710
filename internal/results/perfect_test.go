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

// TestPerfectMeasured: with the scores each run measures (its case's),
// a score is the mean over the runs that name it only: the lag run's and
// the scale-out runs' P-Scores are not the OLTP test's, and a run that
// names none (or a failed one) gives nothing, its scale included. An
// aggregate row is its first run's.
func TestPerfectMeasured(t *testing.T) {
	row := func(id string, scale float64, extra map[string]float64) ResultRow {
		return ResultRow{RunID: id, Status: StatusOK, Scale: scale, Extra: extra}
	}
	rows := []ResultRow{
		row("001", 1, map[string]float64{"p_score": 217002, "t_score": 75377}),
		row("002", 1, map[string]float64{"p_score": 9, "t_score": 9, "e1_score": 286643}),
		row("003", 1, map[string]float64{"p_score": 9, "t_score": 9, "f_score_s": 9, "r_score_s": 18}),
		row("004", 1, map[string]float64{"p_score": 9, "t_score": 9, "c_score_ms": 14}),
		row("005", 1, map[string]float64{"p_score": 9, "t_score": 9, "e2_score": 4}),
		row("006-007", 1, map[string]float64{"p_score": 9, "t_score": 9, "e2_score": 4}),
		row("008", 5, map[string]float64{"p_score": 9}), // a run of no test, at another scale
	}
	measures := map[string][]string{"001": {"P", "T"}, "002": {"E1"}, "003": {"F", "R"}, "004": {"C"}, "005": {"E2"}, "006": {"E2"}}
	p := PerfectMeasured(rows, measures)
	if p.Scores["p_score"] != 217002 || p.Runs["p_score"] != 1 || p.Scores["t_score"] != 75377 || p.Runs["e2_score"] != 2 || p.SF != 1 {
		t.Fatalf("%+v", p)
	}
	if p.O == nil || math.Abs(*p.O-15.918) > 0.0006 {
		t.Fatalf("O-Score %v (%s), want 15.918 (Table IX's CDB3)", deref(p.O), p.Why)
	}
	// No run names a score: every run every score it has.
	if p := PerfectMeasured(rows, map[string][]string{"001": nil}); p.Runs["p_score"] != 7 || p.SF != 0 {
		t.Errorf("without scores: %+v", p)
	}
}
