package provision

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// cloneDatabase: on the one server, the first tenant (the template) is
// placed, sets up, loads and post-ingests as in a loaded run; every other
// tenant's setup is its role, its ingest the copy of the template's
// database (CREATE DATABASE ... TEMPLATE, after the template's
// post-ingest), its post-ingest empty (keys, indexes and statistics came
// with the copy). The model is a tenancy.DatabaseCloner.
type cloneDatabase struct{}

func (cloneDatabase) Name() string { return CloneDatabase }
func (cloneDatabase) Clones() bool { return true }

func (cloneDatabase) Provision(ctx context.Context, r *Run) error { return startAll(ctx, r) }

func databaseCloner(r *Run) (tenancy.DatabaseCloner, error) {
	dc, ok := r.Model.(tenancy.DatabaseCloner)
	if !ok {
		return nil, fmt.Errorf("%s: the tenancy model cannot copy a tenant's database", CloneDatabase)
	}
	return dc, nil
}

// Setup places the templates (the first tenant of each class) and sets
// them up while the other tenants get their roles.
func (cloneDatabase) Setup(ctx context.Context, r *Run) error {
	dc, err := databaseCloner(r)
	if err != nil {
		return err
	}
	start := time.Now()
	tenants := r.Tenants
	ps := make([]tenancy.Placement, len(tenants))
	inst := r.Instances[0]
	r.templateWorkloads = map[int]workload.Workload{}
	g, gctx := errgroup.WithContext(ctx)
	// As many roles are made at once as clones below, each through one of
	// as many admin sessions, kept for the phase: not 1,000 sessions for
	// 1,000 tenants in a server sized for their clients.
	g.SetLimit(cloneLimit(r))
	cs := newCloners(dc, inst, cloneLimit(r))
	defer cs.close()
	// One template after the other: placing one locks the server down,
	// which concurrent placings would race on.
	g.Go(func() error {
		for _, t := range r.templates() {
			if err := r.setupTemplate(gctx, ps, t, start); err != nil {
				return err
			}
		}
		return nil
	})
	return r.setupCopies(g, start, ps, func(k int) (p tenancy.Placement, err error) {
		err = cs.with(gctx, func(c *tenancy.Cloner) error {
			p, err = c.AddRole(gctx, tenants[k], k)
			return err
		})
		return p, err
	})
}

// setupTemplate places template t on the one server, builds its
// workload and sets it up, recording its setup from start.
func (r *Run) setupTemplate(ctx context.Context, ps []tenancy.Placement, t int, start time.Time) error {
	tp, err := r.Model.Place(ctx, r.Instances, r.Tenants[t:t+1])
	if err == nil {
		ps[t] = tp[0]
		ps[t].Index = t // Place numbers the tenants it is given from 0
		var w workload.Workload
		w, err = r.Build(t)
		if err == nil {
			r.templateWorkloads[t] = w
			conn, cerr := r.Connect(ps[t])(ctx)
			if err = cerr; err == nil {
				err = w.Setup(ctx, conn)
				conn.Close(context.Background())
			}
		}
	}
	r.Record(r.Tenants[t], "setup", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", r.Tenants[t], err)
	}
	return nil
}

// Ingest loads and post-ingests the templates, one after the other, then
// copies each copy's template database, all at once.
func (cloneDatabase) Ingest(ctx context.Context, r *Run) error {
	dc, err := databaseCloner(r)
	if err != nil {
		return err
	}
	for _, t := range r.templates() {
		if err := r.loadTemplate(ctx, t); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cloneLimit(r))
	cs := newCloners(dc, r.Instances[0], cloneLimit(r))
	defer cs.close()
	for k := 1; k < len(r.Placements); k++ {
		t := r.templateOf(k)
		if t == k {
			continue
		}
		g.Go(func() error {
			start := time.Now()
			err := cs.with(gctx, func(c *tenancy.Cloner) error {
				return c.CloneDatabase(gctx, r.Placements[t], r.Placements[k])
			})
			r.Record(r.Placements[k].Tenant, "ingest", start, time.Now(), err)
			return err
		})
	}
	return g.Wait()
}

// cloneLimit is how many clones run at once. A clone holds up to two
// superuser connections (to postgres, then to the copy); max_connections
// was sized for the tenants' clients (spec.NeededConnections), so no more
// clones run at once than fit in them (20 tenants of one client: 10), and
// no more than twice AtOnce: each copy is the server's work (a copy of
// the template's files and two checkpoints, STRATEGY FILE_COPY), 100
// clones took as long 8 at a time as 64 at a time on 2 cores
// (BENCHMARKS.md), and 500 at once would only hold 1,000 sessions.
func cloneLimit(r *Run) int { return max(1, min(r.totalConns()/2, 2*AtOnce())) }

func (cloneDatabase) PostIngest(_ context.Context, r *Run) error {
	r.copiesPostIngested()
	return nil
}

// cloners are the admin sessions (tenancy.Cloner) of a phase's calls that
// run at once: a call takes a free one, or opens one, and gives it back,
// so that no more are open than calls run at once, and each is reused
// for a tenant after the other. A session whose call failed is closed,
// not reused.
type cloners struct {
	dc   tenancy.DatabaseCloner
	inst *provider.Instance
	free chan *tenancy.Cloner
}

// newCloners keeps up to n free sessions: n is the phase's limit on its
// calls at once.
func newCloners(dc tenancy.DatabaseCloner, inst *provider.Instance, n int) *cloners {
	return &cloners{dc: dc, inst: inst, free: make(chan *tenancy.Cloner, n)}
}

// with runs f on a session.
func (cs *cloners) with(ctx context.Context, f func(*tenancy.Cloner) error) error {
	var c *tenancy.Cloner
	select {
	case c = <-cs.free:
	default:
		var err error
		if c, err = cs.dc.OpenCloner(ctx, cs.inst); err != nil {
			return err
		}
	}
	if err := f(c); err != nil {
		c.Close()
		return err
	}
	select {
	case cs.free <- c:
	default: // more calls at once than n: not kept
		c.Close()
	}
	return nil
}

// close ends the free sessions; call it when no call runs any more.
func (cs *cloners) close() {
	for {
		select {
		case c := <-cs.free:
			c.Close()
		default:
			return
		}
	}
}
