package monitor

import (
	"context"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Blocks per tenant: where a server's tenants share its processes and
// cgroup, neither tells their IO apart; the DBMS does, by the database or
// schema of the tables a block belongs to. The tenancy model says which
// (tenancy.BlockScope); each round reads every tenant's counts of a server
// with one query (server.BlockStats), whatever the number of tenants.

// blockState is a sampler's per-tenant block counting.
type blockState struct {
	scope tenancy.BlockScope
	// keys maps a database's or schema's name to the index of its tenant
	// (tenantMap.names); a name several tenants share is left out.
	keys map[string]int
	// db is the database whose schemas hold the tenants (BlocksBySchema):
	// the schemas' statistics are visible from their own database only,
	// so the monitor's session opens there rather than on the
	// maintenance database (every other view it reads is the server's
	// whole). Not a second session: that would take a connection slot
	// the plan gave the tenants.
	db string
	// read and hit are the counts of the last read, by entry of
	// tenantMap.names: -1 for an entry not read (a pseudo tenant, or a
	// tenant whose database or schema the DBMS had no row for).
	read, hit []int64
	slab      []int64
	// valid: read and hit are the last query's, under the present keys.
	valid bool
}

// setBlocks keys the tenants placed on instance by their database or
// schema, as the scope says.
func (s *sampler) setBlocks(ps []tenancy.Placement) {
	b := &s.blocks
	if b.scope == tenancy.BlocksUncounted {
		return
	}
	b.keys = map[string]int{}
	b.valid = false
	seen := map[string]int{}
	for _, p := range ps {
		if p.Instance == nil || p.Instance.Name != s.inst.Name {
			continue
		}
		key := p.Database
		if b.scope == tenancy.BlocksBySchema {
			key = p.Schema
			if b.db != p.Database {
				b.db = p.Database
				if s.conn != nil {
					// Open the session again, on the tenants' database,
					// at the next round or mark.
					s.close()
					s.lost = true
				}
			}
		}
		if key == "" {
			continue
		}
		seen[key]++
		for i, n := range s.tenants.names {
			if n == p.Tenant {
				b.keys[key] = i
			}
		}
	}
	for k, n := range seen {
		if n > 1 {
			delete(b.keys, k)
		}
	}
}

// readBlocks reads every tenant's blocks into smp (one query), when the
// model counts them and the engine can read them. When no process but
// the monitor's own backend ran since the last round (moved false), no
// session counted a block (a backend writes its counts itself, when it
// runs), and the last query's counts are the round's: an idle server
// is not asked.
func (s *sampler) readBlocks(ctx context.Context, t time.Duration, smp *ResourceSample, moved bool) {
	b := &s.blocks
	if len(b.keys) == 0 || s.conn == nil || s.lost {
		return
	}
	bs, ok := s.conn.(server.BlockStats)
	if !ok {
		return
	}
	n := len(s.tenants.names)
	if !moved && b.valid && len(b.read) == n {
		b.keep(smp, n)
		return
	}
	b.valid = false
	b.read, b.hit = fillNeg(b.read, n), fillNeg(b.hit, n)
	if b.scope == tenancy.BlocksBySchema {
		// A schema without tables has no row: nothing of it was read.
		// (A database always has one; one missing is not made yet, and
		// a copy renamed into it brings its template's counts.)
		for _, i := range b.keys {
			if i < n {
				b.read[i], b.hit[i] = 0, 0
			}
		}
	}
	fn := func(name []byte, read, hit int64) {
		if i, ok := b.keys[string(name)]; ok && i < n {
			b.read[i], b.hit[i] = read, hit
		}
	}
	var err error
	if b.scope == tenancy.BlocksBySchema {
		err = bs.SchemaBlocks(ctx, fn)
	} else {
		err = bs.DatabaseBlocks(ctx, fn)
	}
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add(t, "blocks per tenant: %v", err)
		}
		return
	}
	b.valid = true
	b.keep(smp, n)
}

// keep copies the counts of the last query into smp.
func (b *blockState) keep(smp *ResourceSample, n int) {
	if len(b.slab) < 2*n {
		b.slab = make([]int64, 2*n*64)
	}
	smp.TenantBlksRead, smp.TenantBlksHit = b.slab[:n:n], b.slab[n:2*n:2*n]
	b.slab = b.slab[2*n:]
	copy(smp.TenantBlksRead, b.read)
	copy(smp.TenantBlksHit, b.hit)
}

// fillNeg makes x n long, every entry -1.
func fillNeg(x []int64, n int) []int64 {
	x = x[:0]
	for range n {
		x = append(x, -1)
	}
	return x
}

// tenantBlocks adds each tenant's blocks read and hit between f and t to
// read and hit: the change of its counts, interpolated between the rounds
// that read them (a tenant placed after f counts from its first read).
func (is *InstanceSeries) tenantBlocks(f, t time.Duration, read, hit map[string]float64) {
	sm := is.Samples
	var idx []int
	for k := firstTenant; k < len(is.Tenants); k++ {
		idx = idx[:0]
		for i := range sm {
			if k < len(sm[i].TenantBlksRead) && sm[i].TenantBlksRead[k] >= 0 {
				idx = append(idx, i)
			}
		}
		if len(idx) < 2 {
			continue
		}
		ts := func(j int) time.Duration { return sm[idx[j]].T }
		r := between(len(idx), ts, func(j int) float64 { return float64(sm[idx[j]].TenantBlksRead[k]) }, f, t)
		h := between(len(idx), ts, func(j int) float64 { return float64(sm[idx[j]].TenantBlksHit[k]) }, f, t)
		name := is.Tenants[k]
		read[name] += max(r, 0) // a reset of the statistics is no negative IO
		hit[name] += max(h, 0)
	}
}
