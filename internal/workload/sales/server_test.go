package sales

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// client makes a client of w on a new connection of the tenant.
func client(t testing.TB, tn wltest.Tenant, w workload.Workload, seed uint64) *Client {
	t.Helper()
	c, err := w.NewClient(context.Background(), tn.Conn(t), workload.ClientInfo{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*Client)
}

func queryText(t testing.TB, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// txnIndexOf is the index of transaction name in w's TxnNames.
func txnIndexOf(t testing.TB, w workload.Workload, name string) int {
	t.Helper()
	i := slices.Index(w.TxnNames(), name)
	if i < 0 {
		t.Fatalf("%s not in %v", name, w.TxnNames())
	}
	return i
}

// allFour runs each of the four transactions with weight 1.
func allFour() Options {
	return Options{Mix: map[string]float64{NewOrderline: 1, OrderPayment: 1, OrderStatus: 1, OrderlineDeletion: 1}}
}

// TestServer runs the tests that need PostgreSQL on one server.
func TestServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	t.Run("RowCounts", func(t *testing.T) { testRowCounts(t, inst) })
	t.Run("Deterministic", func(t *testing.T) { testDeterministic(t, inst) })
	t.Run("Effects", func(t *testing.T) { testEffects(t, inst) })
	t.Run("LatestK", func(t *testing.T) { testLatestK(t, inst) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, inst) })
	t.Run("FailedPayment", func(t *testing.T) { testFailedPayment(t, inst) })
	t.Run("ZeroAllocs", func(t *testing.T) { testZeroAllocs(t, inst) })
}

