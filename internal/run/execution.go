package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// teardownTimeout bounds stopping a run's servers, also after Ctrl-C.
const teardownTimeout = 60 * time.Second

type workloadResult struct{ Result *driver.Result }

// execution is one run of the plan: provision -> setup -> ingest ->
// post-ingest -> workload -> check -> teardown (seed 000 section 4.2). Every tenant
// enters each phase together: a phase starts when the previous one has
// ended for all tenants.
type execution struct {
	opts    Options
	spec    *spec.Spec
	run     *spec.Run
	keep    bool
	t0      time.Time
	workDir string

	instances  []*provider.Instance
	limits     []provider.InstanceSpec
	placements []tenancy.Placement
	workloads  []workload.Workload
	mu         sync.Mutex // guards phases
	phases     []results.Phase
	result     *workloadResult
	kept       []*Kept
	mon        *monitor.Monitor // nil when monitoring is off or failed to start
	samples    *monitor.Samples
	window     *monitor.Window // the measured part of the workload phase
	prov       provisioning    // the provisioning strategy and its state (provisioning.go)
	storage    *float64        // GB in the data directories after the workload (storageGB)
	// Query streams (TPC-H) and memory kills (streams.go, memwatch.go).
	streams    []results.TenantStreams
	analytical *results.Analytical
	memWatch   *memWatch
}

func (e *execution) label() string {
	r := e.run
	return fmt.Sprintf("[%s %s %dt %dc r%d]", r.ID, r.Model, r.Tenants, r.Clients, r.Repetition)
}

func (e *execution) logf(format string, a ...any) {
	fmt.Fprintf(e.opts.Log, e.label()+" "+format+"\n", a...)
}

// do executes the run and returns its summary; it never panics on a
// failed phase, it records it.
func (e *execution) do(ctx context.Context) *results.Summary {
	r := e.run
	e.t0 = time.Now()
	sum := &results.Summary{RunID: r.ID, Model: r.Model, Tenants: r.Tenants, Scale: r.Scale, Clients: r.Clients,
		Repetition: r.Repetition, Settings: r.Settings, Seed: r.Seed, Workload: e.spec.Workload.Name,
		Warmup:   time.Duration(e.spec.Workload.Warmup).Seconds(),
		Duration: time.Duration(e.spec.Workload.Duration).Seconds(), Start: e.t0}
	err := e.phasesUpTo(ctx)
	e.memWatch.finish(e.instances)
	err = errors.Join(append([]error{err}, e.memoryKillErrors()...)...)
	// The monitor stops before the servers do: its last round and the
	// DBMS statistics need them up.
	samples, merr := e.mon.Stop()
	if merr != nil {
		e.logf("monitor: %v", merr)
	}
	e.samples = samples
	if ctx.Err() != nil {
		err = fmt.Errorf("interrupted (%v) during the run; its results are partial: %w", context.Cause(ctx), err)
	}
	if !e.keep || err != nil {
		if terr := e.teardown(); terr != nil {
			err = errors.Join(err, terr)
		}
	} else {
		e.kept = keptOf(e.instances, e.placements, e.workDir)
	}
	sum.End = time.Now()
	sum.Status = results.StatusOK
	if err != nil {
		sum.Status = results.StatusFailed
		sum.Error = err.Error()
	}
	for i, inst := range e.instances {
		ri := results.Instance{Name: inst.Name, Port: inst.Port, Version: inst.Version, Cgroup: inst.Cgroup,
			CgroupMode: inst.CgroupMode, LimitsEnforced: inst.LimitsEnforced,
			CPUs: e.limits[i].CPUs, MemoryBytes: e.limits[i].MemoryBytes}
		for _, p := range e.placements {
			if p.Instance == inst {
				ri.Tenants = append(ri.Tenants, p.Tenant)
			}
		}
		sum.Instances = append(sum.Instances, ri)
	}
	sum.Phases = e.phases
	sum.MemoryKills = e.memoryKills()
	if e.result != nil {
		sum.Tenant = results.Totals(e.result.Result)
	}
	for i := range sum.Tenant {
		for _, p := range e.phases {
			if p.Tenant == sum.Tenant[i].Tenant {
				switch p.Phase {
				case "ingest":
					sum.Tenant[i].IngestS = p.Seconds()
				case "post-ingest":
					sum.Tenant[i].PostIngest = p.Seconds()
				}
			}
		}
	}
	sum.Provider = results.AggregateOf(sum.Tenant, e.phases)
	if e.samples != nil && e.result != nil {
		res := e.result.Result
		from := res.Start.Add(res.Warmup)
		w := e.samples.Window(from, from.Add(res.Duration))
		e.window = &w
		sum.Provider.Monitored(w.Total.CPU, w.Total.MemPeakMB, res.Duration.Seconds())
		sum.Provider.Footprint(w.Total.BackgroundAnonMB, w.Total.SharedMB, r.Tenants)
		if base, loaded, ok := memoryBaseAndLoaded(e.samples, from, from.Add(res.Duration)); ok {
			if r.Model == "instance" {
				// Each tenant brings its own server: the empty server is
				// part of what a tenant adds (metrics.MarginalMemoryPerTenant).
				base = 0
			}
			sum.Provider.Marginal(loaded, base, r.Tenants)
		}
		for i := range sum.Tenant {
			if c, ok := w.TenantCPU[sum.Tenant[i].Tenant]; ok {
				sum.Tenant[i].CPUS = &c
			}
		}
	}
	if e.result != nil {
		e.price(sum)
	}
	e.addAnalytical(sum) // after Monitored: E_CPU and E_RAM need its figures
	return sum
}

