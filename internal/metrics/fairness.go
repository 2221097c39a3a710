package metrics

import (
	"math"
)

// The fairness metrics compare one figure across the tenants of a run
// (Erdelt and Rabl 2026 name Fairness as one of their three questions in
// section 4.1 and compare tenants in section 5.1.2, but give no formula).
// tenantbench computes them over the per-tenant throughput; any non-negative
// per-tenant figure can be passed.

// JainIndex is Jain's fairness index (R. Jain, D.-M. Chiu, W. Hawe, "A
// Quantitative Measure of Fairness and Discrimination for Resource
// Allocation in Shared Computer Systems", DEC-TR-301, 1984, section 4):
//
//	J = (Σ x_i)² / (n × Σ x_i²)
//
// over the n tenants' values x_i >= 0. J is 1 when all tenants get the
// same, and 1/n when one tenant gets everything; it does not depend on the
// unit. J = 1 / (1 + CV²) with CV the population coefficient of variation
// (FairnessCV). When every value is zero, J is 0/0: NaN with a nil error.
func JainIndex(values []float64) (float64, error) {
	if err := nonNegativeAll("tenant values", values); err != nil {
		return math.NaN(), err
	}
	var sum, sumSq float64
	for _, x := range values {
		sum += x
		sumSq += x * x
	}
	if sumSq == 0 {
		return math.NaN(), nil
	}
	return sum * sum / (float64(len(values)) * sumSq), nil
}

// MaxMinRatio is the ratio of the best to the worst tenant's value:
//
//	max_i x_i / min_i x_i
//
// 1 is perfectly even; higher is less fair. For throughput it says how many
// times more the luckiest tenant got than the unluckiest; for latency, how
// many times longer the unluckiest tenant waited. Values must be
// non-negative. A tenant with zero against one with more gives +Inf (a
// starved tenant); all zeros give NaN; both with a nil error.
func MaxMinRatio(values []float64) (float64, error) {
	if err := nonNegativeAll("tenant values", values); err != nil {
		return math.NaN(), err
	}
	lo, hi := values[0], values[0]
	for _, x := range values[1:] {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	switch {
	case hi == 0:
		return math.NaN(), nil
	case lo == 0:
		return math.Inf(1), nil
	}
	return hi / lo, nil
}

// FairnessCV is the coefficient of variation across tenants:
//
//	CV = σ / μ,  σ = sqrt(Σ (x_i - μ)² / n)
//
// with the population standard deviation (divisor n, not n-1): the tenants
// of a run are the whole population, not a sample of it, and with this
// choice JainIndex = 1 / (1 + CV²) (Jain et al. 1984). 0 is perfectly even.
// Values must be non-negative; when their mean is zero CV is NaN (nil
// error). Repetition statistics (Summarize) use the sample deviation
// instead, as Matos and Pedreira (2025) do.
func FairnessCV(values []float64) (float64, error) {
	if err := nonNegativeAll("tenant values", values); err != nil {
		return math.NaN(), err
	}
	mu := mean(values)
	if mu == 0 {
		return math.NaN(), nil
	}
	return math.Sqrt(sumSqDev(values, mu)/float64(len(values))) / mu, nil
}
