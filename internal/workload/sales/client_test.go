package sales

import (
	"testing"
)

// chiSquare is the chi-square statistic of counts against weights.
func chiSquare(counts []int, weights []float64) float64 {
	n, total := 0, 0.0
	for i := range counts {
		n += counts[i]
		total += weights[i]
	}
	chi2 := 0.0
	for i, c := range counts {
		exp := float64(n) * weights[i] / total
		d := float64(c) - exp
		chi2 += d * d / exp
	}
	return chi2
}

// TestPickProportions checks that transactions are picked in proportion to
// their weights (chi-square, fixed seeds, so the outcome is the same every
// run): the paper's read-write preset and a mix of all four.
func TestPickProportions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		weights []float64
		limit   float64 // the 0.999 quantile of chi-square with len-1 degrees of freedom
	}{
		{"read-write preset", Options{Preset: ReadWrite}, []float64{15, 5, 80}, 13.82},
		{"all four", Options{Mix: map[string]float64{NewOrderline: 1, OrderPayment: 2, OrderStatus: 3.5, OrderlineDeletion: 0.5}},
			[]float64{1, 2, 3.5, 0.5}, 16.27},
	} {
		w := mustWorkload(t, 0.01, tc.opts)
		if len(w.TxnNames()) != len(tc.weights) {
			t.Fatalf("%s: TxnNames %v", tc.name, w.TxnNames())
		}
		for _, seed := range []uint64{1, 42} {
			c := w.newClient(seed)
			const n = 200000
			counts := make([]int, len(tc.weights))
			for range n {
				counts[c.Pick()]++
			}
			if chi2 := chiSquare(counts, tc.weights); chi2 > tc.limit {
				t.Errorf("%s, seed %d: counts %v for weights %v, chi-square %.2f", tc.name, seed, counts, tc.weights, chi2)
			}
		}
	}
	one := mustWorkload(t, 0.01, Options{Preset: ReadOnly}).newClient(3)
	for range 100 {
		if one.Pick() != 0 {
			t.Fatal("read-only picked another transaction than order_status")
		}
	}
}

// TestPickOrder checks the ranges of the distributions: uniform reaches
// every order from 1 to N, latest-k the k newest only.
func TestPickOrder(t *testing.T) {
	for _, tc := range []struct {
		opts     Options
		min, max int64
	}{
		{Options{Distribution: Uniform}, 1, 3000},
		{Options{Distribution: Latest, K: 5}, 2996, 3000},
		{Options{Distribution: Latest}, 2991, 3000},
		{Options{Distribution: Latest, K: 1}, 3000, 3000},
		{Options{Distribution: Latest, K: 100000}, 1, 3000},
	} {
		c := mustWorkload(t, 0.01, tc.opts).newClient(9)
		seen := map[int64]int{}
		for range 100000 {
			o := c.pickOrder()
			if o < tc.min || o > tc.max {
				t.Fatalf("%+v: order %d outside %d..%d", tc.opts, o, tc.min, tc.max)
			}
			seen[o]++
		}
		if want := int(tc.max - tc.min + 1); len(seen) != want {
			t.Errorf("%+v: %d distinct orders, want %d", tc.opts, len(seen), want)
		}
	}
}

// TestClientDeterministic checks that one seed gives one sequence of
// transactions and values, and another seed another.
func TestClientDeterministic(t *testing.T) {
	w := mustWorkload(t, 0.01, Options{Mix: map[string]float64{NewOrderline: 1, OrderPayment: 1, OrderStatus: 1, OrderlineDeletion: 1}})
	seq := func(seed uint64) []int64 {
		c := w.newClient(seed)
		var out []int64
		for range 1000 {
			out = append(out, int64(c.Pick()), c.pickOrder(), c.draw.Int64N(c.lines))
		}
		return out
	}
	a, b, other := seq(7), seq(7), seq(8)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 7 differs at %d: %d vs %d", i, a[i], b[i])
		}
		same = same && a[i] == other[i]
	}
	if same {
		t.Fatal("seeds 7 and 8 give the same sequence")
	}
}
