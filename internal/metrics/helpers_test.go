package metrics

import (
	"errors"
	"math"
	"testing"
)

// near reports whether got is within tol of want; NaN matches NaN and an
// infinity matches the same infinity.
func near(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol
}

// check fails t unless (got, err) is (want within tol, nil) or, when
// wantErr is set, an error that is wantErr with a NaN value.
func check(t *testing.T, got float64, err error, want, tol float64, wantErr error) {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("err = %v, want %v", err, wantErr)
		}
		if !math.IsNaN(got) {
			t.Fatalf("value with error = %v, want NaN", got)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if !near(got, want, tol) {
		t.Fatalf("got %.10g, want %.10g (tolerance %g)", got, want, tol)
	}
}

var (
	inf = math.Inf(1)
	nan = math.NaN()
)
