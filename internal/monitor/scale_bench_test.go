package monitor

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest/scaleshape"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// BenchmarkScale measures what monitoring costs at the scale runs' shapes
// (bench/scale/, BENCHMARKS.md): the monitor at its default intervals for
// 10 s per op against each of scaleshape's shapes (1,000 schema tenants
// on one server; 100 servers with a database tenant each; every tenant
// with an idle connection).
//
// cpu-ms/s is the CPU of the test's process per second (the monitor's
// goroutines: /proc, cgroups, pg_stat_activity parsing), server-ms/s that of
// the monitor's backends summed over the servers (their schedstat run time:
// stat's ticks of 10 ms rounded each backend's few ms down to nothing), and pct-of-cpus both
// together as a share of the machine's CPUs (the target: under 2 %).
func BenchmarkScale(b *testing.B) {
	for _, shape := range scaleshape.Names {
		b.Run(shape, func(b *testing.B) {
			insts, ps, model := scaleshape.Setup(b, shape)
			monitorCost(b, insts, ps, model)
		})
	}
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
