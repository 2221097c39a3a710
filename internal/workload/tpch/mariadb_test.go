package tpch

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// TestMariaDBQueryText: every query's MariaDB text has its parameters
// written in, no PostgreSQL cast or concatenation left, and the
// statement's own settings.
func TestMariaDBQueryText(t *testing.T) {
	c := mustNew(t, 0.01, DefaultOptions()).newClient(3)
	for q := 1; q <= numQueries; q++ {
		text := MariaDBQuery(q, c.Params(q), 0)
		for _, bad := range []string{"$", "::", "||"} {
			if strings.Contains(text, bad) {
				t.Errorf("q%02d has %q:\n%s", q, bad, text)
			}
		}
		if !strings.HasPrefix(text, "set statement div_precision_increment = 12 for ") {
			t.Errorf("q%02d: %.60s", q, text)
		}
	}
	if got := MariaDBQuery(1, []string{"90"}, 2.5); !strings.Contains(got, "max_statement_time = 2.5 for") ||
		!strings.Contains(got, "date '1998-12-01' - interval 90 day") {
		t.Errorf("q01: %s", got)
	}
	if got := MariaDBQuery(9, []string{`it's\`}, 0); !strings.Contains(got, `like '%it''s\\%'`) {
		t.Errorf("q09 with a quote and a backslash: %s", got)
	}
	if got := MariaDBQuery(6, []string{"1994-01-01", "0.06", "24 or 1=1"}, 0); !strings.Contains(got, "l_quantity < '24 or 1=1'") ||
		!strings.Contains(got, "between 0.06 - 0.01") || !strings.Contains(got, ">= date '1994-01-01'") {
		t.Errorf("q06: %s", got)
	}
}

// TestMariaDBLoadText: LOAD DATA's lines are the rows of dbgen, as the
// .tbl text has them.
func TestMariaDBLoadText(t *testing.T) {
	z, _ := sizesAt(0.01)
	g := newOrderGen(z)
	r := g.gen(1)
	got, err := workload.AppendLoadText(nil, encodeLines(nil, r, false), mariaKinds["lineitem"])
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	_, want = tblOrder(nil, nil, r)
	// .tbl's fields are separated by '|', LOAD DATA's by tabs; the
	// quantity is an integer there, a numeric here.
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	wl := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	if len(lines) != len(r.lines) || len(wl) != len(lines) {
		t.Fatalf("%d lines, %d .tbl lines, order has %d", len(lines), len(wl), len(r.lines))
	}
	for i := range lines {
		f := strings.Split(lines[i], "\t")
		f[4] = strings.TrimSuffix(f[4], ".00")
		if g := strings.Join(f, "|"); g != wl[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, g, wl[i])
		}
	}
}

// mariaTenant is a tenant of a MariaDB server and how to connect as it.
type mariaTenant struct {
	name    string
	connect workload.Connect
	p       tenancy.Placement
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

// placeMaria places tenants on insts in model.
func placeMaria(t *testing.T, model tenancy.Model, insts []*provider.Instance, names ...string) []mariaTenant {
	t.Helper()
	ps, err := model.Place(context.Background(), insts, names)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]mariaTenant, len(ps))
	for i, p := range ps {
		dsn, inst := p.DSN("tcp"), p.Instance
		out[i] = mariaTenant{p.Tenant, func(ctx context.Context) (workload.Conn, error) {
			return inst.Engine.ClientConn(ctx, dsn, nil)
		}, p}
	}
	return out
}

// TestMariaDB loads SF 0.01 into two tenants of MariaDB, one of the
// database model and one of the instance model, at once, and checks
// them: the tables hold dbgen's rows, the keys, foreign keys and indexes
// are there, the 22 queries of streams 0 to 3 run and return rows, the
// timeout cancels a query, and a stream with refresh on inserts and
// deletes its set. (The answers themselves are compared with DuckDB's in
// duckdbcheck.)
func TestMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	shared := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}), pgtest.Name("shared"))
	own := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}), pgtest.Name("own"))
	dbTenant := placeMaria(t, tenancy.Database{}, []*provider.Instance{shared}, "m01")[0]
	instTenant := placeMaria(t, tenancy.Instance{}, []*provider.Instance{own}, "m02")[0]
	w := mustNew(t, 0.01, DefaultOptions())
	var wg sync.WaitGroup
	for _, tn := range []mariaTenant{dbTenant, instTenant} {
		conn := tn.conn(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			start := time.Now()
			if err := w.Setup(ctx, conn); err != nil {
				t.Error(err)
				return
			}
			var mu sync.Mutex
			var last int64
			err := w.Ingest(ctx, tn.connect, func(n int64) { mu.Lock(); last = max(last, n); mu.Unlock() })
			if err != nil {
				t.Error(err)
				return
			}
			if last != w.Rows() {
				t.Errorf("%s: progress ended at %d rows, Rows() is %d", tn.name, last, w.Rows())
			}
			if err := w.PostIngest(ctx, conn); err != nil {
				t.Error(err)
				return
			}
			t.Logf("%s: load of %d rows in %v", tn.name, w.Rows(), time.Since(start).Round(time.Millisecond))
			if v, err := w.Check(ctx, conn); err != nil || v != nil {
				t.Errorf("%s: check after the load: %v %v", tn.name, v, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Run("Contents", func(t *testing.T) { testMariaContents(t, dbTenant, w) })
	t.Run("Keys", func(t *testing.T) { testMariaKeys(t, instTenant) })
	t.Run("Queries", func(t *testing.T) { testMariaQueries(t, dbTenant) })
	t.Run("Timeout", func(t *testing.T) { testMariaTimeout(t, dbTenant) })
	t.Run("Refresh", func(t *testing.T) { testMariaRefresh(t, instTenant, w) })
}

// mariaTableText selects a table's columns as dbgen prints them (the
// quantity an integer).
func mariaTableText(name string) string {
	return strings.ReplaceAll(tableText[name], "l_quantity::integer", "cast(l_quantity as signed)")
}

// testMariaContents reads every table back in dbgen's text and compares
// it with dbgen's output: LOAD DATA stored exactly dbgen's values.
func testMariaContents(t *testing.T, tn mariaTenant, w *Workload) {
	c := tn.conn(t).SQL()
	want := tblTables(w.z)
	for _, name := range tableNames {
		rows, err := c.QueryContext(context.Background(), fmt.Sprintf("select %s from %s", mariaTableText(name), name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cols, _ := rows.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var got [][]byte
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			got = append(got, bytes.Join(vals2bytes(vals), []byte("|")))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		wl := bytes.Split(bytes.TrimSuffix(want[name], []byte("\n")), []byte("\n"))
		slices.SortFunc(got, bytes.Compare)
		slices.SortFunc(wl, bytes.Compare)
		if !slices.EqualFunc(got, wl, bytes.Equal) {
			for i := range min(len(got), len(wl)) {
				if !bytes.Equal(got[i], wl[i]) {
					t.Errorf("%s row %d:\n got %s\nwant %s", name, i+1, got[i], wl[i])
					break
				}
			}
			t.Errorf("%s: %d rows, want %d", name, len(got), len(wl))
		}
	}
}

// testMariaKeys checks that the tables have their primary keys, foreign
// keys and secondary indexes, and that InnoDB has statistics of every
// index.
func testMariaKeys(t *testing.T, tn mariaTenant) {
	ctx := context.Background()
	c := tn.conn(t).SQL()
	var pks, fks, idx int
	err := c.QueryRowContext(ctx, `select
		(select count(*) from information_schema.table_constraints
			where constraint_schema = database() and constraint_type = 'PRIMARY KEY'),
		(select count(*) from information_schema.referential_constraints where constraint_schema = database()),
		(select count(distinct table_name, index_name) from information_schema.statistics
			where table_schema = database() and index_name <> 'PRIMARY')`).Scan(&pks, &fks, &idx)
	if err != nil {
		t.Fatal(err)
	}
	// The statistics are in the mysql database, which the tenant cannot
	// read: asked as the superuser.
	inst := tn.p.Instance
	admin, err := inst.Engine.Connect(ctx, inst.AdminDSN(tn.p.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	got, err := admin.QueryStrings(ctx, `select count(distinct table_name, index_name) from mysql.innodb_index_stats
		where database_name = ? and stat_name = 'n_diff_pfx01'`, tn.p.Database)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	stats, _ := strconv.Atoi(got[0])
	if pks != 8 || fks != 8 || idx != len(secondaryIndexes) || stats != 8+len(secondaryIndexes) {
		t.Errorf("%d primary keys, %d foreign keys, %d secondary indexes, statistics of %d indexes; want 8, 8, %d, %d",
			pks, fks, idx, stats, len(secondaryIndexes), 8+len(secondaryIndexes))
	}
}

// testMariaQueries runs the 22 queries of streams 0 to 3 through clients
// and checks their rows.
func testMariaQueries(t *testing.T, tn mariaTenant) {
	ctx := context.Background()
	conn := tn.conn(t)
	for s := 0; s <= 3; s++ {
		o := DefaultOptions()
		o.FirstStream = s
		sw := mustNew(t, 0.01, o)
		if err := sw.SetTenant(0, 1); err != nil {
			t.Fatal(err)
		}
		cl, err := sw.NewClient(ctx, conn, workload.ClientInfo{Clients: 1, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		c := cl.(*Client)
		start := time.Now()
		for i := range numQueries {
			typ := c.Pick()
			q := sw.queries[typ]
			if q != permutation[s][i] {
				t.Fatalf("stream %d query %d is q%02d, want q%02d", s, i, q, permutation[s][i])
			}
			qs := time.Now()
			if err := c.Run(ctx, typ); err != nil {
				t.Fatalf("stream %d q%02d %v: %v", s, q, c.Params(q), err)
			}
			if c.rows == 0 && !slices.Contains(emptyAllowed, q) {
				t.Errorf("stream %d q%02d %v returned no row", s, q, c.Params(q))
			}
			if testing.Verbose() {
				t.Logf("stream %d q%02d: %d rows in %v", s, q, c.rows, time.Since(qs).Round(time.Millisecond))
			}
		}
		if !c.Done() {
			t.Errorf("stream %d not done after 22 queries", s)
		}
		t.Logf("stream %d: 22 queries in %v", s, time.Since(start).Round(time.Millisecond))
	}
}

// testMariaTimeout runs a query under a 1 ms timeout: the server stops it
// (error 1969, max_statement_time exceeded).
func testMariaTimeout(t *testing.T, tn mariaTenant) {
	o := DefaultOptions()
	o.QueryTimeout = time.Millisecond
	o.Queries = []int{9}
	w := mustNew(t, 0.01, o)
	cl, err := w.NewClient(context.Background(), tn.conn(t), workload.ClientInfo{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = cl.Run(context.Background(), cl.Pick())
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1969 {
		t.Fatalf("q09 under a 1 ms timeout: %v, want error 1969", err)
	}
}

// testMariaRefresh runs a stream with refresh on: RF1 adds its set's
// orders and lines (checked against the foreign keys), RF2 removes them,
// and the row counts are the loaded ones again.
func testMariaRefresh(t *testing.T, tn mariaTenant, loaded *Workload) {
	ctx := context.Background()
	o := DefaultOptions()
	o.Refresh, o.Queries = true, []int{1, 6}
	w := mustNew(t, 0.01, o)
	if err := w.SetTenant(0, 1); err != nil {
		t.Fatal(err)
	}
	conn := tn.conn(t)
	count := func(sql string) (n int64) {
		if err := conn.SQL().QueryRowContext(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	cl, err := w.NewClient(ctx, tn.conn(t), workload.ClientInfo{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Client)
	k := refreshSetOf(c.Stream())
	size, lines := w.z.refreshSize(), w.RefreshLines(k)
	counts := loaded.Counts()
	var names []string
	for !c.Done() {
		typ := c.Pick()
		if err := c.Run(ctx, typ); err != nil {
			t.Fatalf("%s: %v", w.TxnNames()[typ], err)
		}
		names = append(names, w.TxnNames()[typ])
		if len(names) == 1 {
			if got := count("select count(*) from orders"); got != counts["orders"]+size {
				t.Errorf("after RF1: %d orders, want %d + %d", got, counts["orders"], size)
			}
			if got := count("select count(*) from lineitem"); got != counts["lineitem"]+lines {
				t.Errorf("after RF1: %d lineitems, want %d + %d", got, counts["lineitem"], lines)
			}
			if bad := count(`select count(*) from orders o where o_totalprice <> (select sum(truncate(truncate(l_extendedprice * (1 - l_discount), 2) * (1 + l_tax), 2))
				from lineitem where l_orderkey = o_orderkey)`); bad != 0 {
				t.Errorf("%d orders whose total is not their lines'", bad)
			}
		}
	}
	if !slices.Equal(names, []string{"rf1", "q01", "q06", "rf2"}) && !slices.Equal(names, []string{"rf1", "q06", "q01", "rf2"}) {
		t.Errorf("the stream ran %v", names)
	}
	if v, err := w.Check(ctx, conn); err != nil || v != nil {
		t.Errorf("check after the stream: %v, %v", v, err)
	}
	// RF1's foreign keys are checked: a line of an order that is not
	// there (20: neither loaded nor of a refresh set below 1000) is
	// refused.
	err = conn.Exec(ctx, "insert into lineitem select 20, l_partkey, l_suppkey, 99, l_quantity, l_extendedprice, l_discount, l_tax, "+
		"l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment from lineitem limit 1")
	if mariadb.ErrorNumber(err) != 1452 {
		t.Errorf("a line of order 20, which is not there: %v, want error 1452 (foreign key)", err)
	}
}

// vals2bytes copies a row's raw values.
func vals2bytes(vals []sql.RawBytes) [][]byte {
	out := make([][]byte, len(vals))
	for i, v := range vals {
		out[i] = append([]byte(nil), v...)
	}
	return out
}
