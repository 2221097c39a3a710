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

	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/monitorold"
	"github.com/tenantbench/tenantbench/internal/pgtest/scaleshape"
	"github.com/tenantbench/tenantbench/internal/provider"
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
	t0 := time.Now()
	insts, ps, model := scaleshape.Setup(b, shape)
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
