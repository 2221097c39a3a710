package monitor

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// BenchmarkSample times the monitor's rounds against an instance shaped
// like a small tpcb run: two tenants with 8 connections each, and 64 MB of
// shared_buffers touched by each of them. The monitor's goroutines are
// idle (hour-long intervals); each op is one call:
//
//	round      one resource round of the instance (/proc, cgroup; pg_stat_activity when a process needs naming)
//	round+pss  the same with every process's smaps_rollup, as every PSSInterval
//	wait-tick  one wait-event sample (pg_stat_activity)
//	host       one round of /proc/stat, /proc/meminfo and the own process
//	defaults   10 s of another monitor of the instance at the default intervals
//
// Wall time per op moves with the machine's load; two more figures say
// what an op costs: cpu-us/op, the CPU of the test's process (user and
// system, every thread: the monitor's work, the Go runtime's and the
// kernel's for the /proc reads), and server-us/op, the CPU of the
// monitor's backend (the queries' cost to the server), both in
// microseconds per op, from 10 ms ticks over the whole run. Back-to-back
// calls find caches warm: the same query costs the server about twice as
// much every 100 ms, so "defaults" says what monitoring costs per second
// of a run (cpu-ms/s and server-ms/s: milliseconds of CPU per second), its
// sleeps and wake-ups included.
func BenchmarkSample(b *testing.B) {
	inst := pgtest.Start(b, pgtest.Settings(map[string]string{"shared_buffers": "128MB"}), pgtest.MaxConnections(40))
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01", "t02"})
	if err != nil {
		b.Fatal(err)
	}
	admin := pgtest.Connect(b, inst, "postgres")
	if _, err := admin.Exec(ctx, "CREATE TABLE big AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 300000) g; CREATE INDEX ON big (g)"); err != nil {
		b.Fatal(err)
	}
	for _, p := range ps {
		for range 8 {
			c, err := pgx.Connect(ctx, p.DSN("unix"))
			if err != nil {
				b.Fatal("connect as a tenant failed")
			}
			b.Cleanup(func() { c.Close(context.Background()) })
		}
	}
	// Touch the shared buffers from the admin backend, so that its page
	// tables (what smaps_rollup walks) are those of a busy backend.
	if _, err := admin.Exec(ctx, "SET enable_seqscan = off; SELECT sum(length(pad)) FROM big WHERE g > 0"); err != nil {
		b.Fatal(err)
	}
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: time.Hour, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer m.Stop()
	s := m.samplers[0]
	cost := func(b *testing.B, op func()) {
		b.ReportAllocs()
		cpu0, srv0 := selfCPU(), procCPU(b, s.monitorPid)
		n := 0
		for b.Loop() {
			op()
			n++
		}
		cpu1, srv1 := selfCPU(), procCPU(b, s.monitorPid)
		b.ReportMetric((cpu1-cpu0).Seconds()*1e6/float64(n), "cpu-us/op")
		b.ReportMetric((srv1-srv0).Seconds()*1e6/float64(n), "server-us/op")
	}
	b.Run("round", func(b *testing.B) {
		cost(b, func() { s.sample(ctx, time.Now()) })
		b.ReportMetric(float64(s.series[len(s.series)-1].Procs), "procs")
	})
	b.Run("round+pss", func(b *testing.B) {
		s.pss = time.Nanosecond
		defer func() { s.pss = 0 }()
		cost(b, func() { s.sample(ctx, time.Now()) })
	})
	b.Run("wait-tick", func(b *testing.B) {
		cost(b, func() { s.waitTick(ctx, time.Hour) })
	})
	b.Run("host", func(b *testing.B) {
		cost(b, func() { m.host.sample(time.Now()) })
	})
	b.Run("defaults", func(b *testing.B) {
		const d = 10 * time.Second
		var cpu, srv time.Duration
		n := 0
		for b.Loop() {
			m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps})
			if err := m.Start(ctx); err != nil {
				b.Fatal(err)
			}
			pid := m.samplers[0].monitorPid
			cpu0, srv0 := selfCPU(), procCPU(b, pid)
			time.Sleep(d)
			cpu += selfCPU() - cpu0
			srv += procCPU(b, pid) - srv0
			n++
			if _, err := m.Stop(); err != nil {
				b.Error(err)
			}
		}
		per := func(x time.Duration) float64 { return x.Seconds() * 1e3 / (d.Seconds() * float64(n)) }
		b.ReportMetric(per(cpu), "cpu-ms/s")
		b.ReportMetric(per(srv), "server-ms/s")
	})
	if errs := s.errs.list(""); len(errs) > 0 {
		b.Errorf("sampling errors: %v", errs)
	}
}

// selfCPU is the test process's CPU time, user and system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is a process's CPU time (utime + stime of /proc/<pid>/stat).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	u, _ := strconv.ParseUint(f[11], 10, 64) // field 14
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return time.Duration(u+st) * (time.Second / 100) // USER_HZ
}
