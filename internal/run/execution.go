package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/elastic"
	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/plan"
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
// post-ingest -> workload -> check -> teardown (Erdelt and Rabl 2026,
// section 4.2). Every tenant enters each phase together: a phase starts when
// the previous one has ended for all tenants.
type execution struct {
	opts    Options
	plan    *plan.Plan
	spec    *spec.Spec
	run     *plan.Run
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
	obs        *results.Observations // what do gathered, for writeRun
	prov       provisioning          // the provisioning strategy and its state (provisioning.go)
	storage    *float64              // GB in the data directories after the workload (storageGB)
	// Query streams (TPC-H), when the workload phase ended, and memory
	// kills (streams.go, memwatch.go).
	streams     []results.TenantStreams
	workloadEnd time.Time
	memWatch    *memWatch
	// targets is the load's target of every second of the workload
	// phase, summed over tenants (targets.csv); nil without a schedule.
	targets []float64
	// keptLogs are the copies of server logs kept in the results
	// directory, by instance, and the instances whose exit the run's error
	// names already (evidence.go).
	keptLogs  map[string]string
	logMu     sync.Mutex // keptLogs: servers start in parallel
	exitNamed map[string]bool
	// interf is the run's interference (interference.go); events what
	// it did, nil without any; hostIdle the host's idle CPU in percent
	// over the workload phase.
	interf *interference
	// net is the run's network namespace and link (sut.network), nil
	// for none (network.go).
	net *netns.Net
	// abort ends the run's phases with a cause (a dead delayer).
	abort    context.CancelCauseFunc
	events   []results.Event
	hostIdle *float64
	// pools are the poolers in front of the servers, by instance
	// (pooler.go); nil without sut.pooler.
	pools   map[string]*provider.Pool
	poolUse map[string]*poolerUse
	// elastic changes the servers' limits during the workload phase
	// (elastic.go), nil without sut.resources.schedule or autoscale;
	// limitChanges are what it did (limits.csv), elasticErr why it
	// could not start.
	elastic      *elastic.Controller
	limitChanges []results.LimitChange
	elasticErr   error
	// lags are what a lag workload measured (replicas.go), nil for none.
	lags []workload.LagHistogram
	// placeMu guards placements[i].Instance and pools while the workload
	// runs: a fail-over moves tenants to the promoted server
	// (failover.go); replaced names the servers it killed, by design.
	placeMu  sync.RWMutex
	replaced map[string]string
}

func (e *execution) label() string {
	r := e.run
	// A case's name and, with several engines, the engine tell runs apart
	// that share a model, tenants and clients (Matos and Pedreira's
	// matrix: each case on each engine).
	what := ""
	if r.Case != "" {
		what += " " + r.Case
	}
	if e.plan != nil && len(e.plan.Dimensions.Engines) > 1 {
		what += " " + r.Engine
	}
	return fmt.Sprintf("[%s%s %s %dt %dc r%d]", r.ID, what, r.Model, r.Tenants, r.Clients, r.Repetition)
}

func (e *execution) logf(format string, a ...any) {
	fmt.Fprintf(e.opts.Log, e.label()+" "+format+"\n", a...)
}

// do executes the run and returns its summary; it never panics on a
// failed phase, it records it. It gathers what the run observed; the
// figures are results.Summarize's.
func (e *execution) do(ctx context.Context) *results.Summary {
	e.t0 = time.Now()
	// The phases' own context: cancelled, with its cause, when the run
	// can no longer measure what it asked for (network.go); ctx stays
	// the user's (Ctrl-C: interrupted).
	phaseCtx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	e.abort = abort
	err := e.phasesUpTo(phaseCtx)
	e.memWatch.finish(e.instances)
	err = errors.Join(append(append(append([]error{err}, e.memoryKillErrors()...), e.exitedErrors()...), e.networkErrors()...)...)
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
		e.opts.Live.Phase("teardown")
		if terr := e.teardown(); terr != nil {
			err = errors.Join(err, terr)
		}
	} else {
		e.kept = keptOf(e.instances, e.placements, e.workDir, e.plan.EngineOf(e.run), e.plan.Provider)
	}
	e.obs = e.observations(time.Now(), err)
	if ctx.Err() != nil {
		e.obs.Interrupted = context.Cause(ctx)
	}
	return results.Summarize(e.obs)
}

// storageGB is the size of the run's data directories, priced as Zhang et
// al. (2025) price storage (a local server is given no storage package: it
// pays for what it holds). Not ok when a directory cannot be read.
func (e *execution) storageGB() (float64, bool) {
	var bytes int64
	for _, inst := range e.instances {
		if inst == nil {
			continue
		}
		st, ok := provider.As[provider.Storage](inst)
		if !ok {
			continue
		}
		n, err := st.StorageBytes()
		if err != nil {
			return 0, false
		}
		bytes += n
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
	e.opts.Ledger.AddWorkDir(wd)
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
			e.opts.Live.Phase(s.name)
		}
		err := s.fn(ctx)
		if err == nil && s.name == "workload" {
			// A dead server or a lost connection fails the run here,
			// before the check phase would only find the server gone.
			err = e.healthAfterWorkload()
		}
		if err != nil {
			err = fmt.Errorf("phase %s: %w", s.name, err)
			e.failPhase(s.name, err)
			return err
		}
	}
	return nil
}

