//go:build monab

// Package monab compares the monitor of this tree with an older one
// (BENCHMARKS.md, "1,000 tenants and 100 servers on one machine"). Not
// built by default: run.sh copies the tree, puts the older internal/monitor
// beside it as internal/monitorold and runs this file with -tags monab.
package monab

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/monitorold"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

func env(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func BenchmarkAB(b *testing.B) {
	shape := env("AB_SHAPE", "1000-tenants")
	pairs, _ := strconv.Atoi(env("AB_PAIRS", "3"))
	win, _ := time.ParseDuration(env("AB_WINDOW", "60s"))
	var insts []*provider.Instance
	var ps []tenancy.Placement
	var model tenancy.Model
	t0 := time.Now()
	switch shape {
	case "1000-tenants":
		inst := pgtest.Start(b, pgtest.Settings(map[string]string{"shared_buffers": "128MB"}), pgtest.MaxConnections(1020))
		var err error
		ps, err = tenancy.Schema{}.Place(context.Background(), []*provider.Instance{inst}, tenancy.TenantNames(1000))
		if err != nil {
			b.Fatal(err)
		}
		insts, model = []*provider.Instance{inst}, tenancy.Schema{}
	case "100-servers":
		insts = copies(b, 100)
		ps = make([]tenancy.Placement, len(insts))
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
		model = tenancy.Database{}
	default:
		b.Fatalf("AB_SHAPE %q: 1000-tenants or 100-servers", shape)
	}
	idle(b, ps)
	fmt.Printf("setup %s: %.1f s, loadavg %s", shape, time.Since(t0).Seconds(), loadavg())
	res := map[string][]float64{}
	ctx := context.Background()
	for p := range pairs {
		order := []string{"old", "new"}
		if p%2 == 1 {
			order = []string{"new", "old"}
		}
		for _, which := range order {
			before := children(insts)
			var stop func()
			if which == "old" {
				m := monitorold.New(monitorold.Config{Instances: insts, Placements: ps, Model: model})
				if err := m.Start(ctx); err != nil {
					b.Fatal(err)
				}
				stop = func() {
					if _, err := m.Stop(); err != nil {
						fmt.Println("old stop:", err)
					}
				}
			} else {
				m := monitor.New(monitor.Config{Instances: insts, Placements: ps, Model: model})
				if err := m.Start(ctx); err != nil {
					b.Fatal(err)
				}
				stop = func() {
					if _, err := m.Stop(); err != nil {
						fmt.Println("new stop:", err)
					}
				}
			}
			mon := map[int]bool{}
			for pid := range children(insts) {
				if !before[pid] {
					mon[pid] = true
				}
			}
			c0, s0 := selfCPU(), pidsCPU(mon)
			if f := os.Getenv("AB_PROF"); f != "" {
				pf, _ := os.Create(fmt.Sprintf("%s-%s-%s-%d", f, shape, which, p))
				pprof.StartCPUProfile(pf)
				defer pf.Close()
			}
			time.Sleep(win)
			if os.Getenv("AB_PROF") != "" {
				pprof.StopCPUProfile()
			}
			c1, s1 := selfCPU(), pidsCPU(mon)
			stop()
			cpu := (c1 - c0).Seconds() * 1e3 / win.Seconds()
			srv := (s1 - s0).Seconds() * 1e3 / win.Seconds()
			pct := (cpu + srv) / 10 / float64(runtime.NumCPU())
			res[which] = append(res[which], pct)
			fmt.Printf("%s pair %d %s: monitor %.1f ms/s, its %d backends %.1f ms/s: %.2f %% of %d CPUs; loadavg %s",
				shape, p+1, which, cpu, len(mon), srv, pct, runtime.NumCPU(), loadavg())
		}
	}
	for _, w := range []string{"old", "new"} {
		v := append([]float64(nil), res[w]...)
		sort.Float64s(v)
		fmt.Printf("%s %s: median %.2f %% of CPUs over %d windows of %v: %v\n", shape, w, v[len(v)/2], len(v), win, res[w])
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return string(b)
}

// children lists each instance's root and its children.
func children(insts []*provider.Instance) map[int]bool {
	out := map[int]bool{}
	for _, inst := range insts {
		rs, ok := provider.As[provider.ResourceSampler](inst)
		if !ok {
			continue
		}
		root := rs.ProcessRoot()
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", root, root))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out[pid] = true
			}
		}
	}
	return out
}

func pidsCPU(pids map[int]bool) (t time.Duration) {
	for pid := range pids {
		// schedstat's run time in ns: stat's ticks of 10 ms round a
		// backend's few ms a window down to nothing.
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
		if err != nil {
			continue
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
		t += time.Duration(ns)
	}
	return t
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
