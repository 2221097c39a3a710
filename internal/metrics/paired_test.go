package metrics

import (
	"errors"
	"math"
	"testing"
)

// drifting is a machine whose speed grows linearly, 3 % of the start per
// run slot, with a small deterministic jitter (within +-0.5 %): what a
// point of true throughput base measures in slot t.
func drifting(base float64, t int) float64 {
	jitter := 0.005 * math.Sin(float64(7*t+3))
	return base * (1 + 0.03*float64(t)) * (1 + jitter)
}

// TestPairedRemovesDrift: two identical deployments A and B on a drifting
// machine. Run blocked (A's 6 runs, then B's) and compared unpaired, B
// reads some 17 % faster: a false effect. Run in 6 rounds with the order
// within a round alternating (as shuffling balances it) and compared round
// by round, the interval holds 1: no effect. A true 5 % effect under the
// same drift is found by the paired comparison.
func TestPairedRemovesDrift(t *testing.T) {
	const rounds, base = 6, 4000.0
	var blockedA, blockedB, a, b, b5 []float64
	for i := range rounds {
		blockedA = append(blockedA, drifting(base, i))
		blockedB = append(blockedB, drifting(base, rounds+i))
		first, second := 2*i, 2*i+1
		if i%2 == 1 {
			first, second = second, first
		}
		a = append(a, drifting(base, first))
		b = append(b, drifting(base, second))
		b5 = append(b5, drifting(1.05*base, second))
	}
	un, err := Unpaired(blockedA, blockedB, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !un.Differs() || un.Ratio < 1.1 {
		t.Errorf("unpaired, blocked: B/A %.3f [%.3f, %.3f]: want a false effect above 10 %%", un.Ratio, un.Low, un.High)
	}
	p, err := Paired(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if p.Differs() || p.N != rounds || math.Abs(p.Ratio-1) > 0.01 {
		t.Errorf("paired, interleaved: B/A %.4f [%.4f, %.4f]: want no effect", p.Ratio, p.Low, p.High)
	}
	// The unpaired comparison of the same interleaved rounds carries the
	// drift as spread: a much wider interval.
	ui, _ := Unpaired(a, b, 0.95)
	if math.Log(ui.High/ui.Low) < 3*math.Log(p.High/p.Low) {
		t.Errorf("unpaired interval [%.3f, %.3f] not much wider than paired [%.3f, %.3f]", ui.Low, ui.High, p.Low, p.High)
	}
	p5, _ := Paired(a, b5, 0.95)
	if !p5.Differs() || math.Abs(p5.Ratio-1.05) > 0.01 {
		t.Errorf("paired, true 5 %% effect: B/A %.4f [%.4f, %.4f]", p5.Ratio, p5.Low, p5.High)
	}
}

// TestPairedKnownValues checks the interval against a hand computation:
// log ratios ln 2, ln 2, ln 2 x 1.1... with mean m and sd s, the interval is
// exp(m -+ t s / sqrt(n)), t(0.975, 2) = 4.303.
func TestPairedKnownValues(t *testing.T) {
	a := []float64{100, 200, 400}
	b := []float64{110, 200, 440 * 1.1}
	d := []float64{math.Log(1.1), 0, math.Log(1.21)}
	m := (d[0] + d[1] + d[2]) / 3
	s := math.Sqrt(((d[0]-m)*(d[0]-m) + (d[1]-m)*(d[1]-m) + (d[2]-m)*(d[2]-m)) / 2)
	half := 4.302652729911275 * s / math.Sqrt(3)
	c, err := Paired(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Ratio-math.Exp(m)) > 1e-12 || math.Abs(c.Low-math.Exp(m-half)) > 1e-9 || math.Abs(c.High-math.Exp(m+half)) > 1e-9 {
		t.Errorf("got %+v, want ratio %v [%v, %v]", c, math.Exp(m), math.Exp(m-half), math.Exp(m+half))
	}
	one, _ := Paired([]float64{1}, []float64{2}, 0.95)
	if one.Ratio != 2 || !math.IsNaN(one.Low) || one.Differs() {
		t.Errorf("one round: %+v, want ratio 2 and no interval", one)
	}
}

func TestPairedInvalid(t *testing.T) {
	for _, c := range []struct {
		a, b  []float64
		level float64
		want  error
	}{
		{[]float64{1, 2}, []float64{1}, 0.95, ErrLength},
		{[]float64{1, 0}, []float64{1, 2}, 0.95, ErrNotPositive},
		{nil, nil, 0.95, ErrEmpty},
		{[]float64{1}, []float64{1}, 1, ErrNotPositive},
	} {
		if _, err := Paired(c.a, c.b, c.level); !errors.Is(err, c.want) {
			t.Errorf("Paired(%v, %v, %v): %v, want %v", c.a, c.b, c.level, err, c.want)
		}
	}
}
