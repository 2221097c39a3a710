package sales

import (
	"context"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// TestOrderStatusOnReplicas: a client given two replicas sends its T3
// (order_status) to them in turn, starting at the one its index names,
// finding the order there, and its T1 to the primary: each replica
// counts the reads it answered (pg_stat_database), and sales declares
// order_status, and it alone, read-only.
func TestOrderStatusOnReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	w := mustWorkload(t, 0.01, allFour())
	ro, ok := workload.Workload(w).(workload.ReadOnly)
	if !ok || !ro.ReadOnly(OrderStatus) || ro.ReadOnly(OrderPayment) || ro.ReadOnly(NewOrderline) || ro.ReadOnly(OrderlineDeletion) {
		t.Fatal("sales's read-only transactions are not order_status alone")
	}
	prim := pgtest.Start(t)
	tn := wltest.Place(t, prim, tenancy.Database{}, "alpha")[0]
	tn.Load(t, w)
	rs := pgtest.Replicas(t, prim, 2, false)
	ctx := context.Background()
	var reps []workload.Conn
	for _, r := range rs {
		c, err := wltest.DSNConnect(r.DSN("tcp", tn.Database, tn.Role, tn.Password))(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		reps = append(reps, c)
	}
	commits := func(c workload.Conn) int64 {
		t.Helper()
		pg, _ := workload.PG(c)
		// A backend's counts reach pg_stat_database when it flushes them,
		// at most once a second unless forced (PostgreSQL 15).
		for _, q := range []string{"SELECT pg_stat_force_next_flush()", "SELECT pg_stat_clear_snapshot()"} {
			if _, err := pg.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		var n int64
		if err := pg.QueryRow(ctx, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := []int64{commits(reps[0]), commits(reps[1])}
	cl, err := w.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Index: 1, Clients: 2, Seed: 3, Replicas: reps})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Client)
	for range 9 {
		if err := c.Run(ctx, txnIndexOf(t, w, OrderStatus)); err != nil {
			t.Fatal(err)
		}
		if !c.status.found {
			t.Fatal("T3 on a replica found no order")
		}
	}
	if err := c.Run(ctx, txnIndexOf(t, w, NewOrderline)); err != nil {
		t.Fatal(err)
	}
	// Index 1 starts at the second replica: 5 reads there, 4 on the
	// first; each replica also counts the same statistics queries.
	after := []int64{commits(reps[0]), commits(reps[1])}
	if d0, d1 := after[0]-before[0], after[1]-before[1]; d1-d0 != 1 || d0 < 4 {
		t.Errorf("transactions on the replicas %d and %d, want 4 and 5 reads more than the statistics queries", d0, d1)
	}
}
