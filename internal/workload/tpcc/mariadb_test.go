package tpcc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestTextRows: LOAD DATA's lines are COPY's rows, field for field, the
// numerics and timestamps written out in decimal.
func TestTextRows(t *testing.T) {
	var row []byte
	row = workload.AppendFieldCount(row, 5)
	row = workload.AppendInt4(row, -7)
	row = workload.AppendNumericField(row, 123456789, 2)
	row = workload.AppendNumericField(row, 500, 4)
	row = workload.AppendTimestamp(row, workload.PGMicros(time.Date(2026, 11, 24, 16, 5, 3, 123456000, time.UTC)))
	row = workload.AppendText(row, "a\tb\\c")
	got, err := textRow(nil, row, "innTt")
	if want := "-7\t1234567.89\t0.0500\t2026-11-24 16:05:03.123456\ta\\\tb\\\\c\n"; err != nil || string(got) != want {
		t.Errorf("textRow = %q, %v; want %q", got, err, want)
	}
	for _, c := range []struct {
		v     int64
		scale int
		want  string
	}{{0, 2, "0.00"}, {-1000, 2, "-10.00"}, {30000000, 2, "300000.00"}, {2000, 4, "0.2000"}, {1, 4, "0.0001"}, {5000000, 2, "50000.00"}} {
		got, err := appendNumericText(nil, workload.AppendNumeric(nil, c.v, c.scale))
		if err != nil || string(got) != c.want {
			t.Errorf("numeric %d scale %d = %q, %v; want %q", c.v, c.scale, got, err, c.want)
		}
	}
	if k := fieldKinds["customer"]; k != "iiitttttttttTtnnnniit" {
		t.Errorf("customer's kinds = %q", k)
	}
}

// TestMariaDB loads one warehouse into a tenant database of a MariaDB
// server, runs the mix in interactions statements and procedures with
// several terminals, and checks the consistency conditions after each;
// batched is refused.
// maxMariaAllocs bound a MariaDB transaction's allocations by interaction
// and type (New-Order .. Stock-Level): about 1.5 times what was measured
// (statements 269, 108, 88, 444, 21; procedures 17, 11, 12, 7, 7), the
// drawn input (order lines, districts delivered, customers by name)
// varying them.
var maxMariaAllocs = map[string][numTxns]float64{
	InteractionStatements: {400, 160, 130, 650, 35},
	InteractionProcedures: {26, 17, 18, 11, 11},
}

