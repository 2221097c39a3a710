package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Summary holds the statistics of one metric over the repetitions of a
// matrix point (Matos and Pedreira 2025, section 3: Tables 2, 3, 7 and 8,
// Fig. 17 and 18).
type Summary struct {
	// N is the number of repetitions.
	N int
	// Mean is the arithmetic mean.
	Mean float64
	// Std is the sample standard deviation sqrt(Σ (x_i - Mean)² / (N-1)),
	// the one Matos and Pedreira's (2025) tables report (their two-repetition
	// rows check: 127469 and 153770 give 18597.62, which is |a-b|/sqrt(2)).
	// NaN when N = 1.
	Std float64
	// Min and Max are the smallest and the largest value.
	Min, Max float64
	// CV is the coefficient of variation Std / Mean (Matos and Pedreira 2025,
	// section 3.3, Fig. 18, "stability"). NaN when N = 1 or Mean <= 0.
	CV float64
	// Median is the middle value, or the mean of the two middle values when
	// N is even (the line inside Matos and Pedreira's (2025) box plots,
	// Fig. 17).
	Median float64
}

// Summarize computes the repetition statistics of Matos and Pedreira 2025
// (section 2, "Data Collection and Analysis": average, standard deviation,
// minimum, maximum; section 3.3: coefficient of variation) and the median of
// its box plots, over the values one metric took in the repetitions of one
// matrix point. Values must be finite; they may be negative or zero (CV is
// then NaN when the mean is not positive).
func Summarize(values []float64) (Summary, error) {
	if err := finiteAll("repetition values", values); err != nil {
		nan := math.NaN()
		return Summary{Mean: nan, Std: nan, Min: nan, Max: nan, CV: nan, Median: nan}, err
	}
	n := len(values)
	s := Summary{N: n, Mean: mean(values), Std: math.NaN(), CV: math.NaN()}
	sorted := slices.Sorted(slices.Values(values))
	s.Min, s.Max = sorted[0], sorted[n-1]
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = sorted[n/2-1]/2 + sorted[n/2]/2
	}
	if n > 1 {
		s.Std = math.Sqrt(sumSqDev(values, s.Mean) / float64(n-1))
		if s.Mean > 0 {
			s.CV = s.Std / s.Mean
		}
	}
	return s, nil
}

// Direction says which way a metric improves.
type Direction int

// The two directions. The zero Direction is invalid, so that a forgotten
// direction is an error rather than a silent choice.
const (
	// HigherIsBetter: throughput, goodput, efficiencies, scores.
	HigherIsBetter Direction = iota + 1
	// LowerIsBetter: latency, durations, resource consumption, cost.
	LowerIsBetter
)

// String returns "higher-is-better" or "lower-is-better".
func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher-is-better"
	case LowerIsBetter:
		return "lower-is-better"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// LessFavourable returns the worse of the repetitions' values: the minimum
// when higher is better, the maximum when lower is better. Erdelt and Rabl 2026
// (section 5.1) run every workload twice and report "the less favorable
// outcome—specifically, lower throughput, higher latency, or increased
// resource consumption". Values must be finite.
func LessFavourable(values []float64, d Direction) (float64, error) {
	if d != HigherIsBetter && d != LowerIsBetter {
		return math.NaN(), fmt.Errorf("%w: %v", ErrDirection, d)
	}
	if err := finiteAll("repetition values", values); err != nil {
		return math.NaN(), err
	}
	if d == HigherIsBetter {
		return slices.Min(values), nil
	}
	return slices.Max(values), nil
}

// mean is the arithmetic mean of a non-empty slice.
func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// sumSqDev is Σ (x_i - m)², the two-pass form (accurate for values far from
// zero, such as throughputs of 10^5 with a spread of 10^3).
func sumSqDev(xs []float64, m float64) float64 {
	var s float64
	for _, x := range xs {
		d := x - m
		s += d * d
	}
	return s
}
