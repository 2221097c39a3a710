package monitor

import (
	"context"
	"time"

	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// PoolSample is one pool of the pooler in front of an instance at one
// round: the pooler's own figures (pooler.PoolStat), with the tenant
// whose role the pool is for ("" for a role of no tenant).
type PoolSample struct {
	T      time.Duration
	Tenant string
	// DBAlone says the pool's database holds this tenant alone, so that
	// the database's totals (DBXacts, DBWait) are the tenant's.
	DBAlone bool
	pooler.PoolStat
}

// samplePools reads the pools of the pooler in front of the instance,
// if its provider runs one there (provider.Pooler): the pooler answers
// for itself, whatever its kind. Called with s.mu held.
func (s *sampler) samplePools(ctx context.Context, t time.Duration) {
	pl, ok := provider.As[provider.Pooler](s.inst)
	if !ok {
		return
	}
	stats, err := pl.PoolerStats(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add(t, "pooler: %v", err)
		}
		return
	}
	for _, ps := range stats {
		smp := PoolSample{T: t, PoolStat: ps}
		if i, ok := s.tenants.byRole[ps.User]; ok {
			smp.Tenant = s.tenants.names[i]
			j, alone := s.tenants.byDB[ps.Database]
			smp.DBAlone = alone && j == i
		}
		s.pools = append(s.pools, smp)
	}
}

// poolWait adds to into each tenant's mean wait for a server connection
// of the pooler per transaction (ms) over the window f..t: the growth of
// its database's wait total over that of its transactions, from the last
// round before the window (zero before the pooler's first round: it
// starts with no transaction) to the last in it, or, when no round fell
// in a window shorter than the interval (a TPC-H stream that ended
// early), to the first round after it: the workload's clients were the
// pooler's only ones, so its totals did not grow after t. Only for a
// tenant alone in its database (pgbouncer keeps these totals per
// database).
func (is *InstanceSeries) poolWait(f, t time.Duration, into map[string]float64) {
	type span struct {
		before, last, after *PoolSample
	}
	spans := map[string]*span{}
	for i := range is.Pools {
		p := &is.Pools[i]
		if p.Tenant == "" || !p.DBAlone {
			continue
		}
		sp := spans[p.Tenant]
		if sp == nil {
			sp = &span{}
			spans[p.Tenant] = sp
		}
		switch {
		case p.T > t:
			if sp.after == nil {
				sp.after = p
			}
		case p.T < f:
			sp.before = p
		default:
			sp.last = p
		}
	}
	for tenant, sp := range spans {
		if sp.last == nil {
			sp.last = sp.after
		}
		if sp.last == nil {
			continue
		}
		var xacts int64
		var wait time.Duration
		if sp.before != nil {
			xacts, wait = sp.before.DBXacts, sp.before.DBWait
		}
		if n := sp.last.DBXacts - xacts; n > 0 {
			into[tenant] = float64(sp.last.DBWait-wait) / float64(time.Millisecond) / float64(n)
		}
	}
}
