package run

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// The speed probe: a short, fixed measurement of the machine before each
// run or round (spec probe), so that the report can tell the machine's
// drift from the experiment's effects.

const (
	// cpuProbeOps is the CPU probe's fixed work: this many SHA-256 hashes
	// of a 64 KiB block, each over the previous digest too, so that no
	// step can be skipped or run in parallel. About a second on a 2-core
	// VM (about 0.15 s per 4096 hashes there).
	cpuProbeOps  = 16384
	cpuProbeUnit = "ops/s"
	// tpcbProbeTime is how long the tpcb probe measures.
	tpcbProbeTime = 5 * time.Second
	tpcbProbeUnit = "tps"
)

// cpuProbe runs the fixed CPU loop in tenantbench's own process and
// returns its speed in operations per second, and its last digest.
func cpuProbe() (float64, [sha256.Size]byte) {
	block := make([]byte, 64<<10)
	for i := range block {
		block[i] = byte(i * 131)
	}
	var sum [sha256.Size]byte
	start := time.Now()
	for range cpuProbeOps {
		h := sha256.New()
		h.Write(sum[:])
		h.Write(block)
		h.Sum(sum[:0])
	}
	return cpuProbeOps / time.Since(start).Seconds(), sum
}

// prober takes the plan's probe measurements. The tpcb probe has a
// server of its own, started at the first measurement and stopped by
// close.
type prober struct {
	probe *plan.Probe
	opts  Options
	plan  *plan.Plan
	// server is the tpcb probe's one-tenant run, provisioned and loaded;
	// nil before the first tpcb measurement.
	server *execution
	failed error // the probe server could not be made: no more tries
	last   *float64
}

func newProber(p *plan.Plan, o Options) *prober {
	if p.Probe == nil {
		return nil
	}
	return &prober{probe: p.Probe, opts: o, plan: p}
}

// before measures before run r when the probe is due: before every run,
// or before a round's first run. It writes probe.csv's row and returns the
// value that stands for r (the round's, with every: round); nil without a
// probe or when it failed (logged, the run goes on).
func (pr *prober) before(ctx context.Context, r *plan.Run, prev *plan.Run) *float64 {
	if pr == nil {
		return nil
	}
	if pr.probe.EveryRound() && prev != nil && prev.Round == r.Round {
		return pr.last
	}
	pr.last = nil
	at := time.Now()
	v, unit, err := pr.measure(ctx)
	if err != nil {
		fmt.Fprintf(pr.opts.Log, "probe %s before run %s: %v (host_speed left empty)\n", pr.probe.What, r.ID, err)
		return nil
	}
	if err := pr.opts.Out.AppendProbe(results.ProbeRow{Time: at, Round: r.Round, RunID: r.ID, What: pr.probe.What,
		Value: v, Unit: unit}); err != nil {
		fmt.Fprintf(pr.opts.Log, "probe: writing %s: %v\n", results.ProbeFile, err)
	}
	fmt.Fprintf(pr.opts.Log, "probe %s before run %s: %.1f %s\n", pr.probe.What, r.ID, v, unit)
	pr.last = &v
	return pr.last
}

func (pr *prober) measure(ctx context.Context) (float64, string, error) {
	switch pr.probe.What {
	case spec.ProbeCPU:
		v, _ := cpuProbe()
		return v, cpuProbeUnit, nil
	case spec.ProbeTPCB:
		return pr.tpcb(ctx)
	}
	return 0, "", fmt.Errorf("no probe %q in this tenantbench", pr.probe.What)
}

// tpcb measures 5 s of tpcb select-only with one client on the probe
// server, provisioning it first when it is not up yet.
func (pr *prober) tpcb(ctx context.Context) (float64, string, error) {
	if pr.failed != nil {
		return 0, "", pr.failed
	}
	if pr.server == nil {
		e, err := pr.startServer(ctx)
		pr.server = e
		if err != nil {
			pr.failed = fmt.Errorf("the probe server: %w", err)
			return 0, "", pr.failed
		}
	}
	row, err := pr.server.calibrationStep(ctx, 1, 0, tpcbProbeTime)
	if err != nil {
		return 0, "", err
	}
	return row.TPS, tpcbProbeUnit, nil
}

// probeSpec is the tpcb probe's server and load: one tenant of tpcb at
// scale 1 on one server of the plan's engine, provider and version,
// without limits, so that it measures the machine rather than a share.
func probeSpec(p *plan.Plan) string {
	return fmt.Sprintf("name: probe\nseed: 1\nsut: {engine: %s, provider: %s, version: %q}\n"+
		"tenancy: {model: schema, tenants: 1}\n"+
		"workload: {name: %s, scale: 1, clients: 1, duration: 5s, options: {scripts: {select-only: 1}}}\n",
		p.Engine, p.Provider, p.VersionFor(p.Engine), spec.ProbeWorkload)
}

// startServer provisions the probe's one-tenant run as calibrate does:
// provision, setup, ingest, post-ingest. The execution returned holds what
// was started, also on error, for close.
func (pr *prober) startServer(ctx context.Context) (*execution, error) {
	pp, problems := plan.BuildBytes([]byte(probeSpec(pr.plan)), plan.Builtin(pr.opts.Workloads))
	if len(problems) > 0 {
		var errs []error
		for _, p := range problems {
			errs = append(errs, p)
		}
		return nil, errors.Join(errs...)
	}
	o := pr.opts
	o.Monitor, o.Out = false, nil
	e := &execution{opts: o, plan: pp, spec: pp.Spec, run: &pp.Runs[0], t0: time.Now()}
	wd, err := os.MkdirTemp(o.WorkRoot, "tenantbench-probe-")
	if err != nil {
		return e, err
	}
	e.workDir = wd
	o.Ledger.AddWorkDir(wd)
	if err := os.Chmod(wd, 0o755); err != nil { // the servers' user must traverse it
		return e, err
	}
	fmt.Fprintf(o.Log, "probe: starting and loading the tpcb probe server\n")
	for _, ph := range []func(context.Context) error{e.provision, e.setup, e.ingest, e.postIngest} {
		if err := ph(ctx); err != nil {
			return e, err
		}
	}
	return e, nil
}

// close stops the probe server and removes its directory.
func (pr *prober) close() error {
	if pr == nil || pr.server == nil {
		return nil
	}
	err := pr.server.teardown()
	pr.server = nil
	return err
}
