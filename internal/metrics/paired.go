package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Comparison is matrix point B against point A: the ratio B/A of a metric
// and its confidence interval. A ratio of 1.05 reads "B is 5 % higher".
type Comparison struct {
	// N is the number of rounds (paired), or of B's values (unpaired;
	// NA is A's).
	N, NA int
	// Ratio is the geometric mean of B/A: exp of the mean log ratio.
	Ratio float64
	// Low and High bound Ratio's confidence interval at Level (0.95);
	// NaN with fewer than two rounds (no spread to judge by).
	Low, High, Level float64
}

// Differs says the interval excludes 1: the data show a difference
// between A and B at the comparison's level. False when the interval is
// unknown.
func (c Comparison) Differs() bool { return c.Low > 1 || c.High < 1 }

// Paired compares B with A round by round: a[i] and b[i] are the values
// of points A and B in round i, which ran close together in time. The
// per-round log ratio d_i = ln(b_i / a_i) removes what the two runs of a
// round share (the machine's speed at that time), so a slow drift of the
// machine over the experiment cancels. Ratio is exp(mean d), and the
// interval exp(mean d -+ t(level, n-1) sd(d) / sqrt(n)), Student's t
// interval on the log ratios: ratios are multiplicative (a machine 10 %
// slower scales both points), the log makes them additive and symmetric
// (B/A = 2 and 1/2 are equally far from 1), and with the 2 to 10 rounds a
// benchmark has, a bootstrap would draw from too few distinct resamples
// (3 rounds have 10) to give a usable interval. Values must be positive.
func Paired(a, b []float64, level float64) (Comparison, error) {
	nan := math.NaN()
	c := Comparison{N: len(b), NA: len(a), Ratio: nan, Low: nan, High: nan, Level: level}
	if len(a) != len(b) {
		return c, fmt.Errorf("%w: %d rounds of A, %d of B", ErrLength, len(a), len(b))
	}
	if err := checkInputs(a, b, level); err != nil {
		return c, err
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = math.Log(b[i] / a[i])
	}
	m := mean(d)
	c.Ratio = math.Exp(m)
	if n := len(d); n > 1 {
		half := tQuantile(level, float64(n-1)) * math.Sqrt(sumSqDev(d, m)/float64(n-1)/float64(n))
		c.Low, c.High = math.Exp(m-half), math.Exp(m+half)
	}
	return c, nil
}

// Unpaired compares B with A ignoring rounds: the difference of the mean
// logs of B's and A's values, with Welch's t interval (unequal variances,
// Welch-Satterthwaite degrees of freedom). It is the comparison a design
// without rounds allows, shown beside Paired for contrast: a drift of the
// machine between A's runs and B's is part of its difference. Values must
// be positive; each side needs two values for an interval.
func Unpaired(a, b []float64, level float64) (Comparison, error) {
	nan := math.NaN()
	c := Comparison{N: len(b), NA: len(a), Ratio: nan, Low: nan, High: nan, Level: level}
	if err := checkInputs(a, b, level); err != nil {
		return c, err
	}
	la, lb := logs(a), logs(b)
	ma, mb := mean(la), mean(lb)
	c.Ratio = math.Exp(mb - ma)
	na, nb := float64(len(a)), float64(len(b))
	if na < 2 || nb < 2 {
		return c, nil
	}
	va, vb := sumSqDev(la, ma)/(na-1)/na, sumSqDev(lb, mb)/(nb-1)/nb
	se := math.Sqrt(va + vb)
	if se == 0 {
		c.Low, c.High = c.Ratio, c.Ratio
		return c, nil
	}
	df := (va + vb) * (va + vb) / (va*va/(na-1) + vb*vb/(nb-1))
	half := tQuantile(level, df) * se
	c.Low, c.High = math.Exp(mb-ma-half), math.Exp(mb-ma+half)
	return c, nil
}

// tQuantile is the two-sided critical value of Student's t with df
// degrees of freedom at level (2.776 for 0.95 and 4).
func tQuantile(level, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + level) / 2)
}

// checkInputs checks the level and that every value of A and B is
// positive.
func checkInputs(a, b []float64, level float64) error {
	if err := checkLevel(level); err != nil {
		return err
	}
	if err := positiveAll("A", a); err != nil {
		return err
	}
	return positiveAll("B", b)
}

func checkLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("%w: confidence level %v, want between 0 and 1", ErrNotPositive, level)
	}
	return nil
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}
