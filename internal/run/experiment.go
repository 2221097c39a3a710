// Package run is the orchestrator: it executes a plan run by run, phase by
// phase, with barriers between phases, and writes results as it goes.
package run

import (
	"context"
	"errors"
	"fmt"
	"github.com/tenantbench/tenantbench/internal/engine"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tenantbench/tenantbench/internal/live"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Options configure an experiment.
type Options struct {
	Out *results.Dir
	// FailFast stops at the first failed run; a run with faults fails,
	// and stops, at its first failed attempt.
	FailFast bool
	Keep     bool // leave the last run's instances up
	Log      io.Writer
	// Progress says whether Log is a terminal (progress bars) or not
	// (plain lines).
	Terminal  bool
	Provider  provider.Provider
	Workloads workload.Registry
	Models    tenancy.Models
	// Engines are the engines a plan's sut.engine names; nil is
	// engine.Builtin().
	Engines  engine.Registry
	WorkRoot string // where runs' work directories go; "" = os.TempDir()
	Monitor  bool   // sample resources, DBMS statistics and wait events
	Version  string // tenantbench's version, for env.json
	// Ledger records each server and work directory as it appears and
	// goes (live.json and the machine-wide registry); nil records none.
	Ledger *Ledger
	// Live is told of each run, phase, transaction second and monitor
	// round for live metrics (run --metrics-addr); nil for none.
	Live *live.Metrics
	// Procs is the driver's GOMAXPROCS in workload phases (run --procs,
	// driver.Options.Procs); 0 lets each phase's load decide.
	Procs int
}

// Outcome is what an experiment did.
type Outcome struct {
	Runs, Failed int
	Interrupted  bool
	Kept         []*Kept // the last run's instances, with --keep
}

// Experiment runs every run of the plan in order. A failed run does not
// stop the next unless FailFast; a cancelled ctx (Ctrl-C) marks the current
// run failed and stops. Results are written after each run.
func Experiment(ctx context.Context, p *plan.Plan, o Options) (*Outcome, error) {
	if o.WorkRoot == "" {
		o.WorkRoot = os.TempDir()
	}
	env := CollectEnv(o.Version)
	if err := o.Out.WriteJSON("env.json", env); err != nil {
		return nil, err
	}
	out := &Outcome{}
	o.Live.Planned(len(p.Runs))
	probe := newProber(p, o)
	defer func() {
		if perr := probe.close(); perr != nil {
			fmt.Fprintf(o.Log, "probe: stopping its server: %v\n", perr)
		}
	}()
	// Each matrix point's repetitions so far: in interleaved or shuffled
	// order they are a round apart.
	points := map[int][]*results.Summary{}
	// The runs as the E2-Score groups them, filled in once all have run.
	var scaleOut []results.ScaleOutRun
	defer func() {
		if err := o.Out.FillScores(results.E2Scores(scaleOut)); err != nil {
			fmt.Fprintf(o.Log, "results.csv: e2_score: %v\n", err)
		}
	}()
	for i := range p.Runs {
		r := &p.Runs[i]
		last := i == len(p.Runs)-1
		var prev *plan.Run
		if i > 0 {
			prev = &p.Runs[i-1]
		}
		speed := probe.before(ctx, r, prev)
		if ctx.Err() != nil {
			out.Interrupted = true
			break
		}
		ex := &execution{opts: o, plan: p, spec: p.Spec, run: r, keep: o.Keep && last}
		o.Live.BeginRun(live.Run{ID: r.ID, Case: r.Case, Model: r.Model, Engine: p.EngineOf(r), Workload: r.Workload})
		sum := ex.do(ctx)
		o.Live.EndRun(sum.Status)
		sum.HostSpeed = speed
		out.Runs++
		scaleOut = append(scaleOut, results.ScaleOutRun{RunID: sum.RunID, Group: r.ScaleOutGroup(),
			Replicas: r.Replicas, TPS: sum.Provider.TPS, Scale: sum.Scale, OK: sum.Status == results.StatusOK})
		if sum.Status != results.StatusOK {
			out.Failed++
		}
		if err := writeRun(o.Out, sum, ex); err != nil {
			return out, fmt.Errorf("writing results of run %s: %w", r.ID, err)
		}
		// The point's last repetition done: its aggregate row follows
		// when there is more than one repetition.
		if points[r.Point] = append(points[r.Point], sum); r.Repetition == p.Spec.Repeat {
			if len(points[r.Point]) > 1 {
				if err := o.Out.AppendResult(results.AggregateRuns(points[r.Point])); err != nil {
					return out, err
				}
			}
			delete(points, r.Point)
		}
		if len(sum.Instances) > 0 && env.addRun(i == 0, sum.Instances[0], ex.net) {
			if err := o.Out.WriteJSON("env.json", env); err != nil {
				return out, err
			}
		}
		if len(p.Dimensions.Engines) > 1 && len(sum.Instances) > 0 && env.AddEngine(p.EngineOf(r), sum.Instances[0]) {
			if err := o.Out.WriteJSON("env.json", env); err != nil {
				return out, err
			}
		}
		fmt.Fprintf(o.Log, "%s %s", ex.label(), sum.Status)
		if sum.Error != "" {
			fmt.Fprintf(o.Log, ": %s", sum.Error)
		}
		fmt.Fprintf(o.Log, " (%.1f tps, mean %.3f ms, p99 %.3f ms)\n", sum.Provider.TPS, sum.Provider.MeanMs, sum.Provider.P99Ms)
		if ex.kept != nil {
			out.Kept = ex.kept
		}
		if ctx.Err() != nil {
			out.Interrupted = true
			break
		}
		if o.FailFast && sum.Status != results.StatusOK {
			break
		}
	}
	return out, nil
}

// writeRun writes a run's files, results.csv last: a row there means the
// run's directory is whole.
func writeRun(d *results.Dir, s *results.Summary, ex *execution) error {
	var errs []error
	errs = append(errs, d.WritePhases(s.RunID, s.Phases))
	o := ex.obs
	if o.Workload != nil {
		var tenantCPU map[string]float64
		if o.Monitor != nil {
			tenantCPU = o.Monitor.TenantCPU
		}
		errs = append(errs, d.WriteTenants(s.RunID, o.Workload, tenantCPU, s.Tenant), d.WriteSeries(s.RunID, o.Workload))
	}
	if ex.targets != nil {
		errs = append(errs, d.WriteTargets(s.RunID, ex.targets))
	}
	if s.Events != nil {
		errs = append(errs, d.WriteEvents(s.RunID, s.Events))
	}
	if ex.limitChanges != nil {
		errs = append(errs, d.WriteLimits(s.RunID, ex.limitChanges))
	}
	if s.Lag != nil {
		errs = append(errs, d.WriteLag(s.RunID, s.Lag))
	}
	if an := o.Analytical(); an != nil {
		errs = append(errs, d.WriteAnalytical(s.RunID, an))
	}
	if ex.samples != nil {
		errs = append(errs, ex.samples.WriteFiles(filepath.Join(d.Path, "runs", s.RunID, "monitor")))
	}
	errs = append(errs, d.WriteJSON("runs/"+s.RunID+"/summary.json", s))
	errs = append(errs, d.AppendClasses(s))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return d.AppendResult(s)
}

// since is seconds from t0 to t.
func since(t0, t time.Time) float64 { return t.Sub(t0).Seconds() }
