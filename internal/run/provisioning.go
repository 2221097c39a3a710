package run

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// How tenants get their data besides every tenant loading its own: the
// shared-table model, where the tables' owner sets up, loads the shared
// read-only tables and indexes once and every tenant adds its own rows;
// and cloned provisioning (workload.provision: clone), where the first
// tenant loads and the others get a copy: in the database model CREATE
// DATABASE ... TEMPLATE, in the instance model a copy of the first server's
// stopped data directory.
//
// Phases of a cloned run, per tenant (phases.csv):
//
//   - the first tenant (the template) records provision, setup, ingest and
//     post-ingest as in a loaded run;
//   - database model: every other tenant's setup is its role, its ingest
//     the copy of the template's database (after the template's
//     post-ingest), its post-ingest empty (keys, indexes and statistics
//     came with the copy);
//   - instance model: every other tenant's ingest is the copy of the
//     template server's data directory, its provision the start of its
//     server on the copy, its setup the renaming of the template's role and
//     database to its own, its post-ingest empty. All of this happens in the
//     run's provision step, before monitoring starts, so that the monitor
//     sees every server from the start.

// provisioning is the state of a run that the phases hand on.
type provisioning struct {
	owner    workload.Workload // shared-table: the workload of the tables' owner
	template *tenancy.Placement
	// templateWorkload is the template's workload (instance model: made
	// in the provision step).
	templateWorkload workload.Workload
}

// cloner is a provider that can copy a stopped server (the local one).
type cloner interface {
	Clone(ctx context.Context, src *provider.Instance, s provider.InstanceSpec) (*provider.Instance, time.Duration, error)
	Restart(ctx context.Context, inst *provider.Instance) (*provider.Instance, error)
}

// cloning says whether the run clones its tenants' data: the plan says so
// (see spec.Provision) and, for the instance model, the provider can copy
// servers.
func (e *execution) cloning() bool {
	if e.run.Provision != spec.ProvisionClone {
		return false
	}
	if e.run.Model == "instance" {
		_, ok := e.opts.Provider.(cloner)
		return ok
	}
	return e.run.Model == "database"
}

// sharedTable says whether the run is of the shared-table model.
func (e *execution) sharedTable() bool { return e.run.Model == spec.SharedTable }

// instanceSpecs are the servers the run's model needs, with their limits.
func (e *execution) instanceSpecs() []provider.InstanceSpec {
	r := e.run
	n := e.opts.Models[r.Model].Instances(r.Tenants)
	res := e.spec.SUT.Resources
	cpus, mem := res.CPUs, int64(res.Memory)
	if res.Divide && n > 1 {
		// Equal total resources across models: S servers get 1/S each
		// (Erdelt and Rabl 2026, section 4.1, gave each of S containers 480/S
		// GB).
		cpus, mem = cpus/float64(n), mem/int64(n)
	}
	tenants := tenancy.TenantNames(r.Tenants)
	perInstance := r.Tenants / n
	specs := make([]provider.InstanceSpec, n)
	for i := range specs {
		name := "shared"
		if n > 1 {
			name = tenants[i]
		}
		specs[i] = provider.InstanceSpec{Name: name, WorkDir: e.workDir, Version: e.spec.SUT.Version,
			Settings: r.Settings, MaxConnections: spec.NeededConnections(r.Model, perInstance, r.Clients),
			CPUs: cpus, MemoryBytes: mem}
	}
	return specs
}

// buildWorkloads makes every tenant's workload.
func (e *execution) buildWorkloads(n int) error {
	e.workloads = make([]workload.Workload, n)
	for i := range e.workloads {
		w, err := e.opts.Workloads.Build(e.workloadSpec(), e.run.Scale)
		if err != nil {
			return err
		}
		e.workloads[i] = w
	}
	return nil
}

