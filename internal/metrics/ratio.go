package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Ratio compares two samples of repetitions, B against A: the ratio of
// their geometric means and its confidence interval.
type Ratio struct {
	Ratio  float64 // geometric mean of B / geometric mean of A
	Lo, Hi float64 // the interval's ends; NaN when a sample has one value
	Level  float64 // the interval's confidence level, 0.95
	NA, NB int
	// DF is the Welch-Satterthwaite degrees of freedom.
	DF float64
}

// Known says the interval exists: both samples have 2 or more values.
func (r Ratio) Known() bool { return !math.IsNaN(r.Lo) }

// Differs says the interval excludes 1: the repetitions support a
// difference at the interval's level.
func (r Ratio) Differs() bool { return r.Known() && (r.Lo > 1 || r.Hi < 1) }

// RatioCI is B's geometric mean over A's with a confidence interval at
// level (e.g. 0.95): Welch's t-interval (Welch 1947) for the difference of
// the means of the logarithms, exponentiated. Performance figures are
// positive and their spread grows with their size, so the comparison is
// made on the log scale, where a ratio is a difference; Welch's interval
// does not assume equal variances, and with as few as 2 repetitions per
// side it is wide, as it should be. With one value on either side the
// ratio has no interval (Lo and Hi NaN). Every value must be positive and
// finite.
func RatioCI(a, b []float64, level float64) (Ratio, error) {
	if !(level > 0 && level < 1) {
		return Ratio{}, fmt.Errorf("metrics: confidence level %v: want one between 0 and 1", level)
	}
	la, err := logs("A", a)
	if err != nil {
		return Ratio{}, err
	}
	lb, err := logs("B", b)
	if err != nil {
		return Ratio{}, err
	}
	ma, va := meanVar(la)
	mb, vb := meanVar(lb)
	r := Ratio{Ratio: math.Exp(mb - ma), Lo: math.NaN(), Hi: math.NaN(), Level: level, NA: len(a), NB: len(b), DF: math.NaN()}
	if len(a) < 2 || len(b) < 2 {
		return r, nil
	}
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	se := math.Sqrt(sa + sb)
	if se == 0 {
		r.Lo, r.Hi, r.DF = r.Ratio, r.Ratio, math.Inf(1)
		return r, nil
	}
	r.DF = (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Quantile(1 - (1-level)/2)
	r.Lo, r.Hi = math.Exp(mb-ma-t*se), math.Exp(mb-ma+t*se)
	return r, nil
}

func logs(name string, v []float64) ([]float64, error) {
	if len(v) == 0 {
		return nil, fmt.Errorf("metrics: sample %s: %w", name, ErrEmpty)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("metrics: sample %s value %v: a ratio needs positive finite values", name, x)
		}
		out[i] = math.Log(x)
	}
	return out, nil
}

// meanVar is the mean and the sample variance (0 for one value).
func meanVar(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}
