package run

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/plan"
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

// provisioning takes the strategy the plan chose for the run and makes
// its state, on the first phase.
func (e *execution) provisioning() (provisioning, error) {
	if e.prov.state != nil {
		return e.prov, nil
	}
	r := e.run
	m := e.opts.Models[r.Model]
	st, ok := provision.Lookup(r.Provisioning)
	if !ok {
		return e.prov, fmt.Errorf("the plan's provisioning %q is not a strategy of this tenantbench", r.Provisioning)
	}
	e.prov.strategy = st
	tws := e.plan.TenantWorkloads(r)
	specs, err := e.instanceSpecs()
	if err != nil {
		return e.prov, err
	}
	e.prov.state = &provision.Run{Provider: e.opts.Provider, Model: m, Specs: specs,
		Tenants: r.Names(), Clients: r.Clients, Workload: e.run.Workload,
		Connect: e.connectTo, LoadConnect: e.loadConnect,
		Build: func(i int) (workload.Workload, error) {
			return e.opts.Workloads.Build(tws[i].Spec, tws[i].Scale)
		},
		Record:   e.record,
		Placed:   func(ps []tenancy.Placement) { e.mon.SetPlacements(ps) },
		Progress: func() provision.Progress { return newBars(e.opts.Log, e.opts.Terminal, r.Tenants) },
		Logf:     e.logf}
	if classes := plan.ClassesOf(r); classes != nil {
		// Tenants of a class hold the same data: a cloning strategy
		// copies one template per class.
		p := e.prov.state
		p.Kin, p.Conns = make([]int, r.Tenants), make([]int, r.Tenants)
		for k, c := range classes {
			for _, i := range c.Tenants {
				p.Kin[i] = k
			}
		}
		for i, t := range r.TenantList {
			p.Conns[i] = t.Conns
		}
	}
	return e.prov, nil
}

// provisionPhase runs one phase of the run's strategy and takes over
// what it made, also when it failed (teardown stops the servers started).
func (e *execution) provisionPhase(ctx context.Context, phase func(provision.Strategy, context.Context, *provision.Run) error) error {
	pr, err := e.provisioning()
	if err != nil {
		return err
	}
	p := pr.state
	err = phase(pr.strategy, ctx, p)
	e.instances, e.limits, e.placements, e.workloads = p.Instances, p.Limits, p.Placements, p.Workloads
	return err
}

func (e *execution) provision(ctx context.Context) error {
	if err := e.openNetwork(ctx); err != nil {
		return err
	}
	return e.provisionPhase(ctx, provision.Strategy.Provision)
}

func (e *execution) setup(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.Setup)
}

func (e *execution) ingest(ctx context.Context) error {
	return e.provisionPhase(ctx, provision.Strategy.Ingest)
}

// postIngest ends with the run's poolers (pooler.go), tenancy guards and
// replicas (replicas.go), once every tenant is
// placed and loaded whatever the strategy: they bound the workload, the
// check and the isolation audit, not tenantbench's loading.
func (e *execution) postIngest(ctx context.Context) error {
	if err := e.provisionPhase(ctx, provision.Strategy.PostIngest); err != nil {
		return err
	}
	if err := e.startPoolers(ctx); err != nil {
		return err
	}
	if err := e.setGuards(ctx); err != nil {
		return err
	}
	return e.startReplicas(ctx)
}

// setGuards sets the run's tenancy guards on its tenants.
func (e *execution) setGuards(ctx context.Context) error {
	if len(e.run.Guards) == 0 {
		return nil
	}
	conns := map[string]int{}
	for _, t := range e.run.TenantList {
		conns[t.Name] = t.Conns * max(e.run.FailoverShare, 1)
	}
	if err := tenancy.SetGuards(ctx, e.run.Guards, e.placements, func(t string) int { return conns[t] }); err != nil {
		return fmt.Errorf("tenancy guards: %w", err)
	}
	for _, n := range e.run.Guards {
		if g, ok := tenancy.LookupGuard(n); ok {
			e.logf("tenancy guard %s: %s", n, g.Doc)
		}
	}
	return nil
}

