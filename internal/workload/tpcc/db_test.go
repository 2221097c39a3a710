package tpcc

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

func clientInfo(index, clients int, seed uint64) workload.ClientInfo {
	return workload.ClientInfo{Index: index, Clients: clients, Seed: seed}
}

// tenant is a loaded TPC-C database on a test server.
type tenant struct {
	inst    *provider.Instance // the server
	w       *Workload
	connect workload.Connect
	conn    *pgx.Conn // for the test's own queries
}

// loadTenant starts a server and loads warehouses into database tpcc,
// timing the phases.
func loadTenant(t testing.TB, warehouses int, o Options) *tenant {
	t.Helper()
	ctx := context.Background()
	inst := pgtest.Start(t)
	admin := pgtest.Connect(t, inst, "postgres")
	if _, err := admin.Exec(ctx, "create database tpcc"); err != nil {
		t.Fatal(err)
	}
	dsn := inst.AdminDSN("tpcc")
	te := &tenant{
		inst:    inst,
		w:       mustWorkload(t, warehouses, o),
		connect: workload.PGConnect(func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) }),
	}
	te.conn = te.open(t)
	start := time.Now()
	if err := te.w.Setup(ctx, te.conn); err != nil {
		t.Fatal(err)
	}
	// progress is called from the loading goroutines, not in order.
	var last atomic.Int64
	ingest := time.Now()
	if err := te.w.Ingest(ctx, te.connect, func(n int64) {
		for old := last.Load(); n > old && !last.CompareAndSwap(old, n); old = last.Load() {
		}
	}); err != nil {
		t.Fatal(err)
	}
	ingestTime := time.Since(ingest)
	post := time.Now()
	if err := te.w.PostIngest(ctx, te.conn); err != nil {
		t.Fatal(err)
	}
	rows := te.w.Rows()
	if last.Load() != rows {
		t.Errorf("progress ended at %d rows, Rows() = %d", last.Load(), rows)
	}
	t.Logf("load of %d warehouses (%d rows): ingest %v (%.0f rows/s, %.2f warehouses/s), post-ingest %v, total %v",
		warehouses, rows, ingestTime.Round(time.Millisecond), float64(rows)/ingestTime.Seconds(),
		float64(warehouses)/ingestTime.Seconds(), time.Since(post).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	return te
}

