package monitor

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// countedActivity counts the pg_stat_activity reads of a real statistics
// session.
type countedActivity struct {
	server.Stats
	n int
}

func (c *countedActivity) Activity(ctx context.Context, fn func(a *server.Activity)) error {
	c.n++
	return c.Stats.Activity(ctx, fn)
}

// TestWaitRepeat: a wait tick after which no session ran counts every
// session where the last sample found it, without a query, as a tick of
// its own; one while a session runs reads pg_stat_activity and finds it.
func TestWaitRepeat(t *testing.T) {
	inst, ps, c := quietServer(t)
	ctx := context.Background()
	s, ca := countedWaits(t, inst, ps)
	tenantIdle := func() int64 {
		for i, k := range s.waits.keys {
			if k.cat == firstTenant && k.state == "idle" {
				return s.waits.counts[i]
			}
		}
		return 0
	}
	// Every tick, read or repeated, counts the idle session once.
	ticks0, idle0, queries0 := s.waits.ticks, tenantIdle(), ca.n
	n, repeated := tickUntilRepeated(ctx, s, ca)
	if !repeated {
		t.Errorf("each of %d ticks in 10 s read pg_stat_activity, though no session ran", n)
	} else {
		t.Logf("%d queries in %d ticks", ca.n-queries0, n)
	}
	if got := s.waits.ticks - ticks0; got != n {
		t.Errorf("%d ticks counted of %d", got, n)
	}
	if got := tenantIdle() - idle0; got != n {
		t.Errorf("the idle session counted %d times in %d ticks", got, n)
	}

	// A session that runs is read, not repeated.
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, "SELECT pg_sleep(1)")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	q := ca.n
	s.waitTick(ctx, time.Hour)
	if ca.n != q+1 {
		t.Errorf("the tick after a session started its query did not read pg_stat_activity")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sleeping := int64(0)
	for i, k := range s.waits.keys {
		if k.cat == firstTenant && k.state == "active" && k.event == "Timeout:PgSleep" {
			sleeping = s.waits.counts[i]
		}
	}
	if sleeping != 1 {
		t.Errorf("the session in pg_sleep counted %d times, want 1; keys %v", sleeping, s.waits.keys)
	}
	if errs := s.errs.list(""); len(errs) > 0 {
		t.Errorf("sampling errors: %v", errs)
	}
}

// countedWaits starts a monitor of inst whose rounds and wait ticks run
// only when the test calls them, takes its first round, and counts its
// pg_stat_activity reads; the monitor stops when t ends.
func countedWaits(t *testing.T, inst *provider.Instance, ps []tenancy.Placement) (*sampler, *countedActivity) {
	t.Helper()
	ctx := context.Background()
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: time.Hour, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	s := m.samplers[0]
	ca := &countedActivity{Stats: s.conn}
	s.conn = ca
	t.Cleanup(func() {
		s.conn = ca.Stats
		m.Stop()
	})
	s.sample(ctx, time.Now())
	return s, ca
}

// tickUntilRepeated takes wait ticks until one repeats the last sample
// without a query, for at most 10 s: the server's own processes may still
// be busy with what its start and the tenant's database made (CREATE
// DATABASE's checkpoint), on a loaded machine for seconds, and each tick
// then rightly reads. n is the ticks taken.
func tickUntilRepeated(ctx context.Context, s *sampler, ca *countedActivity) (n int64, repeated bool) {
	for deadline := time.Now().Add(10 * time.Second); !repeated && time.Now().Before(deadline); n++ {
		q := ca.n
		s.waitTick(ctx, time.Hour)
		repeated = ca.n == q
		time.Sleep(20 * time.Millisecond)
	}
	return n, repeated
}

// quietServer is a server whose background processes sleep long, so that
// rounds find them idle, with one database tenant (t01) and a session of
// it, closed when t ends; it skips without /proc/<pid>/schedstat, which
// tells the monitor that nothing ran.
func quietServer(t *testing.T) (*provider.Instance, []tenancy.Placement, *pgx.Conn) {
	t.Helper()
	if !haveSchedstat() {
		t.Skip("no /proc/<pid>/schedstat on this kernel")
	}
	inst := pgtest.Start(t, pgtest.Settings(map[string]string{"bgwriter_delay": "10s", "wal_writer_delay": "10s", "autovacuum": "off"}))
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, ps[0].DSN("unix"))
	if err != nil {
		t.Fatal("connect as the tenant failed")
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return inst, ps, c
}

// TestWaitAfterSessionLeft: a session that closes between two rounds is
// read once by the next wait tick; later ticks repeat, not query until the
// next round (a server whose clients reconnect often, or a test's admin
// session still closing at the first round, would otherwise query at every
// tick).
func TestWaitAfterSessionLeft(t *testing.T) {
	inst, ps, _ := quietServer(t)
	ctx := context.Background()
	other, err := pgx.Connect(ctx, ps[0].DSN("unix"))
	if err != nil {
		t.Fatal(err)
	}
	pid := int(other.PgConn().PID())
	s, ca := countedWaits(t, inst, ps)
	if s.procs[pid] == nil {
		t.Fatalf("the round did not find the other session's backend %d", pid)
	}
	other.Close(ctx)
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("backend %d still there 5 s after its session closed", pid)
		}
	}
	q0 := ca.n
	n, repeated := tickUntilRepeated(ctx, s, ca)
	if !repeated {
		t.Fatalf("each of %d ticks in 10 s read pg_stat_activity after the session left", n)
	}
	if ca.n == q0 {
		t.Errorf("no tick read pg_stat_activity after the session left")
	}
	if !s.procs[pid].exited {
		t.Errorf("the gone backend is not marked exited")
	}
	t.Logf("%d queries in %d ticks", ca.n-q0, n)
}
