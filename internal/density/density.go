// Package density finds the most tenants a deployment holds while every
// tenant gets what it asks and the machine stays within its ceilings:
// Oracle 2014, Test 3 (Table 12), which looked for the most databases at
// which each still got its throughput with at most 68 % CPU and 75 % of
// the memory in use. The search is pure: a probe is a function the caller
// gives (a real run, or a fake in tests), and the search only decides
// which tenant counts to try, grows geometrically until a probe fails,
// then bisects between the last count that fit and the first that did
// not, within a budget of runs and time.
//
// It assumes that what fails at n tenants fails at more: a density is a
// threshold. Probes are kept whatever their outcome, in the order run.
package density

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Limits are the ceilings a probe must stay within, in percent of the
// machine. Oracle 2014, Test 3: 68 % CPU, 75 % memory.
type Limits struct {
	CPUPct, MemPct float64
}

// Oracle2014 are the ceilings of Oracle 2014, Test 3.
var Oracle2014 = Limits{CPUPct: 68, MemPct: 75}

// Config says where the search starts, how it grows, where it stops and
// what it may spend.
type Config struct {
	// Start is the first tenant count tried (at least 1); Max the most
	// (the spec's limit, or the machine's).
	Start, Max int
	// Factor is the growth of the geometric phase (more than 1; 2
	// doubles).
	Factor float64
	Limits Limits
	// MaxRuns and MaxTime bound the search: it stops before a probe that
	// would exceed either (0: no bound).
	MaxRuns int
	MaxTime time.Duration
}

// Check says what is wrong with c, nil when nothing.
func (c Config) Check() error {
	switch {
	case c.Start < 1:
		return fmt.Errorf("the search starts at %d tenants; give 1 or more", c.Start)
	case c.Max < c.Start:
		return fmt.Errorf("the most tenants, %d, is below the start, %d", c.Max, c.Start)
	case !(c.Factor > 1) || math.IsInf(c.Factor, 0):
		return fmt.Errorf("growth factor %g: must be more than 1", c.Factor)
	case !(c.Limits.CPUPct > 0 && c.Limits.CPUPct <= 100), !(c.Limits.MemPct > 0 && c.Limits.MemPct <= 100):
		return fmt.Errorf("ceilings CPU %g %%, memory %g %%: each must be more than 0 and at most 100", c.Limits.CPUPct, c.Limits.MemPct)
	case c.MaxRuns < 0 || c.MaxTime < 0:
		return fmt.Errorf("budget of %d runs and %s: neither may be negative", c.MaxRuns, c.MaxTime)
	}
	return nil
}

// Probe is one run at a tenant count and what it measured.
type Probe struct {
	Tenants int
	// OK says the run succeeded; SLAMet that every tenant met its SLA
	// (true when the run succeeded and no tenant has one).
	OK, SLAMet bool
	// CPUPct and MemPct are the servers' CPU and peak memory in percent
	// of the machine's, over the measured workload; negative when not
	// measured (a probe without them does not fit).
	CPUPct, MemPct float64
	TPS, MeanMs    float64
	P95Ms          float64
	// MemMB is the servers' peak memory (MiB); IOPS their block IO
	// operations per second, negative when not counted.
	MemMB, IOPS float64
	// Where is the probe's results directory.
	Where   string
	Elapsed time.Duration
}

// Why says why p does not fit l, "" when it does.
func (p Probe) Why(l Limits) string {
	switch {
	case !p.OK:
		return "run failed"
	case !p.SLAMet:
		return "sla not met"
	case p.CPUPct < 0 || p.MemPct < 0:
		return "not measured"
	case p.CPUPct > l.CPUPct:
		return fmt.Sprintf("cpu %.1f %% > %g %%", p.CPUPct, l.CPUPct)
	case p.MemPct > l.MemPct:
		return fmt.Sprintf("memory %.1f %% > %g %%", p.MemPct, l.MemPct)
	}
	return ""
}

// Result is what a search found.
type Result struct {
	// Found is the most tenants that fit, 0 when none did; Best its
	// probe, nil then.
	Found int
	Best  *Probe
	// Probes are every probe, in the order run.
	Probes []Probe
	// Exact says the search bracketed the density: Found fits and
	// Found+1 does not (or Found is Config.Max). Otherwise Stopped says
	// which budget ended it.
	Exact   bool
	Stopped string
}

// Prober runs one probe at n tenants.
type Prober func(ctx context.Context, n int) (Probe, error)

// Search finds the density under c with probe. An error of a probe ends
// the search with it (a probe that merely fails is a Probe, not an
// error); a cancelled ctx ends it with ctx's error. The result so far is
// returned either way.
func Search(ctx context.Context, c Config, probe Prober) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	res := &Result{}
	start := time.Now()
	var mean time.Duration // of a probe so far, to stop before one overruns MaxTime
	lo, hi := 0, 0         // the most that fit, the fewest that did not (0: none yet)
	try := func(n int) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if c.MaxRuns > 0 && len(res.Probes) >= c.MaxRuns {
			res.Stopped = fmt.Sprintf("run budget: %d runs", c.MaxRuns)
			return false, errStop
		}
		if c.MaxTime > 0 && time.Since(start)+mean > c.MaxTime {
			res.Stopped = fmt.Sprintf("time budget: %s", c.MaxTime)
			return false, errStop
		}
		t0 := time.Now()
		p, err := probe(ctx, n)
		p.Tenants = n
		if p.Elapsed == 0 {
			p.Elapsed = time.Since(t0)
		}
		res.Probes = append(res.Probes, p)
		mean = time.Since(start) / time.Duration(len(res.Probes))
		if err != nil {
			return false, err
		}
		fits := p.Why(c.Limits) == ""
		if fits && n > lo {
			lo = n
		}
		if !fits && (hi == 0 || n < hi) {
			hi = n
		}
		return fits, nil
	}
	// Grow geometrically from Start until a probe fails or Max fits.
	n := c.Start
	for hi == 0 {
		fits, err := try(n)
		if err != nil {
			return finish(res, lo, hi, c, err)
		}
		if fits && n == c.Max {
			break
		}
		if fits {
			n = min(c.Max, max(n+1, int(math.Ceil(float64(n)*c.Factor))))
		}
	}
	// Bisect between the most that fit and the fewest that did not.
	for hi != 0 && hi-lo > 1 {
		if _, err := try(lo + (hi-lo)/2); err != nil {
			return finish(res, lo, hi, c, err)
		}
	}
	return finish(res, lo, hi, c, nil)
}

// errStop ends a search whose budget is spent: not an error to the
// caller.
var errStop = fmt.Errorf("budget spent")

func finish(res *Result, lo, hi int, c Config, err error) (*Result, error) {
	res.Found = lo
	res.Exact = (hi != 0 && hi-lo == 1) || (hi == 0 && lo == c.Max)
	for i := range res.Probes {
		if res.Probes[i].Tenants == lo && res.Probes[i].Why(c.Limits) == "" {
			res.Best = &res.Probes[i]
		}
	}
	if err == errStop {
		err = nil
	}
	return res, err
}
