package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	Log       io.Writer
	Terminal  bool // Log is a terminal: progress bars while ingesting
	Provider  provider.Provider
	Workloads workload.Registry
	Models    tenancy.Models
	WorkRoot  string  // where the work directory goes; "" = os.TempDir()
	Ledger    *Ledger // records the server and work directory; nil: none
	// Steps is the stopping rule (load.Calibration: Start, Step, Max,
	// MinGain, MaxP99); Calibrate runs it from the start.
	Steps load.Calibration
	// Warmup and Duration are each step's: the step's clients run Warmup
	// unmeasured, then Duration measured.
	Warmup, Duration time.Duration
	// Procs is the driver's GOMAXPROCS in each step (Options.Procs).
	Procs int
}

// CalibrationRow is one measured step of a calibration.
type CalibrationRow struct {
	Clients int
	TPS     float64 // committed transactions per second in the measured part
	MeanMs  float64
	P99Ms   float64
	Failed  int64
	// Gain is the throughput's growth over the previous step (0.25 for
	// 25 %); NaN for the first step.
	Gain float64
}

// Calibrated is what a calibration found.
type Calibrated struct {
	Run   plan.Run // the one-tenant run that was measured
	Rows  []CalibrationRow
	Tau   int     // the last concurrency before the knee; 0 when calibration did not end
	TPS   float64 // the throughput measured at Tau
	Why   string  // why calibration stopped
	Model string
	// Server is the PostgreSQL version that ran, as the server reports it.
	Server string
}

// Calibrate finds tau, Zhang et al. 2025's "concurrency number where a tested
// database reaches the resource limit" (section II-C), for the plan's
// one-tenant run (plan.Calibration): it provisions it, sets
// up and loads its tenant as a run would (provision, setup, ingest,
// post-ingest), then measures a closed loop of more and more clients, step
// by step, as o.Steps decides, until throughput stops growing or p99
// latency passes the bound. Every step is printed to o.Log as it ends.
// The server and the work directory are removed before Calibrate returns,
// also when ctx is cancelled (Ctrl-C) or a step fails; the result so far is
// returned with the error.
func Calibrate(ctx context.Context, p *plan.Plan, o CalibrateOptions) (cal *Calibrated, err error) {
	if o.WorkRoot == "" {
		o.WorkRoot = os.TempDir()
	}
	steps := o.Steps
	if steps.Max <= 0 || steps.Max > p.Runs[0].Clients {
		// The plan's run has room for that many clients (plan.Calibration).
		steps.Max = p.Runs[0].Clients
	}
	r := p.Runs[0]
	e := &execution{opts: Options{Log: o.Log, Terminal: o.Terminal, Provider: o.Provider, Workloads: o.Workloads,
		Models: o.Models, WorkRoot: o.WorkRoot, Ledger: o.Ledger, Procs: o.Procs}, plan: p, spec: p.Spec, run: &r, t0: time.Now()}
	cal = &Calibrated{Run: r, Model: r.Model}
	defer func() {
		if terr := e.teardown(); terr != nil {
			err = errors.Join(err, terr)
		}
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("interrupted (%v); calibration did not end: %w", context.Cause(ctx), err)
		}
	}()

	wd, err := os.MkdirTemp(o.WorkRoot, "tenantbench-calibrate-")
	if err != nil {
		return cal, fmt.Errorf("making the work directory: %w", err)
	}
	e.workDir = wd
	o.Ledger.AddWorkDir(wd)
	// The servers' unprivileged user must traverse it.
	if err := os.Chmod(wd, 0o755); err != nil {
		return cal, err
	}
	for _, ph := range []struct {
		name string
		fn   func(context.Context) error
	}{{"provision", e.provision}, {"setup", e.setup}, {"ingest", e.ingest}, {"post-ingest", e.postIngest}} {
		if err := ctx.Err(); err != nil {
			return cal, err
		}
		fmt.Fprintf(o.Log, "calibrate: %s\n", ph.name)
		if err := ph.fn(ctx); err != nil {
			return cal, fmt.Errorf("phase %s: %w", ph.name, err)
		}
	}
	if len(e.instances) > 0 {
		cal.Server = e.instances[0].Version
	}

	fmt.Fprintf(o.Log, "calibrate: steps of %s warmup + %s measured, closed loop\n", o.Warmup, o.Duration)
	fmt.Fprintf(o.Log, "%8s %12s %10s %10s %8s %9s\n", "clients", "tps", "mean ms", "p99 ms", "failed", "growth")
	for n, ok := steps.Next(); ok; n, ok = steps.Next() {
		row, err := e.calibrationStep(ctx, n, o.Warmup, o.Duration)
		if err != nil {
			return cal, fmt.Errorf("step of %d clients: %w", n, err)
		}
		if k := len(cal.Rows); k > 0 && cal.Rows[k-1].TPS > 0 {
			row.Gain = row.TPS/cal.Rows[k-1].TPS - 1
		} else {
			row.Gain = math.NaN()
		}
		cal.Rows = append(cal.Rows, row)
		growth := "-"
		if !math.IsNaN(row.Gain) {
			growth = fmt.Sprintf("%+.1f %%", 100*row.Gain)
		}
		fmt.Fprintf(o.Log, "%8d %12.1f %10.3f %10.3f %8d %9s\n", row.Clients, row.TPS, row.MeanMs, row.P99Ms, row.Failed, growth)
		steps.Add(n, row.TPS, time.Duration(row.P99Ms*float64(time.Millisecond)))
	}
	cal.Tau, cal.Why = steps.Tau()
	measured := false
	for _, row := range cal.Rows {
		if row.Clients == cal.Tau {
			cal.TPS, measured = row.TPS, true
		}
	}
	if !measured {
		// The first step already passed the latency bound: tau is below
		// --start, and its throughput unknown.
		cal.Why += fmt.Sprintf("; tau %d was not measured (lower the first step to measure it)", cal.Tau)
	}
	return cal, nil
}

// calibrationStep measures n clients of the tenant: a closed loop (with
// the spec's think time) of warmup + duration.
func (e *execution) calibrationStep(ctx context.Context, n int, warmup, duration time.Duration) (CalibrationRow, error) {
	t := driver.Tenant{Name: e.placements[0].Tenant, Connect: e.connect(0), Workload: e.workloads[0],
		Clients: n, Seed: uint64(e.run.Seed) * 1000003}
	// A shape whose clients think keeps its think time; others have none.
	think := e.spec.Workload.Shape().Loop().Think
	res, err := driver.Run(ctx, []driver.Tenant{t}, driver.Options{Warmup: warmup, Duration: duration,
		Shape: load.Closed{Think: think}, Procs: e.opts.Procs})
	if err != nil {
		return CalibrationRow{Clients: n}, err
	}
	// As after a run's workload phase: a dead server or a lost connection
	// makes the step's figures meaningless.
	e.result = &workloadResult{Result: res}
	if err := e.healthAfterWorkload(); err != nil {
		return CalibrationRow{Clients: n}, err
	}
	all := res.Tenants[0].All
	return CalibrationRow{Clients: n, TPS: float64(all.Committed) / duration.Seconds(), MeanMs: all.MeanMs(),
		P99Ms: all.QuantileMs(99), Failed: all.FailedTotal()}, nil
}
