package sales

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestMariaDBForms: the statements' ? forms, the tables' MariaDB
// definitions and their LOAD DATA kinds.
func TestMariaDBForms(t *testing.T) {
	if got, err := mariaSQL(sqlCreditCustomer); err != nil || got != "UPDATE customer SET C_CREDIT=C_CREDIT+?, C_UPDATEDDATE=? WHERE C_ID=?" {
		t.Errorf("mariaSQL = %q, %v", got, err)
	}
	if _, err := mariaSQL("select $2, $1"); err == nil {
		t.Error("placeholders out of order were taken")
	}
	w := mustWorkload(t, 0.01, DefaultOptions())
	creates := strings.Join(w.mariaCreates(), "\n")
	for _, want := range []string{"ol_id bigint not null auto_increment,", "engine=InnoDB auto_increment=30001",
		"c_updateddate datetime(6) not null,\n\tprimary key (c_id)) engine=InnoDB"} {
		if !strings.Contains(creates, want) {
			t.Errorf("no %q in\n%s", want, creates)
		}
	}
	if strings.Contains(creates, "timestamptz") || strings.Contains(creates, "identity") {
		t.Errorf("PostgreSQL's types left in\n%s", creates)
	}
	if k := mariaKinds["orders"]; k != "iiTtnT" {
		t.Errorf("orders' kinds %q", k)
	}
}

