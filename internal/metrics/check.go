package metrics

import (
	"fmt"
	"math"
)

func finite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s = %v", ErrNotFinite, name, v)
	}
	return nil
}

// positive checks 0 < v < +Inf.
func positive(name string, v float64) error {
	if err := finite(name, v); err != nil {
		return err
	}
	if v <= 0 {
		return fmt.Errorf("%w: %s = %v", ErrNotPositive, name, v)
	}
	return nil
}

// nonNegative checks 0 <= v < +Inf.
func nonNegative(name string, v float64) error {
	if err := finite(name, v); err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("%w: %s = %v", ErrNegative, name, v)
	}
	return nil
}

func positiveInt(name string, v int) error {
	if v <= 0 {
		return fmt.Errorf("%w: %s = %d", ErrNotPositive, name, v)
	}
	return nil
}

// nonNegativeAll checks a non-empty slice of values in [0, +Inf).
func nonNegativeAll(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("%w: %s", ErrEmpty, name)
	}
	for i, x := range xs {
		if err := nonNegative(fmt.Sprintf("%s[%d]", name, i), x); err != nil {
			return err
		}
	}
	return nil
}

// positiveAll checks a non-empty slice of values in (0, +Inf).
func positiveAll(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("%w: %s", ErrEmpty, name)
	}
	for i, x := range xs {
		if err := positive(fmt.Sprintf("%s[%d]", name, i), x); err != nil {
			return err
		}
	}
	return nil
}

// finiteAll checks a non-empty slice of finite values.
func finiteAll(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("%w: %s", ErrEmpty, name)
	}
	for i, x := range xs {
		if err := finite(fmt.Sprintf("%s[%d]", name, i), x); err != nil {
			return err
		}
	}
	return nil
}

// geoMean is the geometric mean of positive values, computed in log space so
// that long products neither overflow nor underflow. A zero value gives 0.
func geoMean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		if x == 0 {
			return 0
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}
