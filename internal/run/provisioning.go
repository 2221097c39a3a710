package run

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provision"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// How the run's tenants get their servers, roles and data is the run's
// provisioning strategy (package provision), chosen once per run; the
// provision, setup, ingest and post-ingest steps call it.

// provisioning is the run's provisioning strategy and the state its
// phases hand on.
type provisioning struct {
	strategy provision.Strategy
	state    *provision.Run
}

// provisioning chooses the run's strategy and makes the state, on the
// first phase.
func (e *execution) provisioning() provisioning {
	if e.prov.state != nil {
		return e.prov
	}
	r := e.run
	m := e.opts.Models[r.Model]
	e.prov.strategy = provision.Choose(m, r.Provision, r.Tenants, provision.CanCloneServers(e.opts.Provider))
	e.prov.state = &provision.Run{Provider: e.opts.Provider, Model: m, Specs: e.instanceSpecs(),
		Tenants: tenancy.TenantNames(r.Tenants), Clients: r.Clients, Workload: e.spec.Workload.Name,
		Connect: e.connectTo, LoadConnect: e.loadConnect,
		Build:    func() (workload.Workload, error) { return e.opts.Workloads.Build(e.workloadSpec(), r.Scale) },
		Record:   e.record,
		Placed:   func(ps []tenancy.Placement) { e.mon.SetPlacements(ps) },
		Progress: func() provision.Progress { return newBars(e.opts.Log, e.opts.Terminal) },
		Logf:     e.logf}
	return e.prov
}

// provisionPhase runs one phase of the run's strategy and takes over
// what it made, also when it failed (teardown stops the servers started).
func (e *execution) provisionPhase(ctx context.Context, phase func(provision.Strategy, context.Context, *provision.Run) error) error {
	pr := e.provisioning()
	p := pr.state
	err := phase(pr.strategy, ctx, p)
	e.instances, e.limits, e.placements, e.workloads = p.Instances, p.Limits, p.Placements, p.Workloads
	return err
}

func (e *execution) provision(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.Provision)
}

func (e *execution) setup(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.Setup)
}

func (e *execution) ingest(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.Ingest)
}

func (e *execution) postIngest(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.PostIngest)
}

// instanceSpecs are the servers the run's model needs, with their limits.
func (e *execution) instanceSpecs() []provider.InstanceSpec {
	r := e.run
	n := e.opts.Models[r.Model].Instances(r.Tenants)
	res := e.spec.SUT.Resources
	cpus, mem := res.CPUs, int64(res.Memory)
	if res.Divide && n > 1 {
		// Equal total resources across models: S servers get 1/S each
		// (seed 000 section 4.1 gave each of S containers 480/S GB).
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

// connect returns how placed tenant i connects (connectTo).
func (e *execution) connect(i int) workload.Connect { return e.connectTo(e.placements[i]) }

// connectTo returns how the tenant of p connects: its role, its
// database, its search_path, over the spec's transport.
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

// loadConnect is how the tenant of p connects while it ingests: as
// connectTo, but with at most as many connections open at once as the
// tenant has clients, the connections max_connections was sized for
// (spec.NeededConnections). A loader that opens more (tpcc loads over up
// to 4) waits for one of its connections to close; the loaders take their
// units from a common queue, so the ones connected do the work.
func (e *execution) loadConnect(p tenancy.Placement) workload.Connect {
	slots := make(chan struct{}, max(1, e.run.Clients))
	dsn := p.DSN(e.spec.SUT.Transport)
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
