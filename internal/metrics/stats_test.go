package metrics

import (
	"math"
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   Summary
		tol    float64 // on Mean, Std, CV
	}{
		// Matos and Pedreira 2025, Table 8 (PostgreSQL, Diogo, All-Warehouses
		// False: two repetitions, so the printed min and max are the values).
		// The printed Std is the sample deviation |a-b| / sqrt(2).
		{"Matos and Pedreira 2025, Table 8 I/O Test TPM", []float64{127469, 153770},
			Summary{N: 2, Mean: 140619.50, Std: 18597.62, Min: 127469, Max: 153770, CV: 18597.615451987385 / 140619.5, Median: 140619.5}, 0.005},
		{"Matos and Pedreira 2025, Table 8 Memory TPM", []float64{140077, 91863},
			Summary{N: 2, Mean: 115970.00, Std: 34092.45, Min: 91863, Max: 140077, CV: 34092.4463481282 / 115970, Median: 115970}, 0.005},
		{"Matos and Pedreira 2025, Table 8 Medium TPM", []float64{96247, 107123},
			Summary{N: 2, Mean: 101685.00, Std: 7690.49, Min: 96247, Max: 107123, CV: 7690.493352184891 / 101685, Median: 101685}, 0.005},
		{"Matos and Pedreira 2025, Table 8 I/O Test NOPM", []float64{55617, 67017},
			Summary{N: 2, Mean: 61317.00, Std: 8061.02, Min: 55617, Max: 67017, CV: 8061.017305526641 / 61317, Median: 61317}, 0.005},
		// Σ(x-5)² = 32; sample deviation sqrt(32/7).
		{"hand even", []float64{9, 2, 4, 4, 4, 5, 5, 7},
			Summary{N: 8, Mean: 5, Std: math.Sqrt(32.0 / 7), Min: 2, Max: 9, CV: math.Sqrt(32.0/7) / 5, Median: 4.5}, 1e-12},
		{"hand odd", []float64{3, 1, 2},
			Summary{N: 3, Mean: 2, Std: 1, Min: 1, Max: 3, CV: 0.5, Median: 2}, 1e-12},
		{"one repetition: no deviation", []float64{7},
			Summary{N: 1, Mean: 7, Std: nan, Min: 7, Max: 7, CV: nan, Median: 7}, 0},
		{"zero mean: no CV", []float64{-1, 1},
			Summary{N: 2, Mean: 0, Std: math.Sqrt2, Min: -1, Max: 1, CV: nan, Median: 0}, 1e-12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.values)
			got, err := Summarize(in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(in, tc.values) {
				t.Fatalf("input changed: %v", in)
			}
			w := tc.want
			if got.N != w.N || !near(got.Min, w.Min, 0) || !near(got.Max, w.Max, 0) ||
				!near(got.Median, w.Median, 1e-9) || !near(got.Mean, w.Mean, tc.tol) ||
				!near(got.Std, w.Std, tc.tol) || !near(got.CV, w.CV, 1e-9) {
				t.Fatalf("got %+v\nwant %+v", got, w)
			}
		})
	}
}

func TestSummarizeErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		values []float64
		err    error
	}{
		"empty":    {nil, ErrEmpty},
		"NaN":      {[]float64{1, nan}, ErrNotFinite},
		"infinite": {[]float64{inf}, ErrNotFinite},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Summarize(tc.values)
			check(t, s.Mean, err, 0, 0, tc.err)
			if !math.IsNaN(s.Std) || !math.IsNaN(s.Median) {
				t.Fatalf("summary with error: %+v", s)
			}
		})
	}
}

func TestLessFavourable(t *testing.T) {
	tests := []struct {
		name    string
		values  []float64
		d       Direction
		want    float64
		wantErr error
	}{
		// Erdelt and Rabl 2026, section 5.1: two runs, report the lower
		// throughput ...
		{"throughput", []float64{1200, 1100}, HigherIsBetter, 1100, nil},
		// ... the higher latency ...
		{"latency", []float64{0.2, 0.3}, LowerIsBetter, 0.3, nil},
		// ... and the higher resource consumption.
		{"cpu seconds", []float64{36000, 35500, 35900}, LowerIsBetter, 36000, nil},
		{"one repetition", []float64{5}, HigherIsBetter, 5, nil},
		{"no direction", []float64{1, 2}, 0, 0, ErrDirection},
		{"bad direction", []float64{1, 2}, Direction(7), 0, ErrDirection},
		{"empty", nil, HigherIsBetter, 0, ErrEmpty},
		{"NaN", []float64{1, nan}, LowerIsBetter, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LessFavourable(tc.values, tc.d)
			check(t, got, err, tc.want, 0, tc.wantErr)
		})
	}
}

func TestDirectionString(t *testing.T) {
	for d, want := range map[Direction]string{
		HigherIsBetter: "higher-is-better", LowerIsBetter: "lower-is-better", 0: "Direction(0)",
	} {
		if got := d.String(); got != want {
			t.Errorf("%d: %q, want %q", int(d), got, want)
		}
	}
}