// testRowCounts loads SF 0.01 for two tenants in the schema model and one
// in the database model and counts the rows each tenant sees.
func testRowCounts(t *testing.T, inst *provider.Instance) {
	tenants := append(wltest.Place(t, inst, tenancy.Schema{}, "s01", "s02"), wltest.Place(t, inst, tenancy.Database{}, "counts")...)
	w := mustWorkload(t, 0.01, DefaultOptions())
	ctx := context.Background()
	for _, tn := range tenants {
		conn := tn.Conn(t)
		if err := w.Setup(ctx, conn); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var last, calls int64
		err := w.Ingest(ctx, tn.Connect, func(rows int64) {
			mu.Lock()
			defer mu.Unlock()
			if rows < last {
				t.Errorf("progress went back from %d to %d", last, rows)
			}
			last, calls = rows, calls+1
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.PostIngest(ctx, conn); err != nil {
			t.Fatal(err)
		}
		if last != w.Rows() || last != 36000 || calls > 10 {
			t.Errorf("%s: progress ended at %d of %d rows after %d calls", tn.Tenant, last, w.Rows(), calls)
		}
		for table, want := range map[string]int64{"customer": 3000, "orders": 3000, "orderline": 30000} {
			if n := wltest.QueryInt(t, conn, "select count(*) from "+table); n != want {
				t.Errorf("%s: %s has %d rows, want %d", tn.Tenant, table, n, want)
			}
		}
		// In the schema model the tables are in the tenant's schema.
		wantSchema := tn.Schema
		if wantSchema == "" {
			wantSchema = "public"
		}
		if n := wltest.QueryInt(t, conn, `select count(*) from pg_tables where schemaname = $1
			and tablename in ('customer', 'orders', 'orderline') and tableowner = current_user`, wantSchema); n != 3 {
			t.Errorf("%s: %d of the tables in schema %s, owned by the tenant", tn.Tenant, n, wantSchema)
		}
		if v, err := w.Check(ctx, conn); err != nil || v != nil {
			t.Errorf("%s: Check after the load: %q, %v", tn.Tenant, v, err)
		}
		if n := wltest.QueryInt(t, conn, "select count(*) from orders where o_status <> 'UNPAID'"); n != 0 {
			t.Errorf("%s: %d orders loaded paid", tn.Tenant, n)
		}
	}
	// T1's first line follows the loaded ones.
	c := client(t, tenants[0], mustWorkload(t, 0.01, Options{Preset: WriteOnly}), 1)
	if err := c.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n := wltest.QueryInt(t, tenants[0].Conn(t), "select max(ol_id) from orderline"); n != 30001 {
		t.Errorf("T1's line has ol_id %d, want 30001", n)
	}
	// A second load starts over: the truncate restarts the identity.
	tenants[0].Load(t, w)
	if n := wltest.QueryInt(t, tenants[0].Conn(t), "select count(*) from orderline where ol_id > 30000"); n != 0 {
		t.Errorf("a reload left %d lines of T1", n)
	}
}

// fingerprint summarises the tenant's tables without the timestamps T2
// stamps with the clock.
func fingerprint(t *testing.T, conn *pgx.Conn) string {
	return queryText(t, conn, `select concat_ws(' ',
		(select md5(string_agg(concat_ws(',', c_id, c_name, c_credit), ';' order by c_id)) from customer),
		(select md5(string_agg(concat_ws(',', o_id, o_c_id, o_date, o_status, o_totalamount), ';' order by o_id)) from orders),
		(select md5(string_agg(l::text, ';' order by ol_id)) from orderline l))`)
}

// testDeterministic loads the same seed into two tenants and another seed
// into a third, runs a client seed's transactions on each and compares.
func testDeterministic(t *testing.T, inst *provider.Instance) {
	tenants := wltest.Place(t, inst, tenancy.Database{}, "det_a", "det_b", "det_c")
	run := func(tn wltest.Tenant, dataSeed int64, clientSeed uint64) (loaded, after string) {
		o := allFour()
		o.Seed = dataSeed
		w := mustWorkload(t, 0.01, o)
		tn.Load(t, w)
		conn := tn.Conn(t)
		loaded = fingerprint(t, conn)
		c := client(t, tn, w, clientSeed)
		for range 400 {
			if err := c.Run(context.Background(), c.Pick()); err != nil {
				t.Fatal(err)
			}
		}
		return loaded, fingerprint(t, conn)
	}
	la, aa := run(tenants[0], 3, 5)
	lb, ab := run(tenants[1], 3, 5)
	lc, _ := run(tenants[2], 4, 5)
	if la != lb || aa != ab {
		t.Fatalf("seed 3 and client seed 5 gave two outcomes: loaded %s / %s, after %s / %s", la, lb, aa, ab)
	}
	if la == aa {
		t.Fatal("400 transactions changed nothing")
	}
	for i, part := range strings.Fields(lc) {
		if part == strings.Fields(la)[i] {
			t.Errorf("table %d is the same for data seeds 3 and 4", i)
		}
	}
	_, other := run(tenants[2], 3, 6)
	if other == aa {
		t.Fatal("client seeds 5 and 6 gave the same outcome")
	}
}

// testEffects runs each transaction alone and checks what it did.
func testEffects(t *testing.T, inst *provider.Instance) {
	tn := wltest.Place(t, inst, tenancy.Database{}, "effects")[0]
	w := mustWorkload(t, 0.01, allFour())
	tn.Load(t, w)
	conn := tn.Conn(t)
	ctx := context.Background()
	c := client(t, tn, w, 11)
	count := func(sql string) int64 { return wltest.QueryInt(t, conn, sql) }

	t.Run("T1 new_orderline", func(t *testing.T) {
		before := count("select count(*) from orderline")
		if err := c.Run(ctx, txnIndexOf(t, w, NewOrderline)); err != nil {
			t.Fatal(err)
		}
		if n := count("select count(*) from orderline"); n != before+1 {
			t.Fatalf("%d lines after T1, want %d", n, before+1)
		}
		var o, p, q int64
		var amount float64
		if err := conn.QueryRow(ctx, "select ol_o_id, ol_p_id, ol_quantity, ol_amount::float8 from orderline where ol_id = 30001").
			Scan(&o, &p, &q, &amount); err != nil {
			t.Fatal(err)
		}
		if o < 1 || o > 3000 || p < 1 || p > products || q < 1 || q > maxQuantity || int64(amount*100+0.5) != q*c.gen.price(p) {
			t.Fatalf("T1 inserted order %d, product %d, quantity %d, amount %v", o, p, q, amount)
		}
	})
	t.Run("T2 order_payment", func(t *testing.T) {
		start := time.Now()
		if err := c.Run(ctx, txnIndexOf(t, w, OrderPayment)); err != nil {
			t.Fatal(err)
		}
		if n := count("select count(*) from orders where o_status = 'PAID'"); n != 1 {
			t.Fatalf("%d orders paid after one T2", n)
		}
		var o, cust int64
		var total, credit, updated, custUpdated string
		var stamped time.Time
		if err := conn.QueryRow(ctx, `select o_id, o_c_id, o_totalamount::text, c_credit::text, o_updateddate::text, c_updateddate::text, o_updateddate
			from orders join customer on c_id = o_c_id where o_status = 'PAID'`).
			Scan(&o, &cust, &total, &credit, &updated, &custUpdated, &stamped); err != nil {
			t.Fatal(err)
		}
		if o != int64(c.order.id) || cust != int64(c.order.customer) {
			t.Fatalf("paid order %d of customer %d, the client read order %d of customer %d", o, cust, c.order.id, c.order.customer)
		}
		g := c.gen
		wantCredit := queryText(t, conn, "select ($1::numeric / 100 + $2::numeric / 100)::numeric(18,2)::text", g.credit(cust), g.orderTotal(o))
		if credit != wantCredit || total != queryText(t, conn, "select ($1::numeric / 100)::numeric(12,2)::text", g.orderTotal(o)) {
			t.Fatalf("customer %d: credit %s, want %s (order total %s)", cust, credit, wantCredit, total)
		}
		if updated != custUpdated || stamped.Before(start.Add(-time.Second)) || stamped.After(time.Now().Add(time.Second)) {
			t.Fatalf("order stamped %s (%v), customer %s; T2 ran at %v", updated, stamped, custUpdated, start)
		}
		if n := count("select count(*) from customer where c_updateddate <> '2024-01-01 00:00:00+00'"); n != 1 {
			t.Fatalf("%d customers updated", n)
		}
	})
	t.Run("T3 order_status", func(t *testing.T) {
		for range 20 {
			if err := c.Run(ctx, txnIndexOf(t, w, OrderStatus)); err != nil {
				t.Fatal(err)
			}
			s := c.status
			var want string
			if err := conn.QueryRow(ctx, "select o_status from orders where o_id = $1", s.id).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if !s.found || s.id < 1 || s.id > 3000 || string(s.status[:s.n]) != want || s.date != c.gen.orderDate(int64(s.id)) {
				t.Fatalf("T3 read %+v, want status %s and date %d", s, want, c.gen.orderDate(int64(s.id)))
			}
		}
	})
	t.Run("T4 orderline_deletion", func(t *testing.T) {
		twin := w.newClient(99)
		c := client(t, tn, w, 99)
		before := count("select count(*) from orderline")
		if err := c.Run(ctx, txnIndexOf(t, w, OrderlineDeletion)); err != nil {
			t.Fatal(err)
		}
		l := 1 + twin.draw.Int64N(twin.lines)
		if n := count("select count(*) from orderline"); n != before-1 {
			t.Fatalf("%d lines after T4, want %d", n, before-1)
		}
		if n := wltest.QueryInt(t, conn, "select count(*) from orderline where ol_id = $1", l); n != 0 {
			t.Fatalf("line %d is still there", l)
		}
		// Deleting a line that is gone is no error.
		c2 := client(t, tn, w, 99)
		if err := c2.Run(ctx, txnIndexOf(t, w, OrderlineDeletion)); err != nil {
			t.Fatalf("deleting line %d again: %v", l, err)
		}
		if n := count("select count(*) from orderline"); n != before-1 {
			t.Fatalf("%d lines after T4 of a missing line, want %d", n, before-1)
		}
	})
	if v, err := w.Check(ctx, conn); err != nil || v != nil {
		t.Fatalf("Check: %q, %v", v, err)
	}
	// Check sees what breaks its conditions.
	if _, err := conn.Exec(ctx, `delete from customer where c_id = (select o_c_id from orders where o_id = 1);
		update orders set o_status = 'LOST' where o_id = 2; update customer set c_credit = -1 where c_id = (select min(c_id) from customer);
		insert into orders select 3001, min(c_id), now(), 'PAID', 0, now() from customer`); err != nil {
		t.Fatal(err)
	}
	v, err := w.Check(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"customer has 2999 rows", "orders has 3001 rows", "1 orders have an o_id outside 1..3000",
		"o_status other than", "negative c_credit", "o_c_id with no customer"}
	if len(v) != len(want) {
		t.Fatalf("Check after breaking the data: %q", v)
	}
	for i := range want {
		if !strings.Contains(v[i], want[i]) {
			t.Errorf("violation %d = %q, want %q", i, v[i], want[i])
		}
	}
}

// testLatestK runs T2 and T3 under latest-5 and checks that only the 5
// newest orders were paid and read; under uniform, the same number of T2
// pays orders all over.
func testLatestK(t *testing.T, inst *provider.Instance) {
	tenants := wltest.Place(t, inst, tenancy.Database{}, "latest", "uniform")
	ctx := context.Background()
	paid := func(tn wltest.Tenant, o Options) (ids []int64, read map[int32]bool) {
		o.Mix = map[string]float64{OrderPayment: 1, OrderStatus: 1}
		w := mustWorkload(t, 0.01, o)
		tn.Load(t, w)
		read = map[int32]bool{}
		for i := range 3 {
			c := client(t, tn, w, uint64(20+i))
			for range 100 {
				typ := c.Pick()
				if err := c.Run(ctx, typ); err != nil {
					t.Fatal(err)
				}
				if w.TxnNames()[typ] == OrderStatus {
					read[c.status.id] = true
				}
			}
		}
		rows, err := tn.Conn(t).Query(ctx, "select o_id from orders where o_status = 'PAID' order by o_id")
		if err != nil {
			t.Fatal(err)
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids, read
	}
	ids, read := paid(tenants[0], Options{Distribution: Latest, K: 5})
	if !slices.Equal(ids, []int64{2996, 2997, 2998, 2999, 3000}) {
		t.Errorf("latest-5 paid orders %v, want 2996..3000", ids)
	}
	if len(read) != 5 {
		t.Errorf("latest-5 read orders %v, want the 5 newest", read)
	}
	for id := range read {
		if id < 2996 || id > 3000 {
			t.Errorf("latest-5 read order %d", id)
		}
	}
	if v, err := mustWorkload(t, 0.01, DefaultOptions()).Check(ctx, tenants[0].Conn(t)); err != nil || v != nil {
		t.Errorf("Check after latest-5: %q, %v", v, err)
	}
	ids, _ = paid(tenants[1], Options{Distribution: Uniform})
	if len(ids) < 100 || ids[0] > 1000 {
		t.Errorf("uniform paid only %d orders, the oldest %v", len(ids), ids[:min(len(ids), 1)])
	}
}

// testConcurrent runs every transaction from several clients at once and
// checks that nothing failed and the data stay consistent.
func testConcurrent(t *testing.T, inst *provider.Instance) {
	tn := wltest.Place(t, inst, tenancy.Database{}, "concurrent")[0]
	o := allFour()
	o.Distribution, o.K = Latest, 3 // the most contention: 3 orders, their customers
	w := mustWorkload(t, 0.01, o)
	tn.Load(t, w)
	ctx := context.Background()
	const clients, txns = 4, 250
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		c := client(t, tn, w, uint64(100+i))
		wg.Go(func() {
			for range txns {
				if err := c.Run(ctx, c.Pick()); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v, err := w.Check(ctx, tn.Conn(t)); err != nil || v != nil {
		t.Fatalf("Check: %q, %v", v, err)
	}
}

// testFailedPayment makes T2's customer update fail and checks that the
// error is the server's, the order stays unpaid and the client goes on.
func testFailedPayment(t *testing.T, inst *provider.Instance) {
	tn := wltest.Place(t, inst, tenancy.Database{}, "failing")[0]
	w := mustWorkload(t, 0.01, Options{Mix: map[string]float64{OrderPayment: 1}})
	tn.Load(t, w)
	conn := tn.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "alter table customer add constraint frozen check (c_credit < 0) not valid"); err != nil {
		t.Fatal(err)
	}
	c := client(t, tn, w, 1)
	for range 10 {
		err := c.Run(ctx, 0)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" || err != error(pgErr) {
			t.Fatalf("error %T %v, want the server's *pgconn.PgError 23514 unchanged", err, err)
		}
		if st := c.pg.TxStatus(); st != 'I' {
			t.Fatalf("transaction status %q after a failure, want idle", st)
		}
	}
	if n := wltest.QueryInt(t, conn, "select count(*) from orders where o_status = 'PAID'"); n != 0 {
		t.Fatalf("%d orders paid by failed transactions", n)
	}
	if _, err := conn.Exec(ctx, "alter table customer drop constraint frozen"); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, 0); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
	// An order that is gone fails T2 with errNoOrder, rolled back.
	if _, err := conn.Exec(ctx, "delete from orders"); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, 0); !errors.Is(err, errNoOrder) || c.pg.TxStatus() != 'I' {
		t.Fatalf("T2 of a missing order: %v, status %q", err, c.pg.TxStatus())
	}
}

// testZeroAllocs measures the allocations of each transaction against the
// server: the hot path must have none.
func testZeroAllocs(t *testing.T, inst *provider.Instance) {
	tn := wltest.Place(t, inst, tenancy.Database{}, "allocs")[0]
	w := mustWorkload(t, 0.01, allFour())
	tn.Load(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := client(t, tn, w, 5)
	for typ, name := range w.TxnNames() {
		var err error
		allocs := testing.AllocsPerRun(300, func() {
			if e := c.Run(ctx, typ); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v allocations per transaction", name, allocs)
		if allocs != 0 {
			t.Errorf("%s allocates %v times per transaction, want 0", name, allocs)
		}
	}
	var err error
	allocs := testing.AllocsPerRun(1000, func() {
		if e := c.Run(ctx, c.Pick()); e != nil {
			err = e
		}
	})
	if err != nil || allocs != 0 {
		t.Errorf("the mix: %v allocations per transaction, %v", allocs, err)
	}
}
