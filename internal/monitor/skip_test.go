package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestRoundSkipsActivity: without wait sampling, a round queries
// pg_stat_activity only while a process needs naming; a connection that
// breaks meanwhile is found, reported and replaced before the next mark
// uses it.
func TestRoundSkipsActivity(t *testing.T) {
	inst := pgtest.Start(t)
	ctx := context.Background()
	m := New(Config{Instances: []*provider.Instance{inst}, Interval: time.Hour, WaitInterval: -1, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			m.Stop()
		}
	})
	s := m.samplers[0]
	// A fresh server's process set settles: backends of the readiness
	// checks exit, autovacuum starts its workers. Wait for a round that
	// finds every process named.
	s.sample(ctx, time.Now())
	q := s.queries
	for deadline := time.Now().Add(10 * time.Second); ; {
		time.Sleep(50 * time.Millisecond)
		s.sample(ctx, time.Now())
		if s.queries == q || time.Now().After(deadline) {
			break
		}
		q = s.queries
	}
	s.sample(ctx, time.Now())
	s.sample(ctx, time.Now())
	if s.queries != q {
		t.Errorf("%d queries in rounds with every process named", s.queries-q)
	}
	admin := pgtest.Connect(t, inst, "postgres")
	s.sample(ctx, time.Now())
	if s.queries != q+1 {
		t.Errorf("%d queries in the round after a new connection, want 1", s.queries-q)
	}
	if n := s.series[len(s.series)-1].ClientBackends; n != 1 {
		t.Errorf("%d client backends, want 1", n)
	}
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'tenantbench monitor'").
		Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminated %d monitor backends: %v", n, err)
	}
	time.Sleep(100 * time.Millisecond) // the backend exits
	s.sample(ctx, time.Now())          // the monitor's old backend is gone, no new process: no query
	samples, err := m.Stop()
	stopped = true
	if err == nil {
		t.Error("the break went unreported")
	}
	t.Logf("reported: %v", samples.Errors)
	is := samples.Instances[0]
	if len(is.DBMS) != 1 || is.DBMS[0].Views["pg_stat_database"]["postgres"] == nil {
		t.Errorf("no DBMS delta after reconnecting: %+v", is.DBMS)
	}
}