func TestMariaDB(t *testing.T) {
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}))
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context) (workload.Conn, error) {
		var wrap func(net.Conn) net.Conn
		if m, ok := ctx.Value(mariaWrapKey{}).(*mariaCount); ok {
			wrap = func(c net.Conn) net.Conn { return mariaCounting{c, m} }
		}
		return inst.Engine.ClientConn(ctx, ps[0].DSN("tcp"), wrap)
	}
	o := DefaultOptions()
	o.Interaction = InteractionProcedures // Setup creates the procedures
	o.Check = CheckFull
	w := mustWorkload(t, 1, o)
	conn, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var loaded int64
	if err := w.Ingest(ctx, connect, func(n int64) { mu.Lock(); loaded = max(loaded, n); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	if loaded != w.Rows() {
		t.Errorf("progress says %d rows, want %d", loaded, w.Rows())
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	t.Logf("load of 1 warehouse (%d rows): %v", w.Rows(), time.Since(start).Round(time.Millisecond))
	checkMariaIndexes(t, ctx, conn)
	if v, err := w.Check(ctx, conn); err != nil || len(v) > 0 {
		t.Fatalf("after the load: %v %v", v, err)
	}

	run := func(t *testing.T, mode string) {
		w.opts.Interaction = mode
		const clients = 3
		var wg sync.WaitGroup
		var total Counts
		var retries int64
		deadline := time.Now().Add(3 * time.Second)
		for i := range clients {
			cc, err := connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close(ctx)
			wc, err := w.NewClient(ctx, cc, clientInfo(i, clients, uint64(100+i)))
			if err != nil {
				t.Fatal(err)
			}
			c := wc.(*Client)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					typ := c.Pick()
					if err := c.Run(ctx, typ); err != nil && !errors.Is(err, workload.ErrRollback) {
						t.Errorf("%s: %v", txnNames[typ], err)
						return
					}
				}
				mu.Lock()
				total.Add(c.Counts())
				for _, n := range c.Retries() {
					retries += n
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		t.Logf("%s: transactions %v, %d rollbacks, %d retries, %d delivered", mode, total.Txns, total.Rollbacks, retries, total.DeliveredOrders)
		for typ, n := range total.Txns {
			if n == 0 {
				t.Errorf("%s never ran", txnNames[typ])
			}
		}
		if v, err := w.Check(ctx, conn); err != nil || len(v) > 0 {
			t.Errorf("after the run: %v %v", v, err)
		}
	}
	t.Run(InteractionStatements, func(t *testing.T) { run(t, InteractionStatements) })
	t.Run(InteractionProcedures, func(t *testing.T) { run(t, InteractionProcedures) })

	t.Run("round trips", func(t *testing.T) {
		mc, _ := mariadb.Of(conn)
		testMariaTrips(t, w, connect, mc)
	})

	t.Run("allocations", func(t *testing.T) {
		// The statements run on the driver's connection itself: what a
		// transaction still allocates is the driver's own (results, rows,
		// column descriptions, boxed values) and the boxed arguments,
		// bounded near what was measured so that a change adding some
		// per statement is seen.
		for _, mode := range []string{InteractionStatements, InteractionProcedures} {
			w.opts.Interaction = mode
			wc, err := w.NewClient(ctx, conn, clientInfo(0, 1, 13))
			if err != nil {
				t.Fatal(err)
			}
			c := wc.(*Client)
			for typ := range numTxns {
				allocs := testing.AllocsPerRun(20, func() {
					if err := c.Run(ctx, typ); err != nil && !errors.Is(err, workload.ErrRollback) {
						t.Fatalf("%s %s: %v", mode, txnNames[typ], err)
					}
				})
				t.Logf("%s %s: %.0f allocations per transaction", mode, txnNames[typ], allocs)
				if limit := maxMariaAllocs[mode][typ]; allocs > limit {
					t.Errorf("%s %s: %.0f allocations per transaction, want at most %.0f", mode, txnNames[typ], allocs, limit)
				}
			}
		}
	})

	t.Run("rollback", func(t *testing.T) {
		// The 1 % of clause 2.4.2.3, forced: nothing of the order stays.
		for _, mode := range []string{InteractionStatements, InteractionProcedures} {
			w.opts.Interaction = mode
			wc, err := w.NewClient(ctx, conn, clientInfo(0, 1, 9))
			if err != nil {
				t.Fatal(err)
			}
			c := wc.(*Client)
			mc, _ := mariadb.Of(conn)
			next := func() (n int) {
				if err := mc.SQL().QueryRowContext(ctx, "select d_next_o_id from district where d_w_id = 1 and d_id = 1").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := next()
			for {
				c.newOrder.draw(c, 1)
				if c.newOrder.d == 1 {
					break
				}
			}
			c.newOrder.rollback = true
			c.newOrder.line[c.newOrder.n-1].item = unusedItem
			if err := c.runDrawn(ctx, NewOrder); !errors.Is(err, workload.ErrRollback) {
				t.Errorf("%s: a New-Order with an unused item: %v, want the expected rollback", mode, err)
			}
			if after := next(); after != before {
				t.Errorf("%s: D_NEXT_O_ID %d after the rollback, %d before", mode, after, before)
			}
			if c.Counts().Rollbacks != 1 {
				t.Errorf("%s: %d rollbacks counted", mode, c.Counts().Rollbacks)
			}
		}
	})

	t.Run("lock wait retried", func(t *testing.T) {
		// Another session holds district 1's row: the New-Order's lock
		// wait times out (1205), is rolled back and run again with the
		// same input once the row is free, and the retry is counted; in a
		// procedure, its handler rolls back and raises the error again.
		for _, mode := range []string{InteractionStatements, InteractionProcedures} {
			w.opts.Interaction = mode
			cc, err := connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close(ctx)
			wc, err := w.NewClient(ctx, cc, clientInfo(0, 1, 11))
			if err != nil {
				t.Fatal(err)
			}
			c := wc.(*Client)
			if err := c.maria.mc.Text("set session innodb_lock_wait_timeout = 1"); err != nil {
				t.Fatal(err)
			}
			holder, err := connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close(ctx)
			hc, _ := mariadb.Of(holder)
			if err := hc.Exec(ctx, "begin"); err != nil {
				t.Fatal(err)
			}
			if err := hc.Exec(ctx, "select d_next_o_id from district where d_w_id = 1 and d_id = 1 for update"); err != nil {
				t.Fatal(err)
			}
			release := time.AfterFunc(1500*time.Millisecond, func() { _ = hc.Exec(context.Background(), "rollback") })
			defer release.Stop()
			for {
				c.newOrder.draw(c, 1)
				if c.newOrder.d == 1 && !c.newOrder.rollback {
					break
				}
			}
			if err := c.runDrawn(ctx, NewOrder); err != nil {
				t.Fatalf("%s: a New-Order behind a held district: %v", mode, err)
			}
			if r := c.Retries()[NewOrder]; r < 1 {
				t.Errorf("%s: %d retries counted, want at least 1", mode, r)
			}
			release.Stop()
		}
		if !retryable(&mysql.MySQLError{Number: 1213, Message: "Deadlock found"}) || retryable(&mysql.MySQLError{Number: 1062}) {
			t.Error("a deadlock must be retryable, a duplicate key not")
		}
	})

	t.Run("batched refused", func(t *testing.T) {
		w.opts.Interaction = InteractionBatched
		if _, err := w.NewClient(ctx, conn, clientInfo(0, 1, 1)); err == nil || !strings.Contains(err.Error(), "no MariaDB form") {
			t.Errorf("a batched terminal on MariaDB: %v", err)
		}
		key, value, allowed := w.CheckEngine(mariadb.Engine{})
		if key != "interaction" || value != InteractionBatched || !strings.Contains(allowed, "statements or procedures") {
			t.Errorf("CheckEngine = %q %q %q", key, value, allowed)
		}
	})
}

// checkMariaIndexes: after post-ingest every table has the keys and
// indexes of createIndexes, column for column (setup declares the
// primary keys, post-ingest adds the secondary indexes).
func checkMariaIndexes(t *testing.T, ctx context.Context, conn workload.Conn) {
	t.Helper()
	mc, _ := mariadb.Of(conn)
	got, err := mc.QueryStrings(ctx, `select concat(table_name, ' ', index_name, ' ', group_concat(column_name order by seq_in_index))
		from information_schema.statistics where table_schema = database() group by table_name, index_name`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range createIndexes {
		var table, name string
		if _, err := fmt.Sscanf(s, "alter table %s add primary key", &table); err == nil {
			name = "PRIMARY"
		} else if _, err := fmt.Sscanf(s, "create index %s on %s", &name, &table); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		cols := strings.ReplaceAll(s[strings.Index(s, "(")+1:len(s)-1], " ", "")
		want = append(want, table+" "+name+" "+cols)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("indexes after post-ingest:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
