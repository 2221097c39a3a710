package tpcb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
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

// newTenant makes database, role and schema name on inst: a database and a
// role of its own, whose search_path selects its schema, as a tenancy model
// would make it.
func newTenant(t testing.TB, inst *provider.Instance, name string) wltest.Tenant {
	t.Helper()
	ctx := context.Background()
	admin := pgtest.Connect(t, inst, "postgres")
	password := "pw-" + name
	for _, sql := range []string{
		"create database " + name,
		fmt.Sprintf("create role %s login password '%s'", name, password),
		fmt.Sprintf("alter role %s set search_path = %s", name, name),
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	db := pgtest.Connect(t, inst, name)
	if _, err := db.Exec(ctx, fmt.Sprintf("create schema %s authorization %s", name, name)); err != nil {
		t.Fatal(err)
	}
	dsn := inst.DSN("unix", name, name, password)
	return wltest.Tenant{Placement: tenancy.Placement{Tenant: name, Instance: inst, Database: name, Schema: name, Role: name, Password: password},
		Connect: wltest.DSNConnect(dsn)}
}

func newWorkload(t testing.TB, scale float64, o Options) workload.Workload {
	t.Helper()
	w, err := New(scale, o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func withScripts(scripts map[string]int) Options {
	o := DefaultOptions()
	o.Scripts = scripts
	return o
}

func queryText(t testing.TB, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var b strings.Builder
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return b.String()
}

// TestServer runs the tests that need PostgreSQL on one server.
func TestServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	t.Run("RowCounts", func(t *testing.T) { testRowCounts(t, inst) })
	t.Run("SameAsPgbench", func(t *testing.T) { testSameAsPgbench(t, inst) })
	t.Run("TPCBInvariant", func(t *testing.T) { testInvariant(t, inst) })
	t.Run("Deterministic", func(t *testing.T) { testDeterministic(t, inst) })
	t.Run("SelectOnlyBalance", func(t *testing.T) { testSelectBalance(t, inst) })
	t.Run("FailedStatement", func(t *testing.T) { testFailedStatement(t, inst) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, inst) })
}

func testRowCounts(t *testing.T, inst *provider.Instance) {
	tn := newTenant(t, inst, "counts")
	conn := tn.Conn(t)
	for _, scale := range []int64{1, 2} {
		w := newWorkload(t, float64(scale), DefaultOptions())
		var mu sync.Mutex
		var last, calls int64
		ctx := context.Background()
		if err := w.Setup(ctx, conn); err != nil {
			t.Fatal(err)
		}
		err := w.Ingest(ctx, tn.Connect, func(rows int64) {
			mu.Lock()
			defer mu.Unlock()
			if rows < last {
				t.Errorf("progress went back from %d to %d", last, rows)
			}
			last = rows
			calls++
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.PostIngest(ctx, conn); err != nil {
			t.Fatal(err)
		}
		if last != w.Rows() || calls > w.Rows()/1000 {
			t.Errorf("scale %d: progress ended at %d of %d rows after %d calls", scale, last, w.Rows(), calls)
		}
		for table, want := range map[string]int64{
			"pgbench_branches": scale, "pgbench_tellers": 10 * scale, "pgbench_accounts": 100000 * scale, "pgbench_history": 0,
		} {
			if n := wltest.QueryInt(t, conn, "select count(*) from "+table); n != want {
				t.Errorf("scale %d: %s has %d rows, want %d", scale, table, n, want)
			}
		}
		if n := wltest.QueryInt(t, conn, "select count(distinct bid) from pgbench_accounts"); n != scale {
			t.Errorf("scale %d: accounts in %d branches", scale, n)
		}
	}
}

// testSameAsPgbench compares the tables, keys and rows tpcb makes with those
// of "pgbench -i -s 1 -I dtgvpf" on the same server.
func testSameAsPgbench(t *testing.T, inst *provider.Instance) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		if _, err := os.Stat("/usr/bin/pgbench"); err != nil {
			t.Skip("pgbench not installed")
		}
		pgbench = "/usr/bin/pgbench"
	}
	ctx := context.Background()
	admin := pgtest.Connect(t, inst, "postgres")
	if _, err := admin.Exec(ctx, "create database pgbench_ref"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pgbench, "-i", "-s", "1", "-F", "90", "-I", "dtgvpf",
		"-h", inst.SocketDir, "-p", strconv.Itoa(inst.Port), "-U", inst.User, "pgbench_ref")
	cmd.Env = append(os.Environ(), "PGPASSWORD="+inst.Password)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	ref := pgtest.Connect(t, inst, "pgbench_ref")

	tn := newTenant(t, inst, "same")
	tn.Load(t, newWorkload(t, 1, Options{Scripts: map[string]int{TPCBLike: 1}, Fillfactor: 90, ForeignKeys: true}))
	ours := tn.Conn(t)

	for _, q := range []struct{ what, sql string }{
		{"columns", `select table_name, column_name, ordinal_position, data_type, character_maximum_length,
			numeric_precision, is_nullable, column_default from information_schema.columns
			where table_schema = current_schema() and table_name like 'pgbench\_%' order by table_name, ordinal_position`},
		{"constraints", `select r.relname, c.conname, c.contype::text, pg_get_constraintdef(c.oid) from pg_constraint c
			join pg_class r on r.oid = c.conrelid where r.relnamespace = current_schema()::regnamespace order by 1, 2`},
		{"relations", `select relname, relkind::text, reloptions, relpersistence::text from pg_class
			where relnamespace = current_schema()::regnamespace order by relname`},
		{"indexes", `select indexname, replace(indexdef, current_schema() || '.', '') from pg_indexes
			where schemaname = current_schema() order by 1`},
		{"accounts", `select count(*), md5(string_agg(a::text, ',' order by aid)) from pgbench_accounts a`},
		{"tellers", `select count(*), md5(string_agg(t::text, ',' order by tid)) from pgbench_tellers t`},
		{"branches", `select count(*), md5(string_agg(b::text, ',' order by bid)) from pgbench_branches b`},
		{"history", `select count(*) from pgbench_history`},
	} {
		want, got := queryText(t, ref, q.sql), queryText(t, ours, q.sql)
		if want == "" {
			t.Fatalf("%s: pgbench's database has none", q.what)
		}
		if got != want {
			t.Errorf("%s differ from pgbench's:\n got:\n%s\nwant:\n%s", q.what, got, want)
		}
	}
}

// testInvariant runs tpcb-like transactions from several clients and checks
// TPC-B's consistency: every delta lands in one account, teller, branch and
// history row, so the four sums are equal.
func testInvariant(t *testing.T, inst *provider.Instance) {
	tn := newTenant(t, inst, "invariant")
	w := newWorkload(t, 2, DefaultOptions())
	tn.Load(t, w)
	ctx := context.Background()
	const clients, txns = 4, 150
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		conn := tn.Conn(t)
		c, err := w.NewClient(ctx, conn, workload.ClientInfo{Seed: uint64(100 + i)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range txns {
				if err := c.Run(ctx, c.Pick()); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	conn := tn.Conn(t)
	if n := wltest.QueryInt(t, conn, "select count(*) from pgbench_history"); n != clients*txns {
		t.Fatalf("%d history rows, want %d", n, clients*txns)
	}
	sums := queryText(t, conn, `select (select sum(abalance) from pgbench_accounts), (select sum(tbalance) from pgbench_tellers),
		(select sum(bbalance) from pgbench_branches), (select sum(delta) from pgbench_history)`)
	f := strings.Fields(sums)
	if len(f) != 4 || f[0] != f[1] || f[1] != f[2] || f[2] != f[3] {
		t.Fatalf("sums of abalance, tbalance, bbalance, delta: %s", sums)
	}
	check := func() []string {
		v, err := w.(workload.Checker).Check(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := check(); v != nil {
		t.Fatalf("Check: %q", v)
	}
	if _, err := conn.Exec(ctx, "update pgbench_tellers set tbalance = tbalance + 1 where tid = 3"); err != nil {
		t.Fatal(err)
	}
	if v := check(); len(v) != 2 {
		t.Fatalf("Check after breaking a teller: %q, want 2 violations", v)
	}
	if bad := wltest.QueryInt(t, conn, `select count(*) from pgbench_history where aid not between 1 and 200000
		or tid not between 1 and 20 or bid not between 1 and 2 or delta not between -5000 and 5000 or mtime is null`); bad != 0 {
		t.Fatalf("%d history rows out of pgbench's ranges", bad)
	}
}

// testDeterministic runs a seed's transactions on two fresh loads and
// compares what they did.
func testDeterministic(t *testing.T, inst *provider.Instance) {
	w := newWorkload(t, 1, withScripts(map[string]int{TPCBLike: 2, SimpleUpdate: 1, SelectOnly: 1}))
	ctx := context.Background()
	history := func(name string, seed uint64) string {
		tn := newTenant(t, inst, name)
		tn.Load(t, w)
		conn := tn.Conn(t)
		c, err := w.NewClient(ctx, conn, workload.ClientInfo{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			if err := c.Run(ctx, c.Pick()); err != nil {
				t.Fatal(err)
			}
		}
		if v, err := w.(workload.Checker).Check(ctx, conn); err != nil || v != nil {
			t.Fatalf("Check after a mix with simple-update: %q, %v", v, err)
		}
		return queryText(t, conn, `select tid, bid, aid, delta from pgbench_history order by mtime, aid, tid, delta`) +
			queryText(t, conn, `select count(*), sum(abalance), sum(aid * abalance) from pgbench_accounts`) +
			queryText(t, conn, `select sum(tbalance), sum(tid * tbalance) from pgbench_tellers`)
	}
	a, b, other := history("det_a", 5), history("det_b", 5), history("det_c", 6)
	if a != b {
		t.Fatalf("seed 5 gave two outcomes:\n%.500s\n---\n%.500s", a, b)
	}
	if a == other {
		t.Fatal("seeds 5 and 6 gave the same outcome")
	}
}

// testSelectOnlyBalance checks that select-only reads the drawn account:
// a twin client with the same seed draws the same aids.
func testSelectBalance(t *testing.T, inst *provider.Instance) {
	tn := newTenant(t, inst, "balance")
	w := newWorkload(t, 1, withScripts(map[string]int{SelectOnly: 1}))
	tn.Load(t, w)
	conn := tn.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "update pgbench_accounts set abalance = 7 * aid - 300000"); err != nil {
		t.Fatal(err)
	}
	cl, err := w.NewClient(ctx, conn, workload.ClientInfo{Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	c, twin := cl.(*Client), w.(*Workload).newClient(99)
	for range 500 {
		if err := c.Run(ctx, c.Pick()); err != nil {
			t.Fatal(err)
		}
		aid := twin.random(1, twin.accounts)
		if want := int32(7*aid - 300000); c.balance != want {
			t.Fatalf("select-only of aid %d returned %d, want %d", aid, c.balance, want)
		}
	}
}

// testFailedStatement makes the teller update fail and checks that the
// error is the server's, the transaction rolled back and the client goes on.
func testFailedStatement(t *testing.T, inst *provider.Instance) {
	tn := newTenant(t, inst, "failing")
	w := newWorkload(t, 1, withScripts(map[string]int{TPCBLike: 1}))
	tn.Load(t, w)
	conn := tn.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "alter table pgbench_tellers add constraint no_change check (tbalance = 0) not valid"); err != nil {
		t.Fatal(err)
	}
	c, err := w.NewClient(ctx, conn, workload.ClientInfo{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for range 20 {
		err := c.Run(ctx, c.Pick())
		if err == nil {
			continue // delta 0
		}
		failed++
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" || err != error(pgErr) {
			t.Fatalf("error %T %v, want the server's *pgconn.PgError 23514 unchanged", err, err)
		}
		if st := conn.PgConn().TxStatus(); st != 'I' {
			t.Fatalf("transaction status %q after a failure, want idle", st)
		}
	}
	if failed < 15 {
		t.Fatalf("only %d of 20 transactions failed", failed)
	}
	if n := wltest.QueryInt(t, conn, "select count(*) from pgbench_accounts where abalance <> 0") +
		wltest.QueryInt(t, conn, "select count(*) from pgbench_history"); n != 0 {
		t.Fatalf("%d rows changed by failed transactions", n)
	}
	if _, err := conn.Exec(ctx, "alter table pgbench_tellers drop constraint no_change"); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, c.Pick()); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
}

// testCancel blocks a transaction on a lock and cancels its context.
func testCancel(t *testing.T, inst *provider.Instance) {
	tn := newTenant(t, inst, "cancel")
	w := newWorkload(t, 1, withScripts(map[string]int{TPCBLike: 1}))
	tn.Load(t, w)
	ctx := context.Background()
	conn := tn.Conn(t)
	c, err := w.NewClient(ctx, conn, workload.ClientInfo{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	locker := tn.Conn(t)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "lock table pgbench_accounts in exclusive mode"); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = c.Run(rctx, c.Pick())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run returned %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %v to notice the context", d)
	}
	if !conn.IsClosed() {
		t.Fatal("connection left open after an interrupted statement")
	}
	if err := c.Run(rctx, c.Pick()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run with an ended context returned %v", err)
	}
}
