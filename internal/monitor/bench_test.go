package monitor

import (
	"context"
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
//	round      one resource round of the instance (pg_stat_activity, /proc, cgroup)
//	round+pss  the same with every process's smaps_rollup, as every PSSInterval
//	wait-tick  one wait-event sample (pg_stat_activity)
//	host       one round of /proc/stat, /proc/meminfo and the own process
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
	b.Run("round", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.sample(ctx, time.Now())
		}
		b.ReportMetric(float64(s.series[len(s.series)-1].Procs), "procs")
	})
	b.Run("round+pss", func(b *testing.B) {
		s.pss = time.Nanosecond
		defer func() { s.pss = 0 }()
		b.ReportAllocs()
		for b.Loop() {
			s.sample(ctx, time.Now())
		}
	})
	b.Run("wait-tick", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.waitTick(ctx)
		}
	})
	b.Run("host", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.host.sample(time.Now())
		}
	})
	if errs := s.errs.list(""); len(errs) > 0 {
		b.Errorf("sampling errors: %v", errs)
	}
}
