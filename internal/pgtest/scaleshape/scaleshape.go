// Package scaleshape sets up the scale runs' shapes (bench/scale/) on
// real servers for the monitor's benchmarks: the monitor's own
// BenchmarkScale and bench/monab, which compares two monitors on the same
// setup. It stands apart from pgtest because it places tenants, and
// package tenancy's tests use pgtest.
package scaleshape

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Names are the shapes Setup knows:
//
//	1000-tenants  one server, 1,000 schema tenants with an idle connection each
//	100-servers   100 servers (16MB of shared_buffers each, copied from one),
//	              a database tenant with an idle connection on each
var Names = []string{"1000-tenants", "100-servers"}

// Setup starts the servers of shape, places its tenants and opens an idle
// connection for each; all of it is stopped and removed when t ends.
func Setup(t testing.TB, shape string) ([]*provider.Instance, []tenancy.Placement, tenancy.Model) {
	t.Helper()
	var insts []*provider.Instance
	var ps []tenancy.Placement
	var model tenancy.Model
	switch shape {
	case "1000-tenants":
		inst := pgtest.Start(t, pgtest.Settings(map[string]string{"shared_buffers": "128MB"}), pgtest.MaxConnections(1020))
		var err error
		model = tenancy.Schema{}
		if ps, err = model.Place(context.Background(), []*provider.Instance{inst}, tenancy.TenantNames(1000)); err != nil {
			t.Fatal(err)
		}
		insts = []*provider.Instance{inst}
	case "100-servers":
		insts, model = copies(t, 100), tenancy.Database{}
		ps = make([]tenancy.Placement, len(insts))
		tenants := tenancy.TenantNames(len(insts))
		g, ctx := errgroup.WithContext(context.Background())
		g.SetLimit(8)
		for i, inst := range insts {
			g.Go(func() error {
				p, err := model.Place(ctx, []*provider.Instance{inst}, tenants[i:i+1])
				if err == nil {
					ps[i] = p[0]
					ps[i].Index = i
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("scaleshape: shape %q: one of %v", shape, Names)
	}
	idle(t, ps)
	return insts, ps, model
}

// idle opens one connection per placement, left idle until t ends.
func idle(t testing.TB, ps []tenancy.Placement) {
	conns := make([]*pgx.Conn, len(ps))
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(16)
	for i, p := range ps {
		g.Go(func() error {
			c, err := pgx.Connect(ctx, p.DSN("unix"))
			if err != nil {
				return fmt.Errorf("tenant %s: connect failed", p.Tenant)
			}
			conns[i] = c
			return nil
		})
	}
	err := g.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copies starts n servers of 16MB of buffers: one started, stopped and
// copied n-1 times (the instance model's cloned provisioning), all
// stopped and removed when t ends.
func copies(t testing.TB, n int) []*provider.Instance {
	ctx := context.Background()
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := pgtest.TempDir(t)
	spec := func(i int) provider.InstanceSpec {
		return provider.InstanceSpec{Name: fmt.Sprintf("s%03d", i), WorkDir: dir, MaxConnections: 10,
			Settings: map[string]string{"shared_buffers": "16MB"}}
	}
	insts := make([]*provider.Instance, n)
	t.Cleanup(func() {
		for _, inst := range insts {
			if inst != nil {
				if err := p.Stop(context.Background(), inst); err != nil {
					t.Error(err)
				}
			}
		}
	})
	first, err := p.Start(ctx, spec(0))
	if err != nil {
		t.Fatal(err)
	}
	insts[0] = first
	if err := p.Stop(ctx, first); err != nil {
		t.Fatal(err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := 1; i < n; i++ {
		g.Go(func() error {
			c, _, err := p.Clone(gctx, first, spec(i))
			insts[i] = c
			return err
		})
	}
	err = g.Wait()
	again, rerr := p.Restart(ctx, first)
	if rerr == nil {
		insts[0] = again
	}
	if err != nil || rerr != nil {
		t.Fatal(err, rerr)
	}
	return insts
}
