package metrics

import (
	"math"
	"testing"
)

// TestFScoreRScore: eq. 3 and 4 on two failures, worked by hand:
// injected at 20 s and 50 s, service back at 22.5 s and 51 s, throughput
// back at 26 s and 54 s. F = ((22.5-20) + (51-50)) / 2 = 1.75 s;
// R = ((26-22.5) + (54-51)) / 2 = 3.25 s.
func TestFScoreRScore(t *testing.T) {
	tf, ts, tr := []float64{20, 50}, []float64{22.5, 51}, []float64{26, 54}
	if f := FScore(tf, ts); math.Abs(f-1.75) > 1e-12 {
		t.Errorf("F-Score %v, want 1.75", f)
	}
	if r := RScore(ts, tr); math.Abs(r-3.25) > 1e-12 {
		t.Errorf("R-Score %v, want 3.25", r)
	}
	if !math.IsNaN(FScore(nil, nil)) || !math.IsNaN(RScore([]float64{1}, nil)) {
		t.Error("no failures (or mismatched lists) must give NaN, not a number")
	}
}

// TestRecoveredAt: a series at 100 tps that drops at 12.4 s, serves
// again at 14.3 s and climbs 40, 80, 96 (>= 95 % of 100) in seconds 14,
// 15, 16: throughput is back at the end of second 16, 17 s.
func TestRecoveredAt(t *testing.T) {
	s := make([]float64, 25)
	for k := range s {
		s[k] = 100
	}
	s[12], s[13], s[14], s[15], s[16] = 40, 0, 40, 80, 96
	tr, ok := RecoveredAt(s, 12.4, 14.3, DefaultRecovery)
	if !ok || tr != 17 {
		t.Errorf("t_r = %v %v, want 17", tr, ok)
	}
	// The window: only seconds 2..11 count (second 12 holds the
	// injection). Seconds 0-1 at 1000 tps would change nothing.
	s[0], s[1] = 1000, 1000
	if tr, _ := RecoveredAt(s, 12.4, 14.3, DefaultRecovery); tr != 17 {
		t.Errorf("seconds outside the 10 s window changed t_r to %v", tr)
	}
	// A stricter fraction: 96 < 97, so second 17 (100) is the first.
	if tr, _ := RecoveredAt(s, 12.4, 14.3, Recovery{Window: 10, Fraction: 0.97}); tr != 18 {
		t.Errorf("at 97 %%: t_r = %v, want 18", tr)
	}
	// Back within the second service resumed in: t_r is not before t_s.
	s[14] = 100
	if tr, _ := RecoveredAt(s, 12.4, 14.3, DefaultRecovery); tr != 15 {
		t.Errorf("t_r = %v, want 15 (end of the second of t_s)", tr)
	}
	// Never back, nothing before the fault, or a silent baseline.
	flat := []float64{100, 100, 100, 0, 10, 10}
	if _, ok := RecoveredAt(flat, 3.1, 4, DefaultRecovery); ok {
		t.Error("a series that never recovers recovered")
	}
	if _, ok := RecoveredAt(flat, 0.5, 1, DefaultRecovery); ok {
		t.Error("a fault in the first second has no baseline, yet recovered")
	}
	if _, ok := RecoveredAt([]float64{0, 0, 5}, 2.5, 2.6, DefaultRecovery); ok {
		t.Error("a baseline of 0 tps recovered")
	}
}
