package monitor

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// BenchmarkScale measures what monitoring costs at the scale runs' shapes
// (bench/scale/, BENCHMARKS.md): the monitor at its default intervals for
// 10 s per op against
//
//	1000-tenants  one server, 1,000 schema tenants with an idle connection each
//	100-servers   100 servers (16MB of shared_buffers each, copied from one),
//	              a database tenant with an idle connection on each
//
// cpu-ms/s is the CPU of the test's process per second (the monitor's
// goroutines: /proc, cgroups, pg_stat_activity parsing), server-ms/s that of
// the monitor's backends summed over the servers (their schedstat run time:
// stat's ticks of 10 ms rounded each backend's few ms down to nothing), and pct-of-cpus both
// together as a share of the machine's CPUs (the target: under 2 %).
func BenchmarkScale(b *testing.B) {
	b.Run("1000-tenants", func(b *testing.B) {
		inst := pgtest.Start(b, pgtest.Settings(map[string]string{"shared_buffers": "128MB"}), pgtest.MaxConnections(1020))
		tenants := tenancy.TenantNames(1000)
		ps, err := tenancy.Schema{}.Place(context.Background(), []*provider.Instance{inst}, tenants)
		if err != nil {
			b.Fatal(err)
		}
		idle(b, ps)
		monitorCost(b, []*provider.Instance{inst}, ps, tenancy.Schema{})
	})
	b.Run("100-servers", func(b *testing.B) {
		insts := copies(b, 100)
		ps := make([]tenancy.Placement, len(insts))
		tenants := tenancy.TenantNames(len(insts))
		g, ctx := errgroup.WithContext(context.Background())
		g.SetLimit(8)
		for i, inst := range insts {
			g.Go(func() error {
				p, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, tenants[i:i+1])
				if err == nil {
					ps[i] = p[0]
					ps[i].Index = i
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		idle(b, ps)
		monitorCost(b, insts, ps, tenancy.Database{})
	})
}

// idle opens one connection per placement, left idle until the
// benchmark ends.
func idle(b *testing.B, ps []tenancy.Placement) {
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
	b.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

// copies starts n servers of 16MB of buffers: one started, stopped and
// copied n-1 times (the instance model's cloned provisioning), all
// stopped and removed when the benchmark ends.
func copies(b *testing.B, n int) []*provider.Instance {
	ctx := context.Background()
	p, err := local.New(local.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := pgtest.TempDir(b)
	spec := func(i int) provider.InstanceSpec {
		return provider.InstanceSpec{Name: fmt.Sprintf("s%03d", i), WorkDir: dir, MaxConnections: 10,
			Settings: map[string]string{"shared_buffers": "16MB"}}
	}
	insts := make([]*provider.Instance, n)
	b.Cleanup(func() {
		for _, inst := range insts {
			if inst != nil {
				if err := p.Stop(context.Background(), inst); err != nil {
					b.Error(err)
				}
			}
		}
	})
	first, err := p.Start(ctx, spec(0))
	if err != nil {
		b.Fatal(err)
	}
	insts[0] = first
	if err := p.Stop(ctx, first); err != nil {
		b.Fatal(err)
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
		b.Fatal(err, rerr)
	}
	return insts
}

// monitorCost runs a monitor of insts (their tenants placed as ps by
// model) at the default intervals for 10 s per op and reports its CPU
// per second.
func monitorCost(b *testing.B, insts []*provider.Instance, ps []tenancy.Placement, model tenancy.Model) {
	const d = 10 * time.Second
	ctx := context.Background()
	var cpu, srv time.Duration
	n := 0
	for b.Loop() {
		m := New(Config{Instances: insts, Placements: ps, Model: model})
		if err := m.Start(ctx); err != nil {
			b.Fatal(err)
		}
		backends := func() (t time.Duration) {
			for _, s := range m.samplers {
				t += procRun(b, s.monitorPid)
			}
			return t
		}
		cpu0, srv0 := selfCPU(), backends()
		time.Sleep(d)
		cpu += selfCPU() - cpu0
		srv += backends() - srv0
		n++
		samples, err := m.Stop()
		if err != nil {
			b.Error(err)
		}
		if len(samples.Errors) > 0 {
			b.Errorf("sampling errors: %v", samples.Errors)
		}
	}
	per := func(x time.Duration) float64 { return x.Seconds() * 1e3 / (d.Seconds() * float64(n)) }
	b.ReportMetric(per(cpu), "cpu-ms/s")
	b.ReportMetric(per(srv), "server-ms/s")
	b.ReportMetric((per(cpu)+per(srv))/10/float64(runtime.NumCPU()), "pct-of-cpus")
}

// procRun is a process's run time in ns (/proc/<pid>/schedstat's first
// field), exact where stat's utime and stime are whole ticks.
func procRun(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
	if err != nil {
		b.Fatal(err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}