// instanceSpecs are the servers the run's model needs, with their limits;
// on the user's servers, the server of each and the run's name there
// (tenancy.RunName, drawn once per run); in a cluster, the cluster and
// the same name, which labels the run's objects there.
func (e *execution) instanceSpecs() ([]provider.InstanceSpec, error) {
	specs := make([]provider.InstanceSpec, len(e.run.Instances))
	runName := ""
	if len(e.plan.Servers) > 0 || e.plan.Cluster != nil {
		n, err := tenancy.RunName(e.run.ID)
		if err != nil {
			return nil, err
		}
		runName = n
	}
	for i, in := range e.run.Instances {
		specs[i] = provider.InstanceSpec{Name: in.Name, WorkDir: e.workDir, Version: e.plan.VersionOf(e.run),
			Engine: e.engine(), Settings: e.run.Settings, MaxConnections: in.MaxConnections, CPUs: in.CPUs, MemoryBytes: in.MemoryBytes,
			Cores: in.Cores, Storage: e.plan.StorageOf(e.run, &e.run.Instances[i]),
			Detached: e.keep, // a kept server outlives tenantbench
			KeepLog:  e.keepLogOf,
			Network:  e.net}
		if e.opts.Ledger != nil { // not a non-nil interface holding nil
			specs[i].Ledger = e.opts.Ledger
		}
		if sv := e.plan.ServerOf(in); sv != nil {
			specs[i].Server, specs[i].RunID = sv, runName
		}
		if c := e.plan.Cluster; c != nil { // its objects are labelled with the run's name
			specs[i].Cluster, specs[i].RunID = c, runName
		}
	}
	return specs, nil
}

// connect returns how placed tenant i connects (connectTo).
func (e *execution) connect(i int) workload.Connect { return e.connectTo(e.placements[i]) }

// connectTo returns how the tenant of p connects: its role, its
// database, its search_path, over the spec's transport.
func (e *execution) connectTo(p tenancy.Placement) workload.Connect {
	dsn := p.DSN(e.run.Transport)
	eng := p.Instance.Engine
	return func(ctx context.Context) (workload.Conn, error) {
		return eng.ClientConn(ctx, dsn, nil)
	}
}

// loadConnect is how the tenant of p connects while it ingests: as
// connectTo, but with at most as many connections open at once as the
// tenant has clients, the connections max_connections was sized for
// (spec.NeededConnections). A loader that opens more (tpcc loads over up
// to 4) waits for one of its connections to close; the loaders take their
// units from a common queue, so the ones connected do the work.
func (e *execution) loadConnect(p tenancy.Placement) workload.Connect {
	conns := e.run.Clients
	if p.Index < len(e.run.TenantList) {
		conns = e.run.TenantList[p.Index].Conns // its class's
	}
	slots := make(chan struct{}, max(1, conns))
	dsn := p.DSN(e.run.Transport)
	eng := p.Instance.Engine
	return func(ctx context.Context) (workload.Conn, error) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var once sync.Once
		release := func() { once.Do(func() { <-slots }) }
		conn, err := eng.ClientConn(ctx, dsn, func(c net.Conn) net.Conn {
			return &releasingConn{Conn: c, release: release}
		})
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
func (e *execution) workloadSpec() *spec.Workload { return e.plan.WorkloadSpec(e.run) }

// engine is the run's engine (its value of sut.engine), which its
// servers run; nil (PostgreSQL, the provider's default) for a name no
// registry knows, which the plan has refused already.
func (e *execution) engine() engine.Engine {
	reg := e.opts.Engines
	if reg == nil {
		reg = engine.Builtin()
	}
	eng, err := reg.Get(e.plan.EngineOf(e.run))
	if err != nil {
		return nil
	}
	return eng
}
