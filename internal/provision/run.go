package provision

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Run is the state of one run that the phases fill in and hand on, with
// what they need of the run.
type Run struct {
	Provider provider.Provider
	Model    tenancy.Model
	// Specs are the servers the model needs, with their limits: one, or
	// one per tenant.
	Specs   []provider.InstanceSpec
	Tenants []string // the tenants' names, in order
	Clients int      // each tenant's clients, when they are alike
	// Conns are each tenant's connections, in order (its class's where
	// tenants differ); nil when every tenant has Clients.
	Conns []int
	// Kin says which tenants hold the same data: tenants of equal Kin
	// (their class) copy one template, the first of them; nil when every
	// tenant holds the same.
	Kin []int
	// Workload is the workload's name, for messages.
	Workload string

	// Connect is how the tenant of p connects; LoadConnect, while it
	// ingests (within the connections it was sized for).
	Connect, LoadConnect func(p tenancy.Placement) workload.Connect
	// Build makes tenant i's workload.
	Build func(i int) (workload.Workload, error)
	// Record adds one tenant's time in a phase to the run's phases.
	Record func(tenant, phase string, start, end time.Time, err error)
	// Placed tells the monitor where the tenants live.
	Placed func(ps []tenancy.Placement)
	// Progress shows ingest progress; one per ingest.
	Progress func() Progress
	Logf     func(format string, a ...any)

	// What the phases make. Instances has the servers started, also
	// after a failed phase (teardown stops them); Limits are the specs
	// they were started with.
	Instances  []*provider.Instance
	Limits     []provider.InstanceSpec
	Placements []tenancy.Placement
	Workloads  []workload.Workload

	mu sync.Mutex // guards Instances while servers start
	// owner is the workload of the shared tables' owner (SharedTables).
	owner workload.Workload
	// templateWorkloads are the workloads of the tenants whose data the
	// others copy (CloneDatabase, CloneDatadir), by tenant index.
	templateWorkloads map[int]workload.Workload
	// stopped are the template servers stopped for copying
	// (CloneDatadir), to be started again.
	stopped map[int]bool
}

// templates are the tenants whose data the others copy: the first of
// each kin, in order; tenant 0 alone when all are kin.
func (r *Run) templates() []int {
	if r.Kin == nil {
		return []int{0}
	}
	var out []int
	seen := map[int]bool{}
	for i, k := range r.Kin {
		if !seen[k] {
			seen[k] = true
			out = append(out, i)
		}
	}
	return out
}

// templateOf is the template tenant i copies.
func (r *Run) templateOf(i int) int {
	if r.Kin == nil {
		return 0
	}
	for j := range i {
		if r.Kin[j] == r.Kin[i] {
			return j
		}
	}
	return i
}

// totalConns is the connections of all tenants together.
func (r *Run) totalConns() int {
	if r.Conns == nil {
		return len(r.Tenants) * r.Clients
	}
	n := 0
	for _, c := range r.Conns {
		n += c
	}
	return n
}

// Progress shows ingest progress per tenant.
type Progress interface {
	// Add makes tenant's bar and returns the callback that moves it.
	Add(tenant string, total int64) func(rows int64)
	// Done ends tenant's bar.
	Done(tenant string, err error)
	// Wait returns when every bar is drawn.
	Wait()
}

// startAll starts every server of the run at once; each tenant's
// provision is its server's start (one server: every tenant's).
func startAll(ctx context.Context, r *Run) error {
	n := len(r.Specs)
	r.Instances = make([]*provider.Instance, n)
	r.Limits = r.Specs
	g, gctx := errgroup.WithContext(ctx)
	for i, is := range r.Specs {
		g.Go(func() error {
			start := time.Now()
			inst, err := r.Provider.Start(gctx, is)
			end := time.Now()
			r.setInstance(i, inst)
			for ti, t := range r.Tenants {
				if n == 1 || ti == i {
					r.Record(t, "provision", start, end, err)
				}
			}
			if err != nil {
				return fmt.Errorf("instance %s: %w", is.Name, err)
			}
			return nil
		})
	}
	err := g.Wait()
	r.Instances = compact(r.Instances)
	return err
}

func (r *Run) setInstance(i int, inst *provider.Instance) {
	if inst == nil {
		return
	}
	r.mu.Lock()
	r.Instances[i] = inst
	r.mu.Unlock()
}