// price adds seed 004's resource unit cost and its P- and T-Score to the
// summary: the instances' limits, else what the monitor measured, at the
// spec's prices (results.PricedResources).
func (e *execution) price(sum *results.Summary) {
	a := &sum.Provider
	p, ok := results.PricedResources(sum.Instances, a.CPUS, a.MemPeakMB, e.result.Result.Duration.Seconds())
	if !ok {
		return
	}
	p.StorageGB = e.storage
	if secs := e.result.Result.Duration.Seconds(); e.window != nil && e.window.Total.IOOps >= 0 && secs > 0 {
		iops := float64(e.window.Total.IOOps) / secs
		p.IOPS = &iops
	}
	prices := metrics.DefaultPrices()
	prices.CPUPerVCoreHour, prices.MemoryPerGBHour = e.spec.Cost.CPUVCoreHour, e.spec.Cost.MemoryGBHour
	tps := make([]float64, len(sum.Tenant))
	for i, t := range sum.Tenant {
		tps[i] = t.TPS
	}
	a.Price(p, prices, tps)
}

// storageGB is the size of the run's data directories, priced as seed
// 004's storage (a local server is given no storage package: it pays for
// what it holds). Not ok when a directory cannot be read.
func (e *execution) storageGB() (float64, bool) {
	var bytes int64
	for _, inst := range e.instances {
		if inst == nil || inst.DataDir == "" {
			continue
		}
		err := filepath.WalkDir(inst.DataDir, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					bytes += fi.Size()
				}
			}
			return nil
		})
		if err != nil {
			return 0, false
		}
	}
	return float64(bytes) / (1 << 30), bytes > 0
}

// phasesUpTo runs provision through workload, stopping at the first
// failed phase.
func (e *execution) phasesUpTo(ctx context.Context) error {
	wd, err := os.MkdirTemp(e.opts.WorkRoot, "tenantbench-"+e.run.ID+"-")
	if err != nil {
		return fmt.Errorf("making the run's work directory: %w", err)
	}
	// The servers' unprivileged user must traverse it.
	if err := os.Chmod(wd, 0o755); err != nil {
		return err
	}
	e.workDir = wd
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"", e.watchMemory},
		{"provision", e.provision},
		{"", e.startMonitor},
		{"setup", e.setup},
		{"ingest", e.ingest},
		{"post-ingest", e.postIngest},
		{"workload", e.workload},
		{"check", e.check},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.name != "" {
			e.logf("%s", s.name)
		}
		err := s.fn(ctx)
		if err == nil && s.name == "workload" {
			// A dead server or a lost connection fails the run here,
			// before the check phase would only find the server gone.
			err = e.healthAfterWorkload()
		}
		if err != nil {
			return fmt.Errorf("phase %s: %w", s.name, err)
		}
	}
	return nil
}

