package tpcc

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestReadsOnReplicas: in every interaction, a terminal given two
// replicas sends its Order-Status and Stock-Level to them in turn,
// starting at the one its index names, finding there the customers and
// stock of the primary, and its New-Order to the primary, where it
// commits; each replica counts the transactions it answered
// (pg_stat_database). In SERIALIZABLE, which a hot standby refuses, the
// replicas' transactions run in REPEATABLE READ. tpcc declares
// order_status and stock_level, and they alone, read-only.
func TestReadsOnReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and two replicas")
	}
	o := DefaultOptions()
	o.Interaction = InteractionProcedures // Setup creates the functions
	o.Isolation = IsolationSerializable
	te := loadTenant(t, 1, o)
	for i, n := range txnNames {
		if te.w.ReadOnly(n) != (i == OrderStatus || i == StockLevel) {
			t.Errorf("ReadOnly(%s) = %v", n, te.w.ReadOnly(n))
		}
	}
	rs := pgtest.Replicas(t, te.inst, 2, false)
	ctx := context.Background()
	commits := func(c *pgx.Conn) int64 {
		t.Helper()
		// A backend's counts reach pg_stat_database when it flushes them,
		// at most once a second unless forced (PostgreSQL 15): the count
		// is read on the terminal's own connection, between its
		// transactions.
		for _, q := range []string{"SELECT pg_stat_force_next_flush()", "SELECT pg_stat_clear_snapshot()"} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT xact_commit FROM pg_stat_database WHERE datname = 'tpcc'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, mode := range Interactions {
		te.w.opts.Interaction = mode
		var conns []workload.Conn
		var reps []*pgx.Conn
		for _, r := range rs {
			c, err := pgx.Connect(ctx, r.AdminDSN("tpcc"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(context.Background()) })
			conns, reps = append(conns, c), append(reps, c)
		}
		ci := clientInfo(1, 2, 5)
		ci.Replicas = conns
		cl, err := te.w.NewClient(ctx, te.open(t), ci)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		c := cl.(*Client)
		before := []int64{commits(reps[0]), commits(reps[1])}
		if c.pg == reps[0].PgConn() || c.replicas[0].pg != reps[0].PgConn() {
			t.Fatalf("%s: the terminal's sessions are not its connections", mode)
		}
		orders := te.int(t, "select count(*) from orders")
		for i := range 9 {
			typ := OrderStatus
			if i%2 == 1 {
				typ = StockLevel
			}
			if err := c.Run(ctx, typ); err != nil {
				t.Fatalf("%s: %s on a replica: %v", mode, txnNames[typ], err)
			}
			if typ == OrderStatus && c.orderStatus.cid == 0 {
				t.Fatalf("%s: order_status on a replica found no customer", mode)
			}
		}
		for {
			// A New-Order rolled back on purpose (1 %) commits nothing.
			err := c.Run(ctx, NewOrder)
			if err == nil {
				break
			}
			if err != workload.ErrRollback {
				t.Fatalf("%s: new_order: %v", mode, err)
			}
		}
		if n := te.int(t, "select count(*) from orders"); n != orders+1 {
			t.Errorf("%s: %d orders on the primary after a New-Order, want %d", mode, n, orders+1)
		}
		// Index 1 starts at the second replica: 5 there, 4 on the first;
		// each replica also counts the same statistics queries.
		after := []int64{commits(reps[0]), commits(reps[1])}
		if d0, d1 := after[0]-before[0], after[1]-before[1]; d1-d0 != 1 || d0 < 4 {
			t.Errorf("%s: transactions on the replicas %d and %d, want 4 and 5 more than the statistics queries", mode, d0, d1)
		}
	}
}
