package monitor_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// TestBlocksPerTenant: two tenants share a server (database model: a
// database each; schema model: a schema each in one database); t02 scans
// a table larger than the buffer cache three times, t01 selects 1. The
// blocks the DBMS counts for t02's database or schema are the scans'
// (about 900 blocks each, read from outside the small buffer cache), and
// t01 has next to none: the server's IO, which no cgroup splits, told
// apart by tenant.
func TestBlocksPerTenant(t *testing.T) {
	for _, model := range []tenancy.Model{tenancy.Database{}, tenancy.Schema{}} {
		name := tenancy.BlocksOf(model)
		t.Run(map[tenancy.BlockScope]string{tenancy.BlocksByDatabase: "database", tenancy.BlocksBySchema: "schema"}[name], func(t *testing.T) {
			// 1 MB of buffers: a 7 MB table's scans go through a ring
			// and read every block from outside the cache.
			inst := pgtest.Start(t, pgtest.Settings(map[string]string{"shared_buffers": "1MB"}))
			ctx := context.Background()
			ps, err := model.Place(ctx, []*provider.Instance{inst}, []string{"t01", "t02"})
			if err != nil {
				t.Fatal(err)
			}
			idle, busy := connect(t, ps[0].DSN("unix")), connect(t, ps[1].DSN("unix"))
			exec(t, busy, "CREATE TABLE big AS SELECT g, repeat('x', 20) AS pad FROM generate_series(1, 150000) g")
			stop := startMonitor(t, monitor.Config{Instances: []*provider.Instance{inst}, Placements: ps, Model: model,
				Interval: 100 * time.Millisecond, WaitInterval: -1, PSSInterval: -1})
			from := time.Now()
			exec(t, idle, "SELECT 1")
			for range 3 {
				exec(t, busy, "SELECT count(*) FROM big")
			}
			// A backend flushes its counts when it ends.
			busy.Close(ctx)
			idle.Close(ctx)
			time.Sleep(300 * time.Millisecond)
			to := time.Now()
			s := stop()
			w := s.Window(from, to)
			t.Logf("blocks read %v, hit %v", w.TenantBlksRead, w.TenantBlksHit)
			r1, r2 := w.TenantBlksRead["t01"]+w.TenantBlksHit["t01"], w.TenantBlksRead["t02"]+w.TenantBlksHit["t02"]
			if _, ok := w.TenantBlksRead["t01"]; !ok {
				t.Fatalf("t01 not counted: %v", w.TenantBlksRead)
			}
			if r2 < 3*800 || w.TenantBlksRead["t02"] < 2*800 {
				t.Errorf("t02 scanned about 900 blocks 3 times: %v read, %v hit", w.TenantBlksRead["t02"], w.TenantBlksHit["t02"])
			}
			if r1 > r2/10 {
				t.Errorf("t01, which selected 1, has %v blocks against t02's %v", r1, r2)
			}
			// Each round that read them has every tenant's counts, the
			// pseudo tenants none.
			is := s.Instances[0]
			x := last(is)
			if len(x.TenantBlksRead) != len(is.Tenants) || x.TenantBlksRead[0] != -1 {
				t.Errorf("last round's blocks %v for %v", x.TenantBlksRead, is.Tenants)
			}
			if len(s.Errors) > 0 {
				t.Errorf("errors: %v", s.Errors)
			}
		})
	}
}
