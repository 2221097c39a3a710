package metrics

import (
	"math"
	"testing"
)

// TestUnpairedWorked: logs 0 and 0.2 against 0.3 and 0.5: the log ratio is
// 0.3, each side's variance of the mean 0.01, Welch's df (0.02)²/(2 x
// 0.01²) = 2, t(0.975, 2) = 4.302653, so the interval is exp(0.3 ± 4.302653
// x sqrt(0.02)).
func TestUnpairedWorked(t *testing.T) {
	a := []float64{1, math.Exp(0.2)}
	b := []float64{math.Exp(0.3), math.Exp(0.5)}
	r, err := Unpaired(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want float64 }{{r.Ratio, 1.3498588}, {r.Low, 0.7345575}, {r.High, 2.4805666}} {
		if math.Abs(c.got-c.want) > 1e-6*c.want {
			t.Errorf("got %v, want %v (%+v)", c.got, c.want, r)
		}
	}
	if r.Differs() {
		t.Error("an interval holding 1 called a difference")
	}
}

// TestUnpairedFindings: a 30 % difference with 1 % noise is a difference
// whose interval holds 1.3; equal means with 10 % noise are not; one
// repetition has no interval; bad input is an error.
func TestUnpairedFindings(t *testing.T) {
	r, _ := Unpaired([]float64{1000, 1010, 990}, []float64{1300, 1313, 1287}, 0.95)
	if !r.Differs() || r.Low > 1.3 || r.High < 1.3 {
		t.Errorf("30 %% with low noise: %+v", r)
	}
	r, _ = Unpaired([]float64{1000, 1100, 900}, []float64{950, 1050, 1000}, 0.95)
	if r.Differs() || math.IsNaN(r.Low) {
		t.Errorf("equal means with noise: %+v", r)
	}
	r, _ = Unpaired([]float64{1000}, []float64{1300, 1310}, 0.95)
	if !math.IsNaN(r.Low) || r.Differs() || math.Abs(r.Ratio-math.Sqrt(1300*1310)/1000) > 1e-9 {
		t.Errorf("one repetition: %+v", r)
	}
	for _, c := range [][2][]float64{{nil, {1}}, {{1}, {0}}, {{-1, 2}, {1, 2}}, {{1, math.Inf(1)}, {1, 2}}} {
		if _, err := Unpaired(c[0], c[1], 0.95); err == nil {
			t.Errorf("Unpaired(%v, %v) took it", c[0], c[1])
		}
	}
	if _, err := Unpaired([]float64{1, 2}, []float64{1, 2}, 1); err == nil {
		t.Error("level 1 taken")
	}
}
