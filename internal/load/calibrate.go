package load

import (
	"fmt"
	"time"
)

// Calibration finds tau, the concurrency "where a tested database reaches
// the resource limit" (Zhang et al. 2025, section II-C), from which the
// patterns are built: it raises the concurrency step by step and stops when
// throughput grows by less than MinGain from one step to the next, or the p99
// latency passes MaxP99. It only decides; the caller runs each step and
// reports it with Add. Use it as
//
//	c := load.Calibration{Start: 1, Step: 1, MinGain: 0.05}
//	for n, ok := c.Next(); ok; n, ok = c.Next() {
//		c.Add(n, measure(n)) // throughput, p99
//	}
//	tau, why := c.Tau()
type Calibration struct {
	Start   int           // first concurrency (default 1)
	Step    int           // added per step; 0 doubles instead
	Max     int           // last concurrency tried (default 1000)
	MinGain float64       // e.g. 0.05: stop when throughput grows less
	MaxP99  time.Duration // stop when p99 latency passes it; 0 for none
	steps   []CalibrationStep
	done    bool
	tau     int
	why     string
}

// CalibrationStep is one measured concurrency.
type CalibrationStep struct {
	Concurrency int
	TPS         float64
	P99         time.Duration
}

// Next is the concurrency to measure next, and false when calibration is
// over.
func (c *Calibration) Next() (int, bool) {
	if c.done {
		return 0, false
	}
	if len(c.steps) == 0 {
		return max(1, c.Start), true
	}
	last := c.steps[len(c.steps)-1].Concurrency
	next := 2 * last
	if c.Step > 0 {
		next = last + c.Step
	}
	limit := c.Max
	if limit <= 0 {
		limit = 1000
	}
	if next > limit {
		c.finish(last, fmt.Sprintf("reached the largest concurrency tried, %d, still gaining", last))
		return 0, false
	}
	return next, true
}

// Add records the measurement of concurrency n and decides whether to go
// on.
func (c *Calibration) Add(n int, tps float64, p99 time.Duration) {
	s := CalibrationStep{n, tps, p99}
	c.steps = append(c.steps, s)
	if c.MaxP99 > 0 && p99 > c.MaxP99 {
		prev := 0
		if len(c.steps) > 1 {
			prev = c.steps[len(c.steps)-2].Concurrency
		}
		c.finish(max(prev, 1), fmt.Sprintf("p99 latency %s at concurrency %d passed the bound %s", p99, n, c.MaxP99))
		return
	}
	if len(c.steps) < 2 {
		return
	}
	prev := c.steps[len(c.steps)-2]
	if gain := tps/prev.TPS - 1; prev.TPS > 0 && gain < c.MinGain {
		c.finish(prev.Concurrency, fmt.Sprintf("throughput grew by %.1f %% from concurrency %d to %d, less than %.1f %%",
			100*gain, prev.Concurrency, n, 100*c.MinGain))
	}
}

func (c *Calibration) finish(tau int, why string) {
	c.done, c.tau, c.why = true, tau, why
}

// Tau is the result, with the reason calibration stopped; 0 before it
// has.
func (c *Calibration) Tau() (int, string) { return c.tau, c.why }

// Steps are the measurements so far.
func (c *Calibration) Steps() []CalibrationStep { return c.steps }
