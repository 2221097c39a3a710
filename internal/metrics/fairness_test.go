package metrics

import (
	"math"
	"testing"
)

func TestJainIndex(t *testing.T) {
	tests := []struct {
		name    string
		values  []float64
		want    float64
		wantErr error
	}{
		{"all equal", []float64{7, 7, 7, 7}, 1, nil},
		{"one tenant gets all: 1/n", []float64{1, 0, 0, 0}, 0.25, nil},
		// (1+3)² / (2 × (1+9)) = 16/20.
		{"hand", []float64{1, 3}, 0.8, nil},
		{"unit does not matter", []float64{2, 6}, 0.8, nil},
		// 40² / (8 × 232) = 1600/1856.
		{"eight tenants", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 1600.0 / 1856, nil},
		{"single tenant", []float64{3}, 1, nil},
		{"all zero is 0/0", []float64{0, 0}, nan, nil},
		{"empty", nil, 0, ErrEmpty},
		{"negative", []float64{1, -1}, 0, ErrNegative},
		{"NaN", []float64{1, nan}, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := JainIndex(tc.values)
			check(t, got, err, tc.want, 1e-12, tc.wantErr)
		})
	}
}

func TestMaxMinRatio(t *testing.T) {
	tests := []struct {
		name    string
		values  []float64
		want    float64
		wantErr error
	}{
		{"hand", []float64{2, 8, 4}, 4, nil},
		{"equal", []float64{5, 5}, 1, nil},
		{"single tenant", []float64{5}, 1, nil},
		{"starved tenant", []float64{0, 3}, inf, nil},
		{"all zero", []float64{0, 0}, nan, nil},
		{"empty", []float64{}, 0, ErrEmpty},
		{"negative", []float64{-2, 3}, 0, ErrNegative},
		{"infinite", []float64{inf, 3}, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MaxMinRatio(tc.values)
			check(t, got, err, tc.want, 1e-12, tc.wantErr)
		})
	}
}

func TestFairnessCV(t *testing.T) {
	tests := []struct {
		name    string
		values  []float64
		want    float64
		wantErr error
	}{
		// mean 2, population deviation 1.
		{"hand", []float64{1, 3}, 0.5, nil},
		// mean 5, population deviation 2.
		{"eight tenants", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 0.4, nil},
		{"equal", []float64{5, 5, 5}, 0, nil},
		{"all zero", []float64{0, 0}, nan, nil},
		{"empty", nil, 0, ErrEmpty},
		{"negative", []float64{-1, 1}, 0, ErrNegative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FairnessCV(tc.values)
			check(t, got, err, tc.want, 1e-12, tc.wantErr)
		})
	}
}

// TestJainIsCV checks Jain et al.'s identity J = 1 / (1 + CV²) with the
// population CV, which is why FairnessCV uses divisor n.
func TestJainIsCV(t *testing.T) {
	for _, values := range [][]float64{
		{1, 3}, {2, 4, 4, 4, 5, 5, 7, 9}, {10, 0, 0}, {1200.5, 1100.25, 980, 1310.75},
	} {
		j, err := JainIndex(values)
		if err != nil {
			t.Fatal(err)
		}
		cv, err := FairnessCV(values)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 / (1 + cv*cv); math.Abs(j-want) > 1e-12 {
			t.Errorf("%v: Jain %v, 1/(1+CV²) %v", values, j, want)
		}
	}
}
