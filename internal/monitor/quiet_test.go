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

// TestQuietProcesses: a round reads only the schedstat of a session that
// has not run since the last round, and what it counts for it is what a
// full read counts; a session that ran is read whole, its CPU attributed
// to its tenant.
func TestQuietProcesses(t *testing.T) {
	if !haveSchedstat() {
		t.Skip("no /proc/<pid>/schedstat on this kernel")
	}
	inst := pgtest.Start(t)
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	var conns []*pgx.Conn
	for range 3 {
		c, err := pgx.Connect(ctx, ps[0].DSN("unix"))
		if err != nil {
			t.Fatal("connect as the tenant failed")
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		conns = append(conns, c)
	}
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: -1, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	s := m.samplers[0]
	s.sample(ctx, time.Now()) // names every process
	s.sample(ctx, time.Now())
	pid := func(c *pgx.Conn) int { return int(c.PgConn().PID()) }
	for _, c := range conns {
		p := s.procs[pid(c)]
		if p == nil || !p.ranKnown {
			t.Fatalf("session %d not read whole: %+v", pid(c), p)
		}
		if q, _, _, err := s.quiet(p, pid(c)); err != nil || !q {
			t.Errorf("idle session %d: quiet %v, %v", pid(c), q, err)
		}
	}

	// One session runs: it is not quiet, and the next round counts its
	// CPU for its tenant as a full read of its stat does.
	busy := pid(conns[0])
	if _, err := conns[0].Exec(ctx, "SELECT count(*) FROM generate_series(1, 3000000)"); err != nil {
		t.Fatal(err)
	}
	if q, _, _, err := s.quiet(s.procs[busy], busy); err != nil || q {
		t.Errorf("busy session: quiet %v, %v", q, err)
	}
	s.sample(ctx, time.Now())
	gated := s.series[len(s.series)-1]
	var st procStat
	b, err := s.r.readProc(busy, "stat")
	if err != nil || !parseStat(b, &st) {
		t.Fatal(err)
	}
	if p := s.procs[busy]; p.last.utime != st.utime || p.last.stime != st.stime || p.cpuUser != st.utime {
		t.Errorf("busy session kept %+v (attributed %d), stat says %+v", p.last, p.cpuUser, st)
	}

	// The same round with every process read whole counts the same for
	// the tenant's sessions, which did not run since.
	s.sched = false
	s.sample(ctx, time.Now())
	s.sched = true
	whole := s.series[len(s.series)-1]
	i := firstTenant
	if gated.TenantUser[i] != whole.TenantUser[i] || gated.TenantSys[i] != whole.TenantSys[i] {
		t.Errorf("tenant CPU: gated round %v + %v s, whole round %v + %v s",
			gated.TenantUser[i], gated.TenantSys[i], whole.TenantUser[i], whole.TenantSys[i])
	}
	if gated.TenantUser[i]+gated.TenantSys[i] < 0.01 {
		t.Errorf("tenant CPU %v + %v s: the busy session's CPU was not counted", gated.TenantUser[i], gated.TenantSys[i])
	}
	for _, c := range conns {
		if p := s.procs[pid(c)]; p.vol == 0 {
			t.Errorf("session %d: no voluntary context switches counted", pid(c))
		}
	}
	if errs := s.errs.list(""); len(errs) > 0 {
		t.Errorf("sampling errors: %v", errs)
	}
}
