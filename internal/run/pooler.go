package run

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// startPoolers puts the run's pooler (sut.pooler, or its placement's) in front of each of
// the run's servers that holds tenants, once post-ingest has placed and
// loaded them: its auth file needs their roles' verifiers, which exist
// only then. Loading went direct to the server (the pooler is part of
// the system under test during the workload, not of tenantbench's
// loading, which would only be slowed by it); the workload's clients
// connect through it (workloadConnect).
func (e *execution) startPoolers(ctx context.Context) error {
	c := e.run.Pooler // its placement's
	if c == nil {
		return nil
	}
	roles := map[*provider.Instance][]string{}
	for _, p := range e.placements {
		roles[p.Instance] = append(roles[p.Instance], p.Role)
	}
	e.pools = map[string]*provider.Pool{}
	for _, inst := range e.instances {
		rs := roles[inst]
		if len(rs) == 0 {
			continue // a template no tenant uses
		}
		pl, ok := provider.As[provider.Pooler](inst)
		if !ok {
			return fmt.Errorf("instance %s: the provider cannot put a pooler in front of it", inst.Name)
		}
		pe, ok := inst.Engine.(engine.Pooled)
		if !ok {
			return fmt.Errorf("instance %s: engine %s cannot run behind a pooler", inst.Name, inst.Engine.Name())
		}
		secrets, err := adminStrings(ctx, inst, pe.SecretsQuery(), rs)
		if err != nil {
			return fmt.Errorf("instance %s: reading the tenants' verifiers for the pooler: %w", inst.Name, err)
		}
		if len(secrets) != len(rs) {
			return fmt.Errorf("instance %s: %d of %d tenant roles have a password verifier", inst.Name, len(secrets), len(rs))
		}
		pool, err := pl.StartPooler(ctx, *c, secrets)
		if err != nil {
			return err
		}
		e.pools[inst.Name] = pool
		statements := "named prepared statements"
		if !pool.NamedStatements {
			statements = "unnamed statements (this " + c.Kind + " cannot keep a client's named ones in " + c.Mode + " mode)"
		}
		e.logf("instance %s: %s %s in %s mode, pool of %d per tenant, on port %d; the workload's clients use %s",
			inst.Name, c.Kind, pool.Version, c.Mode, c.PoolSize, pool.Port, statements)
	}
	return nil
}

// workloadConnect is how placed tenant i's clients connect during the
// workload phase: through the pooler in front of its server, if any.
// Its server is the tenant's now: a fail-over moves it (failover.go), and
// the clients' next connections go to the promoted server.
func (e *execution) workloadConnect(i int) workload.Connect {
	return func(ctx context.Context) (workload.Conn, error) {
		e.placeMu.RLock()
		p := e.placements[i]
		e.placeMu.RUnlock()
		return p.Instance.Engine.ClientConn(ctx, p.WorkloadDSN(e.run.Transport), nil)
	}
}

// poolerOf is what results say of the pooler in front of inst, nil for
// none.
func (e *execution) poolerOf(inst *provider.Instance) *results.Pooler {
	pool := e.pools[inst.Name]
	if pool == nil {
		return nil
	}
	r := &results.Pooler{Kind: pool.Kind, Mode: pool.Mode, PoolSize: pool.PoolSize, Version: pool.Version,
		Port: pool.Port, NamedStatements: pool.NamedStatements}
	if k, ok := pooler.Lookup(pool.Kind); ok {
		r.SessionKept = k.Holds(pool.Mode)
	}
	if pl, ok := provider.As[provider.Pooler](inst); ok {
		r.Cgroup, _ = pl.PoolerCgroup()
	}
	if u, ok := e.poolUse[inst.Name]; ok {
		r.CPUS, r.MemPeakBytes = u.cpuS, u.memPeak
	}
	return r
}

// poolerUse is what a pooler's cgroup said of its resources over the
// workload phase: the pooler is sampled like a server, at the phase's
// ends.
type poolerUse struct {
	cpu0    float64
	cpuS    *float64
	memPeak *int64
}

// poolerGroups are the cgroups of the run's poolers, by instance.
func (e *execution) poolerGroups() map[string]*cgroup.Group {
	out := map[string]*cgroup.Group{}
	sys := cgroup.Detect()
	for _, inst := range e.instances {
		if e.pools[inst.Name] == nil {
			continue
		}
		pl, ok := provider.As[provider.Pooler](inst)
		if !ok {
			continue
		}
		if path, mode := pl.PoolerCgroup(); path != "" && mode == string(sys.Mode) {
			out[inst.Name] = sys.Open(path)
		}
	}
	return out
}

// poolersBefore reads the poolers' CPU at the start of the workload
// phase.
func (e *execution) poolersBefore() {
	if len(e.pools) == 0 {
		return
	}
	e.poolUse = map[string]*poolerUse{}
	for name, g := range e.poolerGroups() {
		if cpu, err := g.CPUSeconds(); err == nil {
			e.poolUse[name] = &poolerUse{cpu0: cpu}
		}
	}
}

// poolersAfter reads them again at its end, and their memory peak.
func (e *execution) poolersAfter() {
	for name, g := range e.poolerGroups() {
		u := e.poolUse[name]
		if u == nil {
			continue
		}
		if cpu, err := g.CPUSeconds(); err == nil {
			d := cpu - u.cpu0
			u.cpuS = &d
		}
		if m, err := g.MemoryPeak(); err == nil {
			u.memPeak = &m
		}
	}
}

// adminStrings runs query as the superuser on inst's maintenance
// database and returns its first column.
func adminStrings(ctx context.Context, inst *provider.Instance, query string, args ...any) ([]string, error) {
	db := ""
	if a, ok := inst.Engine.(engine.Admin); ok {
		db = a.MaintenanceDatabase()
	}
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(db))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.QueryStrings(ctx, query, args...)
}