// record adds one tenant's phase.
func (e *execution) record(tenant, phase string, start, end time.Time, err error) {
	p := results.Phase{Tenant: tenant, Phase: phase, Start: since(e.t0, start), End: since(e.t0, end), Status: "ok"}
	if err != nil {
		p.Status, p.Error = "failed", err.Error()
	}
	e.mu.Lock()
	e.phases = append(e.phases, p)
	e.mu.Unlock()
}

// perTenant runs fn for every tenant at once and records each tenant's
// time in the phase. It returns when all are done: the barrier.
func (e *execution) perTenant(ctx context.Context, phase string, fn func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range e.placements {
		g.Go(func() error {
			start := time.Now()
			err := fn(gctx, i)
			e.record(p.Tenant, phase, start, time.Now(), err)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", p.Tenant, err)
			}
			return nil
		})
	}
	return g.Wait()
}

func (e *execution) workload(ctx context.Context) error {
	lp := e.spec.LoadPlan(e.run) // the load shape and each tenant's schedule (issue 5)
	var ts []driver.Tenant
	for i, p := range e.placements {
		t := driver.Tenant{Name: p.Tenant, Connect: e.connect(i), Workload: e.workloads[i],
			Clients: e.run.Clients, Seed: uint64(e.run.Seed)*1000003 + uint64(i)}
		if i < len(lp.Tenants) {
			t.Load, t.Clients = &lp.Tenants[i], lp.Tenants[i].Conns
		}
		ts = append(ts, t)
	}
	w := e.spec.Workload
	opts := driver.Options{Warmup: time.Duration(w.Warmup), Duration: time.Duration(w.Duration),
		Progress: time.Duration(e.spec.Progress), Out: e.opts.Log, Label: e.label()}
	opts.Shape, opts.Think, opts.Open = lp.Shape, lp.Closed.Think, lp.Open
	if err := e.setTenants(); err != nil {
		return err
	}
	e.mark(ctx, "workload")
	start := time.Now()
	res, err := driver.Run(ctx, ts, opts)
	end := time.Now()
	e.collectStreams(res, end)
	e.mark(ctx, "after-workload")
	if res != nil {
		e.result = &workloadResult{Result: res}
	}
	if gb, ok := e.storageGB(); ok { // while the data directories are there
		e.storage = &gb
	}
	for _, p := range e.placements {
		e.record(p.Tenant, "workload", start, end, err)
	}
	return err
}

// startMonitor starts sampling the run's instances (issue 4 points 1-3).
// Monitoring is an observer: if it cannot start, the run goes on
// unmonitored and says so.
func (e *execution) startMonitor(ctx context.Context) error {
	if !e.opts.Monitor {
		return nil
	}
	m := monitor.New(monitor.Config{Instances: e.instances, Origin: e.t0})
	if err := m.Start(ctx); err != nil {
		e.logf("monitoring is off for this run: %v", err)
		return nil
	}
	e.mon = m
	return nil
}

// mark splits the monitor's wait histograms and DBMS deltas at a phase
// boundary.
func (e *execution) mark(ctx context.Context, label string) {
	if err := e.mon.Mark(ctx, label); err != nil {
		e.logf("monitor: %v", err)
	}
}

// healthAfterWorkload fails the run when a server died or a tenant lost a
// connection during it: its figures do not describe the intended system.
func (e *execution) healthAfterWorkload() error {
	var errs []error
	for _, inst := range e.instances {
		select {
		case <-inst.Exited:
			errs = append(errs, fmt.Errorf("instance %s exited during the run (see %s)", inst.Name, inst.LogFile))
		default:
		}
	}
	if e.result != nil {
		for _, t := range e.result.Result.Tenants {
			if t.ConnLost != "" {
				errs = append(errs, fmt.Errorf("tenant %s lost a connection at %.1f s: %s", t.Name, t.ConnLostAt.Seconds(), t.ConnLost))
			}
		}
	}
	return errors.Join(errs...)
}

// teardown stops the run's servers and removes its work directory. It
// runs with its own deadline, also after Ctrl-C.
func (e *execution) teardown() error {
	ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, inst := range e.instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.opts.Provider.Stop(ctx, inst); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("stopping instance %s: %w", inst.Name, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if e.workDir != "" {
		if err := os.RemoveAll(e.workDir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
