package tpcb

import (
	"context"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// TestSelectOnlyOnReplicas: a client given two replicas sends its
// select-only transactions to them in turn, starting at the one its index
// names, and its tpcb-like ones to the primary: each replica counts the
// reads it answered (pg_stat_database), the primary the writes; tpcb
// declares select-only, and it alone, read-only.
func TestSelectOnlyOnReplicas(t *testing.T) {
	w := newWorkload(t, 1, withScripts(map[string]int{TPCBLike: 1, SelectOnly: 1}))
	ro, ok := w.(workload.ReadOnly)
	if !ok || !ro.ReadOnly(SelectOnly) || ro.ReadOnly(TPCBLike) || ro.ReadOnly(SimpleUpdate) {
		t.Fatal("tpcb's read-only transactions are not select-only alone")
	}
	prim := pgtest.Start(t)
	tn := newTenant(t, prim, "alpha")
	tn.Load(t, w)
	rs := pgtest.Replicas(t, prim, 2, false)
	ctx := context.Background()
	var reps []workload.Conn
	for _, r := range rs {
		c, err := wltest.DSNConnect(r.DSN("unix", "alpha", "alpha", tn.Password))(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		reps = append(reps, c)
	}
	commits := func(c workload.Conn) int64 {
		t.Helper()
		pg, _ := workload.PG(c)
		var n int64
		// A backend's counts reach pg_stat_database when it flushes them,
		// at most once a second unless forced (PostgreSQL 15).
		for _, q := range []string{"SELECT pg_stat_force_next_flush()", "SELECT pg_stat_clear_snapshot()"} {
			if _, err := pg.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := pg.QueryRow(ctx, "SELECT xact_commit FROM pg_stat_database WHERE datname = 'alpha'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := []int64{commits(reps[0]), commits(reps[1])}
	conn := tn.Conn(t)
	cl, err := w.NewClient(ctx, conn, workload.ClientInfo{Index: 1, Clients: 2, Seed: 3, Replicas: reps})
	if err != nil {
		t.Fatal(err)
	}
	for range 9 {
		if err := cl.Run(ctx, indexOf(w, SelectOnly)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.Run(ctx, indexOf(w, TPCBLike)); err != nil {
		t.Fatal(err)
	}
	// Index 1 starts at the second replica: 5 reads there, 4 on the
	// first; each replica also counts the same statistics queries.
	after := []int64{commits(reps[0]), commits(reps[1])}
	if d0, d1 := after[0]-before[0], after[1]-before[1]; d1-d0 != 1 || d0 < 4 {
		t.Errorf("transactions on the replicas %d and %d, want 4 and 5 reads more than the statistics queries", d0, d1)
	}
	var history int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&history); err != nil || history != 1 {
		t.Errorf("%d rows of history on the primary (%v), want the one tpcb-like", history, err)
	}
}

// indexOf is the transaction type named name of w.
func indexOf(w workload.Workload, name string) int {
	for i, n := range w.TxnNames() {
		if n == name {
			return i
		}
	}
	return -1
}