func compact(in []*provider.Instance) []*provider.Instance {
	var out []*provider.Instance
	for _, i := range in {
		if i != nil {
			out = append(out, i)
		}
	}
	return out
}

// placed keeps ps as the run's placements and tells the monitor.
func (r *Run) placed(ps []tenancy.Placement) {
	r.Placements = ps
	if r.Placed != nil {
		r.Placed(ps)
	}
}

// setupCopies sets up every tenant but the templates (set up apart in
// g) at once, each by each, recording its setup from start; when all are
// done it places them and builds their workloads, the templates keeping
// their own.
func (r *Run) setupCopies(g *errgroup.Group, start time.Time, ps []tenancy.Placement, each func(k int) (tenancy.Placement, error)) error {
	tmpl := map[int]bool{}
	for _, t := range r.templates() {
		tmpl[t] = true
	}
	for k := 1; k < len(ps); k++ {
		if tmpl[k] {
			continue
		}
		g.Go(func() error {
			p, err := each(k)
			ps[k] = p
			r.Record(r.Tenants[k], "setup", start, time.Now(), err)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", r.Tenants[k], err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	r.placed(ps)
	if err := r.buildWorkloads(len(ps)); err != nil {
		return err
	}
	for t, w := range r.templateWorkloads {
		r.Workloads[t] = w
	}
	return nil
}

// buildWorkloads makes the workload of each of n tenants.
func (r *Run) buildWorkloads(n int) error {
	r.Workloads = make([]workload.Workload, n)
	for i := range r.Workloads {
		w, err := r.Build(i)
		if err != nil {
			return err
		}
		r.Workloads[i] = w
	}
	return nil
}

// perTenant runs fn for every placed tenant, at most limit at once (0:
// all at once), and records each tenant's time in the phase from its own
// start. It returns when all are done: the barrier.
func (r *Run) perTenant(ctx context.Context, phase string, limit int, fn func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit)
	}
	for i, p := range r.Placements {
		g.Go(func() error {
			start := time.Now()
			err := fn(gctx, i)
			r.Record(p.Tenant, phase, start, time.Now(), err)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", p.Tenant, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// AtOnce is how many tenants post-ingest (keys, indexes, VACUUM ANALYZE)
// at once when they load their own data, and how many servers are copied
// and started at once: twice the machine's CPUs, at least 4. The work is
// the server's; more sessions at once than it has CPUs only wait, and
// every session connected must read every other's catalog invalidations
// (a shared database's 1,000 tenants adding keys at once took 189 s on 2
// cores; BENCHMARKS.md). A tenant's time in the phase is its own, from
// when it starts.
func AtOnce() int { return max(4, 2*runtime.NumCPU()) }

// setupTenant creates tenant i's tables over a connection of its own.
func (r *Run) setupTenant(ctx context.Context, i int) error {
	conn, err := r.Connect(r.Placements[i])(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return r.Workloads[i].Setup(ctx, conn)
}

// postIngestTenant adds tenant i's keys and indexes and refreshes its
// statistics.
func (r *Run) postIngestTenant(ctx context.Context, i int) error {
	conn, err := r.Connect(r.Placements[i])(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return r.Workloads[i].PostIngest(ctx, conn)
}

// ingestTenant loads tenant i's data, with its progress bar.
func (r *Run) ingestTenant(ctx context.Context, bars Progress, i int) error {
	p, w := r.Placements[i], r.Workloads[i]
	progress := bars.Add(p.Tenant, w.Rows())
	err := w.Ingest(ctx, r.LoadConnect(p), progress)
	bars.Done(p.Tenant, err)
	return err
}

// loadTemplate runs template t's ingest and post-ingest, recording both.
func (r *Run) loadTemplate(ctx context.Context, t int) error {
	tenant := r.Placements[t].Tenant
	bars := r.Progress()
	start := time.Now()
	err := r.ingestTenant(ctx, bars, t)
	bars.Wait()
	r.Record(tenant, "ingest", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", tenant, err)
	}
	start = time.Now()
	err = r.postIngestTenant(ctx, t)
	r.Record(tenant, "post-ingest", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", tenant, err)
	}
	return nil
}

// copiesPostIngested records the empty post-ingest of the copies: their
// keys, indexes and statistics came with the template's data. The
// templates' own was recorded when it ran.
func (r *Run) copiesPostIngested() {
	now := time.Now()
	for i, p := range r.Placements {
		if r.templateOf(i) != i {
			r.Record(p.Tenant, "post-ingest", now, now, nil)
		}
	}
}
