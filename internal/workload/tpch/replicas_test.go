package tpch

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// testReplicas runs a stream with refresh on against two replicas of the
// loaded server: its 22 queries go to the replicas in turn, each
// returning there the rows it returns on the primary (emptyAllowed
// aside), and RF1 and RF2 to the primary, where they change the orders;
// each replica counts the queries it answered (pg_stat_database). tpch
// declares every query, and no refresh function, read-only.
func testReplicas(t *testing.T, inst *provider.Instance, tn wltest.Tenant) {
	o := DefaultOptions()
	o.Refresh = true
	w := mustNew(t, 0.01, o)
	for _, n := range w.TxnNames() {
		if w.ReadOnly(n) == (n == rf1Name || n == rf2Name) {
			t.Errorf("ReadOnly(%s) = %v", n, w.ReadOnly(n))
		}
	}
	if err := w.SetTenant(0, 1); err != nil {
		t.Fatal(err)
	}
	rs := pgtest.Replicas(t, inst, 2, false)
	ctx := context.Background()
	var reps []workload.Conn
	var stats []*pgx.Conn
	for _, r := range rs {
		c, err := pgx.Connect(ctx, r.DSN("tcp", tn.Database, tn.Role, tn.Password))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		// A parallel query's workers count transactions of their own:
		// without them each query counts one.
		if _, err := c.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
			t.Fatal(err)
		}
		reps, stats = append(reps, c), append(stats, c)
	}
	commits := func(c *pgx.Conn) int64 {
		t.Helper()
		// A backend's counts reach pg_stat_database when it flushes them,
		// at most once a second unless forced (PostgreSQL 15): the count
		// is read on the stream's own connection, between its queries.
		for _, q := range []string{"SELECT pg_stat_force_next_flush()", "SELECT pg_stat_clear_snapshot()"} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	primary := tn.Conn(t)
	orders := func() (n int64) {
		t.Helper()
		if err := primary.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cl, err := w.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Index: 0, Clients: 1, Seed: 7, Replicas: reps})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Client)
	before := []int64{commits(stats[0]), commits(stats[1])}
	was := orders()
	for range numQueries + 2 {
		typ := c.Pick()
		if err := c.Run(ctx, typ); err != nil {
			t.Fatalf("%s: %v", w.TxnNames()[typ], err)
		}
		if typ == len(w.queries) {
			if orders() <= was {
				t.Errorf("RF1 added no order on the primary")
			}
		}
		if typ < len(w.queries) && c.rows == 0 && !slices.Contains(emptyAllowed, w.queries[typ]) {
			t.Errorf("q%02d returned no row on a replica", w.queries[typ])
		}
	}
	if !c.Done() {
		t.Error("the stream is not done")
	}
	after := []int64{commits(stats[0]), commits(stats[1])}
	if d0, d1 := after[0]-before[0], after[1]-before[1]; d0 != d1 || d0 < numQueries/2 {
		t.Errorf("queries on the replicas %d and %d, want %d each more than the statistics queries", d0, d1, numQueries/2)
	}
}