// failPhase marks phase failed for every tenant that recorded it: a phase
// fails as a whole (a dead server, a lost connection or another tenant's
// failure also fails the tenants whose own part ended well), so that no
// tenant's row says ok for a phase the run failed in. A tenant's own error
// stays; the others get the phase's.
func (e *execution) failPhase(phase string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.phases {
		if p := &e.phases[i]; p.Phase == phase && p.Status != "failed" {
			p.Status, p.Error = "failed", "the phase failed: "+err.Error()
		}
	}
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
	lp := e.plan.Targets(e.run) // the load shape and each tenant's schedule
	e.targets = perSecond(lp, e.spec.Workload.Phase())
	var ts []driver.Tenant
	for i, p := range e.placements {
		t := driver.Tenant{Name: p.Tenant, Connect: e.workloadConnect(i), Replicas: e.replicaConnects(i), Workload: e.workloads[i],
			Clients: e.run.Clients, Seed: uint64(e.run.Seed)*1000003 + uint64(i)}
		if i < len(lp.Tenants) {
			t.Load, t.Clients = &lp.Tenants[i], lp.Tenants[i].Conns
		}
		ts = append(ts, t)
	}
	w := e.spec.Workload
	opts := driver.Options{Warmup: time.Duration(w.Warmup), Duration: time.Duration(w.Duration),
		Progress: time.Duration(e.spec.Progress), Out: e.opts.Log, Label: e.label(), Procs: e.opts.Procs}
	opts.Shape = lp.Shape
	interfering := e.measureLags(e.startsWith(ctx, time.Duration(w.Warmup)+time.Duration(w.Duration)))
	opts.Started = func(start time.Time, w *driver.Watch) {
		e.startElastic(ctx, start)
		interfering(start, w)
	}
	// Faults make failed attempts by design and the run goes on through
	// them; --fail-fast stops it at the first (the experiment then stops,
	// its results so far written).
	opts.StopAtFail = e.opts.FailFast && e.faults()
	if e.opts.Live != nil { // a nil *live.Metrics in the interface would not be nil
		opts.Live = e.opts.Live
	}
	if err := e.setTenants(); err != nil {
		return err
	}
	leave, err := e.enterDriverGroup()
	if err != nil {
		return err
	}
	e.mark(ctx, "workload")
	e.poolersBefore()
	start := time.Now()
	res, err := driver.Run(ctx, ts, opts)
	end := time.Now()
	e.poolersAfter()
	e.collectLags()
	e.stopInterference()
	err = errors.Join(err, e.stopElastic())
	// After the noise beside it has stopped: its group is then empty.
	err = errors.Join(err, leave())
	e.collectStreams(end)
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

// startMonitor starts sampling the run's instances: resources, DBMS
// statistics, wait events. Monitoring is an observer: if it cannot start, the
// run goes on unmonitored and says so.
func (e *execution) startMonitor(ctx context.Context) error {
	if !e.opts.Monitor {
		return nil
	}
	cfg := monitor.Config{Instances: e.instances, Origin: e.t0, Model: e.opts.Models[e.run.Model]}
	// The clients' sockets come first: the monitor keeps open only what
	// they leave of the process's file limit (none: -1; 0 is no bound).
	if spare, ok := e.plan.SpareFiles(e.run); ok {
		cfg.KeepFiles = spare
		if spare == 0 {
			cfg.KeepFiles = -1
		}
	}
	if lv := e.opts.Live; lv != nil {
		cfg.Observe = func(l monitor.Latest) {
			lv.Instance(l.Instance, l.CPUSeconds, l.MemoryBytes, l.CPUSource, l.MemorySource)
		}
	}
	m := monitor.New(cfg)
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
		if err := e.exited(inst); err != nil {
			errs = append(errs, err)
		}
	}
	// Faults break connections on purpose; the clients reconnected and
	// every failed attempt is counted. Only --fail-fast fails the run.
	if e.result != nil && (!e.faults() || e.opts.FailFast) {
		for _, t := range e.result.Result.Tenants {
			if t.ConnLost != "" {
				errs = append(errs, fmt.Errorf("tenant %s lost a connection at %.1f s: %s", t.Name, t.ConnLostAt.Seconds(), t.ConnLost))
			}
		}
	}
	return errors.Join(errs...)
}

// teardown stops the run's servers, removes its network namespace and
// its work directory. It
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
				return
			}
			if r, ok := e.opts.Provider.(provider.Remover); ok {
				if err := r.Remove(ctx, inst); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("removing instance %s: %w", inst.Name, err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) == 0 {
		// Only once no server is left in it: a namespace with a
		// process in it outlives its name.
		if err := e.closeNetwork(); err != nil {
			errs = append(errs, err)
		}
	}
	if e.workDir != "" {
		if err := os.RemoveAll(e.workDir); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && e.workDir != "" {
		// All stopped and removed: nothing of the run is left to find.
		e.opts.Ledger.DoneWith(e.workDir)
	}
	return errors.Join(errs...)
}
