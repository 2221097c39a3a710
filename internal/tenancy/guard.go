package tenancy

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Guards narrow what one tenant can do to the others where privileges do
// not: the options of tenancy.guards. Each is defined here once, its SQL
// in the engine (engine.Guarder). A run sets them when every tenant is
// placed and loaded (post-ingest), so that they bound the workload, the
// check and the isolation audit, not tenantbench's own loading.

// The guards' names, as a spec writes them.
const (
	GuardConnectionLimit = "connection_limit"
	GuardHideStatistics  = "hide_statistics"
	GuardLockTimeout     = "lock_timeout"
	GuardIdleTransaction = "idle_transaction_timeout"
)

// ConnectionMargin is how many sessions a tenant's role may hold beyond
// the connections the plan gives it, under connection_limit: the check
// phase and the isolation audit open at most two sessions of one tenant at
// a time, after its clients have closed, and a client that reconnects may
// hold a slot for a moment while its old backend exits.
const ConnectionMargin = 2

// LockTimeout is the lock_timeout of every tenant's role under the guard
// lock_timeout: how long a tenant's statement waits for a lock another
// tenant holds before it fails (SQLSTATE 55P03). Two seconds is far above
// the waits of a workload's own contention on a healthy server, so the
// guard fails a workload's transaction only when a lock was held for
// longer than any of its transactions should take.
const LockTimeout = 2 * time.Second

// IdleTransactionTimeout is the idle_in_transaction_session_timeout of
// every tenant's role under the guard idle_transaction_timeout: a session
// idle inside a transaction that long is ended, releasing its locks and
// its snapshot (which holds back vacuum). No workload's client is idle in
// a transaction for more than a round trip.
const IdleTransactionTimeout = time.Minute

// Guard is one guard: its name and what it does.
type Guard struct {
	Name string
	// Doc says in a line what the guard does, for the run's log.
	Doc string
	// set applies the guard to the tenants of ps, on their servers.
	set func(ctx context.Context, g guarding) error
}

// guarding is what a guard is set with: the tenants' placements and the
// connections the plan gives each.
type guarding struct {
	ps    []Placement
	conns func(tenant string) int
}

// guards are every guard, in the order a run sets them.
var guards = []Guard{
	{GuardConnectionLimit, fmt.Sprintf("each tenant's role may hold its planned connections + %d (CONNECTION LIMIT); "+
		"the plan raises max_connections so that every tenant can", ConnectionMargin), setConnectionLimit},
	{GuardHideStatistics, "the cumulative statistics views and functions (pg_stat_*, pg_statio_*, pg_stat_get_*) are taken from every tenant", setHideStatistics},
	{GuardLockTimeout, fmt.Sprintf("each tenant's role waits at most %s for a lock (lock_timeout), then its statement fails", LockTimeout), roleSetting("lock_timeout", LockTimeout)},
	{GuardIdleTransaction, fmt.Sprintf("a tenant's session idle in a transaction for %s is ended (idle_in_transaction_session_timeout)", IdleTransactionTimeout),
		roleSetting("idle_in_transaction_session_timeout", IdleTransactionTimeout)},
}

// GuardNames are the guards' names, in the order a run sets them.
func GuardNames() []string {
	out := make([]string, len(guards))
	for i, g := range guards {
		out[i] = g.Name
	}
	return out
}

// LookupGuard is the guard called name.
func LookupGuard(name string) (Guard, bool) {
	for _, g := range guards {
		if g.Name == name {
			return g, true
		}
	}
	return Guard{}, false
}

// GuardedConns is how many sessions a tenant of conns planned connections
// may hold under guards: what its server must have room for.
func GuardedConns(guards []string, conns int) int {
	if slices.Contains(guards, GuardConnectionLimit) {
		return conns + ConnectionMargin
	}
	return conns
}

// SetGuards sets the named guards (GuardNames) on the tenants of ps;
// conns is each tenant's planned connections. The placements' servers must
// have an engine that is an engine.Guarder.
func SetGuards(ctx context.Context, names []string, ps []Placement, conns func(tenant string) int) error {
	for _, n := range names {
		g, ok := LookupGuard(n)
		if !ok {
			return fmt.Errorf("tenancy guard %q is not known (known: %v)", n, GuardNames())
		}
		if err := g.set(ctx, guarding{ps: ps, conns: conns}); err != nil {
			return fmt.Errorf("guard %s: %w", n, err)
		}
	}
	return nil
}

// guarder is the guard SQL of inst's engine.
func guarder(inst *provider.Instance) (engine.Guarder, error) {
	g, ok := inst.Engine.(engine.Guarder)
	if !ok || inst.Engine == nil {
		return nil, fmt.Errorf("instance %s: its engine has no guards", inst.Name)
	}
	return g, nil
}

// perDatabase runs stmts(p, g) for each placement on an admin session of
// its server's database, one session per server and database: each
// tenant's (roles are the server's; statistics views the database's).
func perDatabase(ctx context.Context, ps []Placement, stmts func(p Placement, g engine.Guarder) []string) error {
	type key struct {
		inst *provider.Instance
		db   string
	}
	byDB := map[key][]Placement{}
	var order []key
	for _, p := range ps {
		k := key{p.Instance, p.Database}
		if _, ok := byDB[k]; !ok {
			order = append(order, k)
		}
		byDB[k] = append(byDB[k], p)
	}
	for _, k := range order {
		g, err := guarder(k.inst)
		if err != nil {
			return err
		}
		admin, err := connectAdmin(ctx, k.inst, k.db)
		if err != nil {
			return err
		}
		for _, p := range byDB[k] {
			if err = admin.exec(ctx, stmts(p, g)); err != nil {
				err = fmt.Errorf("tenant %s: %w", p.Tenant, err)
				break
			}
		}
		admin.close()
		if err != nil {
			return err
		}
	}
	return nil
}

func setConnectionLimit(ctx context.Context, gd guarding) error {
	return perDatabase(ctx, gd.ps, func(p Placement, g engine.Guarder) []string {
		return g.ConnectionLimit(p.Role, GuardedConns([]string{GuardConnectionLimit}, gd.conns(p.Tenant)))
	})
}

// setHideStatistics runs once per database: the first tenant of each.
func setHideStatistics(ctx context.Context, gd guarding) error {
	done := map[*provider.Instance]map[string]bool{}
	return perDatabase(ctx, gd.ps, func(p Placement, g engine.Guarder) []string {
		if done[p.Instance] == nil {
			done[p.Instance] = map[string]bool{}
		}
		if done[p.Instance][p.Database] {
			return nil
		}
		done[p.Instance][p.Database] = true
		return g.HideStatistics()
	})
}

// roleSetting makes a guard that sets parameter to d for every tenant's
// role, in milliseconds (the unit both timeouts take without one).
func roleSetting(parameter string, d time.Duration) func(context.Context, guarding) error {
	return func(ctx context.Context, gd guarding) error {
		return perDatabase(ctx, gd.ps, func(p Placement, g engine.Guarder) []string {
			return g.RoleSetting(p.Role, parameter, fmt.Sprintf("%dms", d.Milliseconds()))
		})
	}
}