// TestMariaDBText: a row's DECIMAL and DATETIME text, as the binary
// protocol gives them, read without allocating, and malformed text
// refused.
func TestMariaDBText(t *testing.T) {
	for _, c := range []struct {
		in    string
		n     int64
		scale int
		ok    bool
	}{{"12.50", 1250, 2, true}, {"-0.07", -7, 2, true}, {"42", 42, 0, true}, {"", 0, 0, false}, {"1.2.3", 0, 0, false}, {"1e5", 0, 0, false}} {
		n, scale, ok := decimalText([]byte(c.in))
		if ok != c.ok || ok && (n != c.n || scale != c.scale) {
			t.Errorf("decimalText(%q) = %d, %d, %v; want %d, %d, %v", c.in, n, scale, ok, c.n, c.scale, c.ok)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"2026-12-02 01:02:03.000004", "2026-12-02T01:02:03.000004Z"},
		{"1999-01-31 23:59:59.5", "1999-01-31T23:59:59.5Z"},
		{"2026-02-28 00:00:00", "2026-02-28T00:00:00Z"},
		{"2026-02-28 00:00", ""}, {"2026-02-28T00:00:00", ""}, {"2026-02-28 00:00:00.1234567", ""}, {"2026-0x-28 00:00:00", ""},
	} {
		got, ok := datetimeText([]byte(c.in))
		if c.want == "" && ok || c.want != "" && (!ok || got.Format(time.RFC3339Nano) != c.want) {
			t.Errorf("datetimeText(%q) = %v, %v; want %q", c.in, got, ok, c.want)
		}
	}
	b := []byte("2026-12-02 01:02:03.000004")
	if a := testing.AllocsPerRun(100, func() { _, _ = datetimeText(b); _, _, _ = decimalText(b[:4]) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// mariaTime is how MariaDB's datetime(6) comes as text.
const mariaTime = "2006-01-02 15:04:05.999999"

// mariaTenant is a tenant of a MariaDB server and how to connect as it.
type mariaTenant struct {
	name    string
	connect workload.Connect
}

func (tn mariaTenant) conn(t *testing.T) *mariadb.Conn {
	t.Helper()
	c, err := tn.connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	mc, ok := mariadb.Of(c)
	if !ok {
		t.Fatalf("%T is no MariaDB connection", c)
	}
	return mc
}

// mariaInt is the single integer sql returns.
func mariaInt(t *testing.T, mc *mariadb.Conn, sql string, args ...any) (n int64) {
	t.Helper()
	if err := mc.SQL().QueryRowContext(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestMariaDB loads SF 0.01 into two tenants of MariaDB, one of the
// database model and one of the instance model, at once, checks the rows
// against the generator's, runs each transaction alone and checks what it
// did, runs the mix with three clients for three seconds on each tenant,
// and checks the tables.
func TestMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	shared := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}), pgtest.Name("shared"))
	own := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}), pgtest.Name("own"))
	var tenants []mariaTenant
	for _, m := range []struct {
		model tenancy.Model
		inst  *provider.Instance
		name  string
	}{{tenancy.Database{}, shared, "s01"}, {tenancy.Instance{}, own, "s02"}} {
		ps, err := m.model.Place(context.Background(), []*provider.Instance{m.inst}, []string{m.name})
		if err != nil {
			t.Fatal(err)
		}
		dsn, inst := ps[0].DSN("tcp"), m.inst
		tenants = append(tenants, mariaTenant{m.name, func(ctx context.Context) (workload.Conn, error) {
			return inst.Engine.ClientConn(ctx, dsn, nil)
		}})
	}
	w := mustWorkload(t, 0.01, allFour())
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, tn := range tenants {
		conn := tn.conn(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mu sync.Mutex
			var last int64
			if err := w.Setup(ctx, conn); err != nil {
				t.Error(err)
				return
			}
			if err := w.Ingest(ctx, tn.connect, func(n int64) { mu.Lock(); last = max(last, n); mu.Unlock() }); err != nil {
				t.Error(err)
				return
			}
			if err := w.PostIngest(ctx, conn); err != nil {
				t.Error(err)
				return
			}
			if last != w.Rows() {
				t.Errorf("%s: progress ended at %d of %d rows", tn.name, last, w.Rows())
			}
			if v, err := w.Check(ctx, conn); err != nil || v != nil {
				t.Errorf("%s: check after the load: %q, %v", tn.name, v, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Run("Rows", func(t *testing.T) { testMariaRows(t, tenants[0], w) })
	t.Run("Effects", func(t *testing.T) { testMariaEffects(t, tenants[1], w) })
	t.Run("Mix", func(t *testing.T) {
		for _, tn := range tenants {
			testMariaMix(t, tn, w)
		}
	})
	t.Run("Loops", func(t *testing.T) { testMariaLoops(t, tenants[0], w) })
}

// testMariaLoops: the driver runs the MariaDB clients on its event loops
// (their every wait is on their own socket), and they commit there; the
// tables hold after it.
func testMariaLoops(t *testing.T, tn mariaTenant, w *Workload) {
	dt := driver.Tenant{Name: tn.name, Connect: tn.connect, Workload: w, Clients: 3, Seed: 5}
	res, err := driver.Run(context.Background(), []driver.Tenant{dt}, driver.Options{Duration: time.Second, Loops: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := res.Tenants[0].All
	th := res.Threads
	t.Logf("%d loop(s) ran %d clients: %d committed, %d failed", th.Loops, th.LoopedClients, all.Committed, all.FailedTotal())
	if th.Loops != 1 || th.LoopedClients != 3 {
		t.Errorf("%d loops ran %d clients, want 1 and 3", th.Loops, th.LoopedClients)
	}
	if all.Committed < 100 {
		t.Errorf("%d transactions committed in 1 s by 3 clients on a loop", all.Committed)
	}
	if v, err := w.Check(context.Background(), tn.conn(t)); err != nil || v != nil {
		t.Errorf("check after the loops: %q, %v", v, err)
	}
}

// testMariaRows compares the loaded rows with the generator's values:
// counts, sums of the amounts and credits in cents, the order dates.
func testMariaRows(t *testing.T, tn mariaTenant, w *Workload) {
	g := newGenerator(w.opts.Seed, w.customers, w.orders)
	var credits, totals, amounts int64
	for c := int64(1); c <= w.customers; c++ {
		credits += g.credit(c)
	}
	for o := int64(1); o <= w.orders; o++ {
		totals += g.orderTotal(o)
	}
	for l := int64(1); l <= w.lines; l++ {
		amounts += g.lineAmount(l)
	}
	conn := tn.conn(t)
	for _, c := range []struct {
		sql  string
		want int64
	}{
		{"select count(*) from orderline", w.lines},
		{"select cast(sum(c_credit) * 100 as signed) from customer", credits},
		{"select cast(sum(o_totalamount) * 100 as signed) from orders", totals},
		{"select cast(sum(ol_amount) * 100 as signed) from orderline", amounts},
		{"select count(*) from orders where o_date <> o_updateddate or o_status <> 'UNPAID'", 0},
		{"select count(*) from customer where c_name <> concat('Customer#', lpad(c_id, 9, '0'))", 0},
	} {
		if got := mariaInt(t, conn, c.sql); got != c.want {
			t.Errorf("%s = %d, want %d", c.sql, got, c.want)
		}
	}
	// Timestamps: the last order's date, as the generator has it, in UTC.
	want := workload.PGTime(g.orderDate(w.orders)).Format(mariaTime)
	var got string
	if err := conn.SQL().QueryRowContext(context.Background(), "select date_format(o_date, '%Y-%m-%d %H:%i:%s.%f') from orders where o_id = ?", w.orders).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, strings.TrimRight(strings.TrimRight(want, "0"), ".")) {
		t.Errorf("order %d dated %s, want %s", w.orders, got, want)
	}
}

// testMariaEffects runs each transaction alone and checks what it did.
func testMariaEffects(t *testing.T, tn mariaTenant, w *Workload) {
	ctx := context.Background()
	conn := tn.conn(t)
	cl, err := w.NewClient(ctx, tn.conn(t), workload.ClientInfo{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Client)
	count := func(sql string) int64 { return mariaInt(t, conn, sql) }
	// T1: one line more, its id after the loaded ones.
	if err := c.Run(ctx, txnIndexOf(t, w, NewOrderline)); err != nil {
		t.Fatal(err)
	}
	if n := count("select max(ol_id) from orderline"); n != w.lines+1 {
		t.Errorf("T1's line has ol_id %d, want %d", n, w.lines+1)
	}
	// T2: an order paid, its customer's credit raised by its total.
	credit := count("select cast(sum(c_credit) * 100 as signed) from customer")
	if err := c.Run(ctx, txnIndexOf(t, w, OrderPayment)); err != nil {
		t.Fatal(err)
	}
	if !c.order.found || count("select count(*) from orders where o_status = 'PAID'") != 1 {
		t.Fatalf("T2 found its order: %v; %d orders paid", c.order.found, count("select count(*) from orders where o_status = 'PAID'"))
	}
	total := mariaInt(t, conn, "select cast(o_totalamount * 100 as signed) from orders where o_id = ?", c.order.id)
	if got := count("select cast(sum(c_credit) * 100 as signed) from customer"); got != credit+total {
		t.Errorf("credits %d after T2, want %d + %d", got, credit, total)
	}
	if n := mariaInt(t, conn, "select count(*) from orders where o_id = ? and o_updateddate > o_date", c.order.id); n != 1 {
		t.Error("T2 did not stamp its order")
	}
	// T3: the order's row read.
	if err := c.Run(ctx, txnIndexOf(t, w, OrderStatus)); err != nil {
		t.Fatal(err)
	}
	if !c.status.found || c.status.id < 1 || string(c.status.status[:c.status.n]) != "UNPAID" && string(c.status.status[:c.status.n]) != "PAID" {
		t.Errorf("T3 read %+v", c.status)
	}
	if want := g(w).orderDate(int64(c.status.id)); c.status.date != want {
		t.Errorf("T3's o_date %d, want %d", c.status.date, want)
	}
	// T4: a line fewer.
	lines := count("select count(*) from orderline")
	if err := c.Run(ctx, txnIndexOf(t, w, OrderlineDeletion)); err != nil {
		t.Fatal(err)
	}
	if n := count("select count(*) from orderline"); n != lines-1 {
		t.Errorf("%d lines after T4, want %d", n, lines-1)
	}
	// What a transaction allocates on MariaDB is go-sql-driver's own
	// (its results, rows and boxed values), bounded so that a change
	// that adds some per statement is seen.
	for _, name := range w.TxnNames() {
		typ := txnIndexOf(t, w, name)
		allocs := testing.AllocsPerRun(50, func() {
			if err := c.Run(ctx, typ); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		})
		t.Logf("%s on MariaDB: %.0f allocations per transaction", name, allocs)
		if limit := maxMariaAllocs[name]; allocs > limit {
			t.Errorf("%s on MariaDB: %.0f allocations per transaction, want at most %.0f", name, allocs, limit)
		}
	}
	// A failed T2 rolls back: with the order's row held elsewhere, the
	// lock wait times out and nothing of T2 stays.
	holder := tn.conn(t)
	if err := holder.Exec(ctx, "set session innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if err := c.maria.Exec(ctx, "set session innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if err := holder.Exec(ctx, "begin"); err != nil {
		t.Fatal(err)
	}
	if err := holder.Exec(ctx, "update orders set o_status = o_status"); err != nil {
		t.Fatal(err)
	}
	paid := count("select count(*) from orders where o_status = 'PAID'")
	err = c.Run(ctx, txnIndexOf(t, w, OrderPayment))
	if mariadb.ErrorNumber(err) != 1205 {
		t.Errorf("T2 behind a held order: %v, want error 1205", err)
	}
	_ = holder.Exec(ctx, "rollback")
	if n := count("select count(*) from orders where o_status = 'PAID'"); n != paid {
		t.Errorf("%d orders paid after a failed T2, %d before", n, paid)
	}
	if err := c.Run(ctx, txnIndexOf(t, w, OrderStatus)); err != nil {
		t.Errorf("the client after a failed T2: %v", err)
	}
}

// maxMariaAllocs bound the allocations of each transaction on MariaDB
// (measured: see TestMariaDB's log).
var maxMariaAllocs = map[string]float64{NewOrderline: 12, OrderPayment: 45, OrderStatus: 16, OrderlineDeletion: 8}

// g is the workload's generator.
func g(w *Workload) *generator {
	gen := newGenerator(w.opts.Seed, w.customers, w.orders)
	return &gen
}

// testMariaMix runs the mix with three clients for three seconds and
// checks the tables.
func testMariaMix(t *testing.T, tn mariaTenant, w *Workload) {
	ctx := context.Background()
	const clients = 3
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := make([]int, len(w.TxnNames()))
	deadline := time.Now().Add(3 * time.Second)
	for i := range clients {
		cl, err := w.NewClient(ctx, tn.conn(t), workload.ClientInfo{Index: i, Clients: clients, Seed: uint64(20 + i)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				typ := cl.Pick()
				err := cl.Run(ctx, typ)
				// Two T2 of one order meet; InnoDB may pick one as a
				// deadlock victim: counted as failed by the driver.
				if err != nil && !errors.Is(err, context.Canceled) && mariadb.ErrorNumber(err) != 1213 {
					t.Errorf("%s: %v", w.TxnNames()[typ], err)
					return
				}
				mu.Lock()
				counts[typ]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%s: %v transactions of %v in 3 s", tn.name, counts, w.TxnNames())
	for typ, n := range counts {
		if n == 0 {
			t.Errorf("%s never ran", w.TxnNames()[typ])
		}
	}
	if v, err := w.Check(ctx, tn.conn(t)); err != nil || v != nil {
		t.Errorf("%s: check after the mix: %q, %v", tn.name, v, err)
	}
}