func (te *tenant) open(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := workload.ConnectPG(context.Background(), Name, te.connect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// client is terminal index of clients on a connection of its own.
func (te *tenant) client(t testing.TB, index, clients int, seed uint64) *Client {
	t.Helper()
	c, err := te.w.NewClient(context.Background(), te.open(t), clientInfo(index, clients, seed))
	if err != nil {
		t.Fatal(err)
	}
	return c.(*Client)
}

func (te *tenant) int(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := te.conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (te *tenant) mustCheck(t testing.TB, full bool) {
	t.Helper()
	conds := conditions[:basicConditions]
	if full {
		conds = conditions
	}
	v, err := checkConditions(context.Background(), te.conn, conds)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) > 0 {
		t.Fatalf("consistency: %v", v)
	}
}

// TestDatabase loads 2 warehouses once and runs every transaction against
// them, checking its effects, then a mixed run, then the consistency check
// on a corrupted row.
func TestDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads 2 warehouses")
	}
	te := loadTenant(t, 2, DefaultOptions())
	ctx := context.Background()

	t.Run("load", func(t *testing.T) {
		for tb, want := range map[string]int64{"item": 100000, "warehouse": 2, "district": 20, "customer": 60000,
			"history": 60000, "orders": 60000, "new_order": 18000, "stock": 200000} {
			if n := te.int(t, "select count(*) from "+tb); n != want {
				t.Errorf("%s: %d rows, want %d", tb, n, want)
			}
		}
		if n, want := te.int(t, "select count(*) from order_line"), int64(orderLinesOf(te.w.seed, 1)+orderLinesOf(te.w.seed, 2)); n != want {
			t.Errorf("order_line: %d rows, want %d", n, want)
		}
		if n := te.int(t, "select count(*) from customer where c_credit = 'BC'"); n != 6000 {
			t.Errorf("%d customers of bad credit, want 6000", n)
		}
		if n := te.int(t, "select sum(w_ytd)::int8 from warehouse"); n != 600000 {
			t.Errorf("sum(w_ytd) = %d", n)
		}
		te.mustCheck(t, true)
	})

	t.Run("new_order", func(t *testing.T) {
		c := te.client(t, 0, 1, 1)
		next := te.int(t, "select sum(d_next_o_id) from district")
		orders := te.int(t, "select count(*) from orders")
		committed := 0
		for range 100 {
			drawCommitting(c, 1)
			err := c.newOrder.run(c)
			if err != nil {
				t.Fatal(err)
			}
			committed++
			o := &c.newOrder
			if n := te.int(t, "select count(*) from order_line where ol_w_id = $1 and ol_d_id = $2 and ol_o_id = $3", o.w, o.d, o.oid); n != int64(o.n) || n < 5 || n > 15 {
				t.Fatalf("order %d: %d lines, want %d", o.oid, n, o.n)
			}
			if n := te.int(t, "select count(*) from new_order where no_w_id = $1 and no_d_id = $2 and no_o_id = $3", o.w, o.d, o.oid); n != 1 {
				t.Fatalf("order %d not in new_order", o.oid)
			}
		}
		if n := te.int(t, "select sum(d_next_o_id) from district"); n != next+int64(committed) {
			t.Errorf("d_next_o_id moved by %d, want %d", n-next, committed)
		}
		if n := te.int(t, "select count(*) from orders"); n != orders+int64(committed) {
			t.Errorf("%d orders added, want %d", n-orders, committed)
		}
		te.mustCheck(t, false)
	})

	t.Run("new_order_rollback", func(t *testing.T) {
		c := te.client(t, 0, 1, 2)
		next := te.int(t, "select sum(d_next_o_id) from district")
		lines := te.int(t, "select count(*) from order_line")
		ytd := te.int(t, "select sum(s_ytd) from stock")
		c.newOrder.draw(c, 1)
		c.newOrder.rollback = true
		c.newOrder.line[c.newOrder.n-1].item = unusedItem
		if err := c.newOrder.run(c); !errors.Is(err, workload.ErrRollback) {
			t.Fatalf("run = %v, want ErrRollback", err)
		}
		if c.pg.TxStatus() != 'I' {
			t.Fatalf("transaction status %c after the rollback", c.pg.TxStatus())
		}
		if te.int(t, "select sum(d_next_o_id) from district") != next || te.int(t, "select count(*) from order_line") != lines ||
			te.int(t, "select sum(s_ytd) from stock") != ytd {
			t.Fatal("the rolled back New-Order left changes")
		}
	})

	t.Run("new_order_remote", func(t *testing.T) {
		c := te.client(t, 0, 2, 3) // home warehouse 1
		drawCommitting(c, 1)
		o := &c.newOrder
		o.line[0].supply, o.allLocal = 2, false
		item, qty := o.line[0].item, o.line[0].quantity
		stock := func(w int) (q, ytd, cnt, remote int64) {
			if err := te.conn.QueryRow(ctx, "select s_quantity, s_ytd, s_order_cnt, s_remote_cnt from stock where s_w_id = $1 and s_i_id = $2", w, item).Scan(&q, &ytd, &cnt, &remote); err != nil {
				t.Fatal(err)
			}
			return
		}
		q1, y1, c1, r1 := stock(1)
		q2, y2, c2, r2 := stock(2)
		if err := o.run(c); err != nil {
			t.Fatal(err)
		}
		if q, y, cn, r := stock(1); q != q1 || y != y1 || cn != c1 || r != r1 {
			t.Errorf("home stock of item %d changed for a line supplied by warehouse 2", item)
		}
		q, y, cn, r := stock(2)
		wantQ := q2 - int64(qty)
		if q2 < int64(qty)+10 {
			wantQ += 91
		}
		if q != wantQ || y != y2+int64(qty) || cn != c2+1 || r != r2+1 {
			t.Errorf("supply stock: quantity %d->%d (want %d), ytd %d->%d, orders %d->%d, remote %d->%d", q2, q, wantQ, y2, y, c2, cn, r2, r)
		}
		if n := te.int(t, "select o_all_local from orders where o_w_id = 1 and o_d_id = $1 and o_id = $2", o.d, o.oid); n != 0 {
			t.Errorf("o_all_local = %d for an order with a remote line", n)
		}
		if n := te.int(t, "select ol_supply_w_id from order_line where ol_w_id = 1 and ol_d_id = $1 and ol_o_id = $2 and ol_number = 1", o.d, o.oid); n != 2 {
			t.Errorf("ol_supply_w_id = %d", n)
		}
		te.mustCheck(t, false)
	})

	t.Run("payment", func(t *testing.T) {
		c := te.client(t, 0, 2, 4)
		for _, byName := range []bool{false, true} {
			c.payment.draw(c, 1)
			p := &c.payment
			p.cw, p.cd, p.remote = 2, 7, true // a remote customer (clause 2.5.1.2)
			p.byLast = byName
			if byName {
				p.last = 0 // BARBARBAR: customer 1 and others drawn by NURand
			} else {
				p.c = 2999
			}
			var want int64
			if byName {
				rows, err := te.conn.Query(ctx, "select c_id from customer where c_w_id = 2 and c_d_id = 7 and c_last = $1 order by c_first, c_id", lastNames[p.last])
				if err != nil {
					t.Fatal(err)
				}
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					t.Fatal(err)
				}
				want = ids[(len(ids)+1)/2-1] // position n/2 rounded up (clause 2.5.2.2)
				t.Logf("%d customers named %s; the middle is %d", len(ids), lastNames[p.last], want)
			} else {
				want = int64(p.c)
			}
			wytd := te.int(t, "select (w_ytd * 100)::int8 from warehouse where w_id = 1")
			dytd := te.int(t, "select (d_ytd * 100)::int8 from district where d_w_id = 1 and d_id = $1", p.d)
			bal := te.int(t, "select (c_balance * 100)::int8 from customer where c_w_id = 2 and c_d_id = 7 and c_id = $1", want)
			hist := te.int(t, "select count(*) from history")
			if err := p.run(c); err != nil {
				t.Fatal(err)
			}
			if int64(p.cid) != want {
				t.Fatalf("paid customer %d, want %d", p.cid, want)
			}
			a := int64(p.amount)
			if te.int(t, "select (w_ytd * 100)::int8 from warehouse where w_id = 1") != wytd+a ||
				te.int(t, "select (d_ytd * 100)::int8 from district where d_w_id = 1 and d_id = $1", p.d) != dytd+a ||
				te.int(t, "select (c_balance * 100)::int8 from customer where c_w_id = 2 and c_d_id = 7 and c_id = $1", want) != bal-a {
				t.Fatal("warehouse, district or customer not paid")
			}
			if n := te.int(t, "select count(*) from history where h_c_id = $1 and h_c_w_id = 2 and h_c_d_id = 7 and h_w_id = 1 and h_d_id = $2 and h_amount * 100 = $3", want, p.d, a); n != 1 || te.int(t, "select count(*) from history") != hist+1 {
				t.Fatal("no history row")
			}
		}
		// A customer of bad credit gets the payment in C_DATA.
		bc := te.int(t, "select c_id from customer where c_w_id = 1 and c_d_id = 1 and c_credit = 'BC' order by c_id limit 1")
		c.payment.draw(c, 1)
		p := &c.payment
		p.d, p.cw, p.cd, p.byLast, p.c = 1, 1, 1, false, int(bc)
		if err := p.run(c); err != nil {
			t.Fatal(err)
		}
		var data string
		if err := te.conn.QueryRow(ctx, "select c_data from customer where c_w_id = 1 and c_d_id = 1 and c_id = $1", bc).Scan(&data); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(data, strings.Join([]string{itoa(bc), "1 1 1 1 "}, " ")) || len(data) > 500 {
			t.Errorf("c_data of a bad-credit customer after a payment: %.60q (%d characters)", data, len(data))
		}
		te.mustCheck(t, true)
	})

	t.Run("order_status", func(t *testing.T) {
		c := te.client(t, 0, 2, 5)
		for i := range 20 {
			c.orderStatus.draw(c, 1)
			s := &c.orderStatus
			if err := s.run(c); err != nil {
				t.Fatal(err)
			}
			last := te.int(t, "select max(o_id) from orders where o_w_id = 1 and o_d_id = $1 and o_c_id = $2", s.d, s.cid)
			lines := te.int(t, "select count(*) from order_line where ol_w_id = 1 and ol_d_id = $1 and ol_o_id = $2", s.d, last)
			if int64(s.oid) != last || int64(s.lines) != lines {
				t.Fatalf("order_status %d (by name %v): order %d with %d lines, want %d with %d", i, s.byLast, s.oid, s.lines, last, lines)
			}
		}
	})

	t.Run("delivery", func(t *testing.T) {
		c := te.client(t, 0, 2, 6)
		newOrders := te.int(t, "select count(*) from new_order where no_w_id = 1")
		c.delivery.draw(c, 1)
		if err := c.delivery.run(c); err != nil {
			t.Fatal(err)
		}
		if c.delivery.delivered != 10 || te.int(t, "select count(*) from new_order where no_w_id = 1") != newOrders-10 {
			t.Fatalf("delivered %d; new orders %d -> %d", c.delivery.delivered, newOrders, te.int(t, "select count(*) from new_order where no_w_id = 1"))
		}
		if n := te.int(t, "select count(*) from orders where o_w_id = 1 and o_id = 2101 and o_carrier_id = $1", c.delivery.carrier); n != 10 {
			t.Errorf("%d districts' order 2101 carry carrier %d, want 10", n, c.delivery.carrier)
		}
		if n := te.int(t, "select count(*) from order_line where ol_w_id = 1 and ol_o_id = 2101 and ol_delivery_d is null"); n != 0 {
			t.Errorf("%d lines of the delivered orders without a delivery date", n)
		}
		te.mustCheck(t, false)

		// A district whose new orders are all held by another transaction
		// is skipped (SKIP LOCKED), not waited for.
		other := te.open(t)
		tx, err := other.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "select * from new_order where no_w_id = 1 and no_d_id = 5 for update"); err != nil {
			t.Fatal(err)
		}
		c.delivery.draw(c, 1)
		if err := c.delivery.run(c); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx)
		if c.delivery.delivered != 9 || c.delivery.skipped != 1 {
			t.Errorf("delivered %d, skipped %d; want 9 and 1", c.delivery.delivered, c.delivery.skipped)
		}
		te.mustCheck(t, true)
	})

	t.Run("stock_level", func(t *testing.T) {
		c := te.client(t, 3, 10, 7) // warehouse 2; its 5 terminals get districts 1, 3, 5, 7, 9
		for range 10 {
			c.stockLevel.draw(c, c.home)
			s := &c.stockLevel
			if s.w != 2 || s.d != 3 {
				t.Fatalf("terminal 3 of 10 at warehouse %d district %d", s.w, s.d)
			}
			if err := s.run(c); err != nil {
				t.Fatal(err)
			}
			want := te.int(t, `select count(distinct ol_i_id) from order_line, district, stock
				where d_w_id = 2 and d_id = 3 and ol_w_id = 2 and ol_d_id = 3 and ol_o_id between d_next_o_id - 20 and d_next_o_id - 1
				and s_w_id = 2 and s_i_id = ol_i_id and s_quantity < $1`, s.threshold)
			if s.low != want {
				t.Fatalf("stock_level below %d: %d, want %d", s.threshold, s.low, want)
			}
		}
	})

	t.Run("mixed", func(t *testing.T) {
		counts, _ := runMixed(t, te, 8, 3*time.Second)
		if off := failed(AuditCounts(counts, 2, te.w.opts)); len(off) > 0 {
			t.Errorf("audit of a short run: %v", off)
		}
		te.mustCheck(t, true)
	})

	t.Run("all_warehouses", func(t *testing.T) {
		o := te.w.opts
		o.AllWarehouses = true
		w := mustWorkload(t, 2, o)
		for index, want := range [][]int{{1, 2, 1, 2}, {2, 1, 2, 1}} {
			cl, err := w.NewClient(ctx, te.open(t), clientInfo(index, 2, 9))
			if err != nil {
				t.Fatal(err)
			}
			c := cl.(*Client)
			var got []int
			for range want {
				if err := c.Run(ctx, StockLevel); err != nil {
					t.Fatal(err)
				}
				got = append(got, c.stockLevel.w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("terminal %d visits warehouses %v, want %v", index, got, want)
			}
		}
	})

	t.Run("cancel", func(t *testing.T) {
		c := te.client(t, 0, 2, 10)
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := c.Run(done, Payment); !errors.Is(err, context.Canceled) || c.pg.IsClosed() {
			t.Fatalf("Run with a cancelled context: %v (connection closed: %v)", err, c.pg.IsClosed())
		}
		// A transaction blocked on a lock is interrupted when its context
		// ends, and its connection closed.
		other := te.open(t)
		tx, err := other.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "select * from warehouse where w_id = 1 for update"); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		err = c.Run(short, Payment)
		if !errors.Is(err, context.DeadlineExceeded) || !c.pg.IsClosed() || time.Since(start) > 5*time.Second {
			t.Fatalf("Run blocked on a lock: %v after %v (connection closed: %v)", err, time.Since(start), c.pg.IsClosed())
		}
	})

	t.Run("corrupt", func(t *testing.T) {
		if _, err := te.conn.Exec(ctx, "update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 3"); err != nil {
			t.Fatal(err)
		}
		v, err := te.w.Check(ctx, te.conn)
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != 1 || !strings.HasPrefix(v[0], "3.3.2.2 ") || !strings.Contains(v[0], "violated by 1 districts") {
			t.Fatalf("check after corrupting a district: %v", v)
		}
		if _, err := te.conn.Exec(ctx, "update customer set c_balance = c_balance + 1 where c_w_id = 2 and c_d_id = 2 and c_id < 4"); err != nil {
			t.Fatal(err)
		}
		full, err := checkConditions(ctx, te.conn, conditions)
		if err != nil {
			t.Fatal(err)
		}
		if len(full) != 3 || !strings.HasPrefix(full[1], "3.3.2.10 ") || !strings.Contains(full[2], "violated by 3 customers") {
			t.Fatalf("full check after corrupting 3 customers: %v", full)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// drawCommitting draws a New-Order input that does not end with the
// unused item.
func drawCommitting(c *Client, w int) {
	for c.newOrder.draw(c, w); c.newOrder.rollback; c.newOrder.draw(c, w) {
	}
}

// runMixed runs clients terminals of te's tenant for d, each dealing from
// its deck, and returns the rates they observed and their retries. A
// serialization failure or deadlock that outlasts the retries is counted
// (and logged), as the driver counts it; any other error fails the test.
func runMixed(t *testing.T, te *tenant, clients int, d time.Duration) (Counts, [numTxns]int64) {
	t.Helper()
	var mu sync.Mutex
	var total Counts
	var retries [numTxns]int64
	var failed int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	deadline := time.Now().Add(d)
	for i := range clients {
		c := te.client(t, i, clients, uint64(100+i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fails int64
			for time.Now().Before(deadline) {
				err := c.Run(context.Background(), c.Pick())
				if err == nil || errors.Is(err, workload.ErrRollback) {
					continue
				}
				if retryable(err) {
					fails++
					continue
				}
				errs <- err
				return
			}
			mu.Lock()
			total.Add(c.Counts())
			for i, n := range c.Retries() {
				retries[i] += n
			}
			failed += fails
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("client: %v", err)
	}
	n := int64(0)
	for _, k := range total.Txns {
		n += k
	}
	t.Logf("%d clients, %v: %d transactions %v, %d rollbacks, retries %v, %d failed after retries, %d skipped deliveries",
		clients, d, n, total.Txns, total.Rollbacks, retries, failed, total.SkippedDistricts)
	if total.Txns[NewOrder] == 0 || total.Txns[Delivery] == 0 {
		t.Errorf("counts %+v", total)
	}
	return total, retries
}

// TestIsolation runs the mix under repeatable read and serializable on one
// warehouse, where conflicts are frequent: serialization failures are
// retried (and counted) and the database stays consistent.
func TestIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads a warehouse")
	}
	o := DefaultOptions()
	o.Retries = 50
	te := loadTenant(t, 1, o)
	for _, level := range []string{IsolationRepeatableRead, IsolationSerializable} {
		t.Run(level, func(t *testing.T) {
			te.w.opts.Isolation = level
			_, retries := runMixed(t, te, 8, 3*time.Second)
			var sum int64
			for _, n := range retries {
				sum += n
			}
			if sum == 0 {
				t.Errorf("no retry under %s with 8 terminals on one warehouse", level)
			}
			te.mustCheck(t, true)
		})
	}
}