// loadTenant runs tenant i's ingest and post-ingest, recording both.
func (e *execution) loadTenant(ctx context.Context, i int) error {
	p, w := e.placements[i], e.workloads[i]
	bars := newBars(e.opts.Log, e.opts.Terminal)
	start := time.Now()
	progress := bars.add(p.Tenant, w.Rows())
	err := w.Ingest(ctx, e.loadConnect(i), progress)
	bars.done(p.Tenant, err)
	bars.wait()
	e.record(p.Tenant, "ingest", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	start = time.Now()
	conn, err := e.connect(i)(ctx)
	if err == nil {
		err = w.PostIngest(ctx, conn)
		conn.Close(context.Background())
	}
	e.record(p.Tenant, "post-ingest", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	return nil
}

// provisionClones is the provision step of a cloned instance-model run:
// the first tenant's server is started, its tenant placed, set up, loaded
// and post-ingested; the server is stopped, copied for every other tenant
// and started again with the copies.
func (e *execution) provisionClones(ctx context.Context, specs []provider.InstanceSpec) error {
	cl := e.opts.Provider.(cloner)
	tenants := tenancy.TenantNames(e.run.Tenants)
	e.limits = specs
	e.instances = make([]*provider.Instance, len(specs))
	defer func() { e.instances = compact(e.instances) }()
	start := time.Now()
	inst, err := e.opts.Provider.Start(ctx, specs[0])
	e.instances[0] = inst
	e.record(tenants[0], "provision", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("instance %s: %w", specs[0].Name, err)
	}
	e.logf("provision: %s is the template of %d cloned servers", tenants[0], len(specs)-1)
	start = time.Now()
	ps, err := tenancy.Instance{}.Place(ctx, e.instances[:1], tenants[:1])
	if err == nil {
		e.placements = ps
		err = e.buildWorkloads(1)
	}
	if err == nil {
		conn, cerr := e.connect(0)(ctx)
		if err = cerr; err == nil {
			err = e.workloads[0].Setup(ctx, conn)
			conn.Close(context.Background())
		}
	}
	e.record(tenants[0], "setup", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", tenants[0], err)
	}
	if err := e.loadTenant(ctx, 0); err != nil {
		return err
	}
	// A fast shutdown ends with a checkpoint: the data directory is
	// consistent and needs no recovery in its copies.
	if err := e.opts.Provider.Stop(ctx, inst); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for k := 1; k < len(specs); k++ {
		g.Go(func() error {
			start := time.Now()
			c, copied, err := cl.Clone(gctx, inst, specs[k])
			end := time.Now()
			if c != nil {
				e.mu.Lock()
				e.instances[k] = c
				e.mu.Unlock()
			}
			if err != nil {
				e.record(tenants[k], "ingest", start, end, err)
				return err
			}
			e.record(tenants[k], "ingest", start, start.Add(copied), nil)
			e.record(tenants[k], "provision", start.Add(copied), end, nil)
			return nil
		})
	}
	err = g.Wait()
	// The template's server comes back in any case, so that teardown
	// finds every server as the run left it.
	again, rerr := cl.Restart(context.WithoutCancel(ctx), inst)
	if rerr == nil {
		e.instances[0] = again
		e.placements[0].Instance = again
	}
	if err = errors.Join(err, rerr); err != nil {
		return err
	}
	e.prov.template = &e.placements[0]
	e.prov.templateWorkload = e.workloads[0]
	return nil
}

// setupClones is the setup step of a cloned run. Database model: the
// first tenant is placed and set up, the others get their roles.
// Instance model: each copy of the template's server is handed to its
// tenant (tenancy.AdoptClone).
func (e *execution) setupClones(ctx context.Context) error {
	start := time.Now()
	tenants := tenancy.TenantNames(e.run.Tenants)
	ps := make([]tenancy.Placement, len(tenants))
	g, gctx := errgroup.WithContext(ctx)
	if e.run.Model == "instance" {
		ps[0] = *e.prov.template
		for k := 1; k < len(tenants); k++ {
			g.Go(func() error {
				p, err := tenancy.AdoptClone(gctx, e.instances[k], ps[0], tenants[k], k)
				ps[k] = p
				e.record(tenants[k], "setup", start, time.Now(), err)
				if err != nil {
					return fmt.Errorf("tenant %s: %w", tenants[k], err)
				}
				return nil
			})
		}
		err := g.Wait()
		if err != nil {
			return err
		}
		e.placements = ps
		e.mon.SetPlacements(ps)
		w0 := e.prov.templateWorkload
		if err := e.buildWorkloads(len(ps)); err != nil {
			return err
		}
		e.workloads[0] = w0
		return nil
	}
	// database
	inst := e.instances[0]
	g.Go(func() error {
		tp, err := tenancy.Database{}.Place(gctx, e.instances, tenants[:1])
		if err == nil {
			ps[0] = tp[0]
			var w workload.Workload
			w, err = e.opts.Workloads.Build(e.workloadSpec(), e.run.Scale)
			if err == nil {
				e.prov.templateWorkload = w
				conn, cerr := e.connectTo(ps[0])(gctx)
				if err = cerr; err == nil {
					err = w.Setup(gctx, conn)
					conn.Close(context.Background())
				}
			}
		}
		e.record(tenants[0], "setup", start, time.Now(), err)
		if err != nil {
			return fmt.Errorf("tenant %s: %w", tenants[0], err)
		}
		return nil
	})
	for k := 1; k < len(tenants); k++ {
		g.Go(func() error {
			p, err := tenancy.AddRole(gctx, inst, tenants[k], k)
			ps[k] = p
			e.record(tenants[k], "setup", start, time.Now(), err)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", tenants[k], err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	e.placements = ps
	e.prov.template = &e.placements[0]
	e.mon.SetPlacements(ps)
	if err := e.buildWorkloads(len(ps)); err != nil {
		return err
	}
	e.workloads[0] = e.prov.templateWorkload
	return nil
}

// ingestClones is the ingest step of a cloned run. Database model: the
// template loads and post-ingests, then every other tenant's database is
// copied from it, all at once. Instance model: done in the provision
// step.
func (e *execution) ingestClones(ctx context.Context) error {
	if e.run.Model == "instance" {
		return nil
	}
	if err := e.loadTenant(ctx, 0); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	// A clone holds up to two superuser connections (to postgres, then to
	// the copy); max_connections was sized for the tenants' clients
	// (spec.NeededConnections), so as many clones run at once as fit in
	// them: 20 tenants of one client clone 10 at a time.
	g.SetLimit(max(1, e.run.Tenants*e.run.Clients/2))
	for k := 1; k < len(e.placements); k++ {
		g.Go(func() error {
			start := time.Now()
			err := tenancy.CloneDatabase(gctx, e.placements[0], e.placements[k])
			e.record(e.placements[k].Tenant, "ingest", start, time.Now(), err)
			return err
		})
	}
	return g.Wait()
}

// postIngestClones records the empty post-ingest of the copies: their
// keys, indexes and statistics came with the template's data. The
// template's own was recorded when it ran.
func (e *execution) postIngestClones(context.Context) error {
	now := time.Now()
	for _, p := range e.placements[1:] {
		e.record(p.Tenant, "post-ingest", now, now, nil)
	}
	return nil
}

// connectTo is how the tenant of p connects, as connect does for a
// placed tenant.
func (e *execution) connectTo(p tenancy.Placement) workload.Connect {
	dsn := p.DSN(e.spec.SUT.Transport)
	return func(ctx context.Context) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, errors.New("bad connection settings") // never echo the DSN: it holds the password
		}
		return pgx.ConnectConfig(ctx, cfg)
	}
}

// setupShared is the setup step of the shared-table model: the roles and
// the database (tenancy.SharedTable), the tables created once by their
// owner (the workload without a key), then every tenant's policies and
// privileges. Each tenant's setup is that whole step.
func (e *execution) setupShared(ctx context.Context) error {
	start := time.Now()
	err := e.setupSharedTables(ctx)
	for _, t := range tenancy.TenantNames(e.run.Tenants) {
		e.record(t, "setup", start, time.Now(), err)
	}
	return err
}

func (e *execution) setupSharedTables(ctx context.Context) error {
	inst := e.instances[0]
	ps, err := tenancy.SharedTable{}.Place(ctx, e.instances, tenancy.TenantNames(e.run.Tenants))
	if err != nil {
		return err
	}
	e.placements = ps
	e.mon.SetPlacements(ps)
	owner, err := e.opts.Workloads.Build(e.workloadSpec(), e.run.Scale)
	if err != nil {
		return err
	}
	sh, ok := owner.(workload.Shared)
	if !ok {
		return fmt.Errorf("workload %s has no tenant key: the shared-table model needs one of %v", e.spec.Workload.Name, spec.SharedTableWorkloads())
	}
	e.prov.owner = owner
	e.workloads = make([]workload.Workload, len(ps))
	for i := range ps {
		w, err := sh.ForTenant(workload.TenantKey{Index: i, Tenants: len(ps)})
		if err != nil {
			return err
		}
		e.workloads[i] = w
	}
	conn, err := tenancy.ConnectOwner(ctx, inst)
	if err != nil {
		return err
	}
	err = owner.Setup(ctx, conn)
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("creating the shared tables: %w", err)
	}
	return tenancy.SharedTable{}.Share(ctx, inst, ps, sh.KeyColumns(), func(i int) (int64, int64) {
		return sh.KeyRange(workload.TenantKey{Index: i, Tenants: len(ps)})
	})
}

// ingestShared is the ingest step of the shared-table model: the owner
// loads the shared read-only tables while every tenant adds its own rows.
// A tenant's ingest ends when its rows and the shared ones are in.
func (e *execution) ingestShared(ctx context.Context) error {
	sh := e.prov.owner.(workload.Shared)
	bars := newBars(e.opts.Log, e.opts.Terminal)
	defer bars.wait()
	shared := make(chan struct{})
	var sharedErr error
	go func() {
		defer close(shared)
		progress := bars.add("shared", sh.SharedRows())
		owner := func(ctx context.Context) (*pgx.Conn, error) { return tenancy.ConnectOwner(ctx, e.instances[0]) }
		sharedErr = sh.IngestShared(ctx, owner, progress)
		bars.done("shared", sharedErr)
	}()
	err := e.perTenant(ctx, "ingest", func(ctx context.Context, i int) error {
		w := e.workloads[i]
		progress := bars.add(e.placements[i].Tenant, w.Rows())
		err := w.Ingest(ctx, e.loadConnect(i), progress)
		bars.done(e.placements[i].Tenant, err)
		<-shared
		if err == nil && sharedErr != nil {
			err = fmt.Errorf("loading the shared tables: %w", sharedErr)
		}
		return err
	})
	<-shared
	return err
}

// postIngestShared is the post-ingest step of the shared-table model: the
// owner adds the keys and indexes and refreshes the statistics of the
// shared tables once; every tenant's post-ingest is that step.
func (e *execution) postIngestShared(ctx context.Context) error {
	start := time.Now()
	conn, err := tenancy.ConnectOwner(ctx, e.instances[0])
	if err == nil {
		err = e.prov.owner.PostIngest(ctx, conn)
		conn.Close(context.Background())
	}
	for _, p := range e.placements {
		e.record(p.Tenant, "post-ingest", start, time.Now(), err)
	}
	return err
}

// loadConnect is how tenant i's ingest connects: as connect, but with at
// most as many connections open at once as the tenant has clients, the
// connections max_connections was sized for (spec.NeededConnections). A
// loader that opens more (tpcc loads over up to 4) waits for one of its
// connections to close; the loaders take their units from a common
// queue, so the ones connected do the work.
func (e *execution) loadConnect(i int) workload.Connect {
	slots := make(chan struct{}, max(1, e.run.Clients))
	dsn := e.placements[i].DSN(e.spec.SUT.Transport)
	return func(ctx context.Context) (*pgx.Conn, error) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var once sync.Once
		release := func() { once.Do(func() { <-slots }) }
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			release()
			return nil, errors.New("bad connection settings") // never echo the DSN: it holds the password
		}
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &releasingConn{Conn: c, release: release}, nil
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			release()
			return nil, err
		}
		return conn, nil
	}
}

// releasingConn gives its slot back when the connection closes.
type releasingConn struct {
	net.Conn
	release func()
}

func (c *releasingConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// workloadSpec is the run's workload: the spec's, with the options of the
// run's entry of workload.cases.
func (e *execution) workloadSpec() *spec.Workload {
	w := e.spec.Workload
	if e.run.Options != nil {
		w.Options = *e.run.Options
	}
	return &w
}
