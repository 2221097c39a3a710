package metrics

import "math"

// Fail-over figures of Zhang et al. 2025 (CloudyBench), section III: for
// each of k injected failures i, t_f^i is the injection, t_s^i when
// service resumed (the first committed transaction of the affected
// tenants after it) and t_r^i when throughput recovered.

// FScore is eq. 3: the mean of t_s - t_f over the failures, in the units
// of its arguments. NaN when there are none.
func FScore(tf, ts []float64) float64 { return meanDiff(ts, tf) }

// RScore is eq. 4: the mean of t_r - t_s over the failures. NaN when there
// are none.
func RScore(ts, tr []float64) float64 { return meanDiff(tr, ts) }

func meanDiff(a, b []float64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return math.NaN()
	}
	s := 0.0
	for i := range a {
		s += a[i] - b[i]
	}
	return s / float64(len(a))
}

// Recovery defines "throughput is back" (t_r): the first whole second at
// or after t_s whose throughput reaches Fraction of the mean throughput
// of the Window seconds before the injection. Zhang et al. 2025 compare
// with "the original TPS" without a window; 95 % of the 10 s before is
// tenantbench's default (DefaultRecovery).
type Recovery struct {
	Window   int     `json:"window_s"` // seconds before the injection; at least 1
	Fraction float64 `json:"fraction"` // of their mean; in (0, 1]
}

// DefaultRecovery is 95 % of the 10 s mean before the fault.
var DefaultRecovery = Recovery{Window: 10, Fraction: 0.95}

// RecoveredAt is t_r for a failure injected at tf whose service resumed at
// ts (seconds since the series' start), from perSecond, the committed
// transactions of each second (perSecond[k] covers [k, k+1)): the end of
// the first second k with k+1 > ts whose count reaches r.Fraction of the
// mean of the r.Window whole seconds before tf (fewer when tf is earlier;
// the seconds the series has). ok is false when there is no whole second
// before tf, when the mean before is 0, or when no second recovers.
func RecoveredAt(perSecond []float64, tf, ts float64, r Recovery) (tr float64, ok bool) {
	if r.Window < 1 || !(r.Fraction > 0) || ts < tf {
		return 0, false
	}
	end := int(math.Floor(tf)) // seconds [end-Window, end) lie wholly before tf
	if end > len(perSecond) {
		end = len(perSecond)
	}
	begin := max(0, end-r.Window)
	if end <= begin {
		return 0, false
	}
	sum := 0.0
	for _, v := range perSecond[begin:end] {
		sum += v
	}
	target := r.Fraction * sum / float64(end-begin)
	if target <= 0 {
		return 0, false
	}
	for k := int(math.Floor(ts)); k < len(perSecond); k++ {
		if k < 0 {
			continue
		}
		if perSecond[k] >= target {
			return math.Max(float64(k+1), ts), true
		}
	}
	return 0, false
}
