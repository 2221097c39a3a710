package tpch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// load runs Setup, Ingest and PostIngest of w for the tenant, as
// wltest.Tenant.Load does, and also checks the progress reports.
func load(t testing.TB, tn wltest.Tenant, w workload.Workload) {
	t.Helper()
	ctx := context.Background()
	conn := tn.Conn(t)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var last int64
	start := time.Now()
	err := w.Ingest(ctx, tn.Connect, func(rows int64) {
		mu.Lock()
		defer mu.Unlock()
		if rows > last {
			last = rows
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ingest of %d rows: %v", w.Rows(), time.Since(start))
	if last != w.Rows() {
		t.Errorf("progress ended at %d rows, Rows() is %d", last, w.Rows())
	}
	start = time.Now()
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	t.Logf("post-ingest: %v", time.Since(start))
}

// TestServer loads SF 0.01 into PostgreSQL and runs the tests that need
// it on one server.
func TestServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	tns := wltest.Place(t, inst, tenancy.Schema{}, "h01", "h02")
	w := mustNew(t, 0.01, DefaultOptions())
	load(t, tns[0], w)
	t.Run("Contents", func(t *testing.T) { testContents(t, tns[0], w) })
	t.Run("Keys", func(t *testing.T) { testKeys(t, tns[0]) })
	t.Run("Queries", func(t *testing.T) { testQueries(t, tns[0], w) })
	t.Run("Timeout", func(t *testing.T) { testTimeout(t, tns[0]) })
	t.Run("TwoModels", func(t *testing.T) { testTwoModels(t, inst, tns[1]) })
	t.Run("Check", func(t *testing.T) { testCheck(t, tns[0], w) })
	t.Run("Streams", func(t *testing.T) { testStreams(t, tns[0]) })
	t.Run("Replicas", func(t *testing.T) { testReplicas(t, inst, tns[0]) })
}

func mustNew(t testing.TB, sf float64, o Options) *Workload {
	t.Helper()
	w, err := New(sf, o)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// tableText selects a table's columns as dbgen prints them: char(n)
// without its padding, money with two decimals, dates as YYYY-MM-DD.
var tableText = map[string]string{
	"region":   "r_regionkey, rtrim(r_name), r_comment",
	"nation":   "n_nationkey, rtrim(n_name), n_regionkey, n_comment",
	"part":     "p_partkey, p_name, rtrim(p_mfgr), rtrim(p_brand), p_type, p_size, rtrim(p_container), p_retailprice, p_comment",
	"partsupp": "ps_partkey, ps_suppkey, ps_availqty, ps_supplycost, ps_comment",
	"supplier": "s_suppkey, rtrim(s_name), s_address, s_nationkey, s_phone, s_acctbal, s_comment",
	"customer": "c_custkey, c_name, c_address, c_nationkey, c_phone, c_acctbal, rtrim(c_mktsegment), c_comment",
	"orders":   "o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate, rtrim(o_orderpriority), rtrim(o_clerk), o_shippriority, o_comment",
	"lineitem": "l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity::integer, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, rtrim(l_shipinstruct), rtrim(l_shipmode), l_comment",
}

var tableOrder = map[string]string{
	"region": "1", "nation": "1", "part": "1", "partsupp": "1, 2", "supplier": "1",
	"customer": "1", "orders": "1", "lineitem": "1, 4",
}

// testContents reads every table back in dbgen's text format and compares
// it with dbgen's output (through the generator the hashes vouch for): the
// binary COPY stores exactly dbgen's values.
func testContents(t *testing.T, tn wltest.Tenant, w *Workload) {
	conn := tn.Conn(t)
	want := tblTables(w.z)
	for _, name := range tableNames {
		var buf bytes.Buffer
		sql := fmt.Sprintf("copy (select %s from %s order by %s) to stdout with (delimiter '|')", tableText[name], name, tableOrder[name])
		if _, err := conn.PgConn().CopyTo(context.Background(), &buf, sql); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Rows in key order: dbgen writes partsupp by part, then by its
		// four suppliers in their generated order.
		gl, wl := bytes.Split(buf.Bytes(), []byte("\n")), bytes.Split(want[name], []byte("\n"))
		slices.SortFunc(gl, bytes.Compare)
		slices.SortFunc(wl, bytes.Compare)
		if !slices.EqualFunc(gl, wl, bytes.Equal) {
			for i := range min(len(gl), len(wl)) {
				if !bytes.Equal(gl[i], wl[i]) {
					t.Errorf("%s row %d:\n got %s\nwant %s", name, i+1, gl[i], wl[i])
					break
				}
			}
			t.Errorf("%s: %d rows, want %d", name, len(gl)-1, len(wl)-1)
		}
	}
}

// testKeys checks that PostIngest made the keys, the foreign keys and the
// indexes, and analysed the tables.
func testKeys(t *testing.T, tn wltest.Tenant) {
	conn := tn.Conn(t)
	var pks, fks, idx, analysed int
	err := conn.QueryRow(context.Background(), `select
		(select count(*) from pg_constraint c join pg_class r on r.oid = c.conrelid
			where r.relnamespace = current_schema()::regnamespace and contype = 'p'),
		(select count(*) from pg_constraint c join pg_class r on r.oid = c.conrelid
			where r.relnamespace = current_schema()::regnamespace and contype = 'f'),
		(select count(*) from pg_indexes where schemaname = current_schema()),
		(select count(*) from pg_stat_user_tables where schemaname = current_schema() and last_analyze is not null)`).
		Scan(&pks, &fks, &idx, &analysed)
	if err != nil {
		t.Fatal(err)
	}
	if pks != 8 || fks != 8 || idx != 8+len(secondaryIndexes) || analysed != 8 {
		t.Errorf("%d primary keys, %d foreign keys, %d indexes, %d tables analysed; want 8, 8, %d, 8",
			pks, fks, idx, analysed, 8+len(secondaryIndexes))
	}
}

// emptyAllowed are the queries that may return no row at SF 0.01 for
// some parameters (few parts or suppliers match); every other returns at
// least one.
var emptyAllowed = []int{2, 11, 18, 20, 21}

// testQueries runs the 22 queries of streams 0 to 3 through clients and
// checks their rows.
func testQueries(t *testing.T, tn wltest.Tenant, w *Workload) {
	ctx := context.Background()
	for s := 0; s <= 3; s++ {
		o := DefaultOptions()
		o.FirstStream = s
		sw := mustNew(t, 0.01, o)
		if err := sw.SetTenant(0, 1); err != nil {
			t.Fatal(err)
		}
		cl, err := sw.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Index: 0, Clients: 1, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		c := cl.(*Client)
		if c.Stream() != s {
			t.Fatalf("stream %d, want %d", c.Stream(), s)
		}
		for i := range numQueries {
			typ := c.Pick()
			q := sw.queries[typ]
			if q != permutation[s][i] {
				t.Fatalf("stream %d query %d is q%02d, want q%02d", s, i, q, permutation[s][i])
			}
			start := time.Now()
			if err := c.Run(ctx, typ); err != nil {
				t.Fatalf("stream %d q%02d %v: %v", s, q, c.Params(q), err)
			}
			if c.rows == 0 && !slices.Contains(emptyAllowed, q) {
				t.Errorf("stream %d q%02d %v returned no row", s, q, c.Params(q))
			}
			if testing.Verbose() {
				t.Logf("stream %d q%02d: %d rows in %v", s, q, c.rows, time.Since(start).Round(time.Millisecond))
			}
		}
		if !c.Done() {
			t.Errorf("stream %d not done after 22 queries", s)
		}
	}
}

// testTimeout runs a query under a 1 ms timeout: the server cancels it.
func testTimeout(t *testing.T, tn wltest.Tenant) {
	o := DefaultOptions()
	o.QueryTimeout = time.Millisecond
	o.Queries = []int{9}
	w := mustNew(t, 0.01, o)
	cl, err := w.NewClient(context.Background(), tn.Conn(t), workload.ClientInfo{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = cl.Run(context.Background(), cl.Pick())
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("q09 under a 1 ms timeout: %v, want SQLSTATE 57014", err)
	}
}

// testTwoModels loads two tenants at once, one per schema and one per
// database, and checks each sees its own rows only.
func testTwoModels(t *testing.T, inst *provider.Instance, schemaTenant wltest.Tenant) {
	tns := append([]wltest.Tenant{schemaTenant}, wltest.Place(t, inst, tenancy.Database{}, "h03")...)
	w := mustNew(t, 0.01, DefaultOptions())
	var wg sync.WaitGroup
	for _, tn := range tns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := tn.Conn(t)
			if err := w.Setup(context.Background(), conn); err != nil {
				t.Error(err)
				return
			}
			if err := w.Ingest(context.Background(), tn.Connect, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, tn := range tns {
		conn := tn.Conn(t)
		for name, n := range w.Counts() {
			var got int64
			if err := conn.QueryRow(context.Background(), "select count(*) from "+name).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Errorf("tenant %s %s: %d rows, want %d", tn.Tenant, name, got, n)
			}
		}
	}
}

// TestLoadSpeed loads SF TPCH_LOAD_SF (unset: skipped) and reports rows
// per second of generation and load, and of post-ingest.
func TestLoadSpeed(t *testing.T) {
	sfText := os.Getenv("TPCH_LOAD_SF")
	if sfText == "" {
		t.Skip("TPCH_LOAD_SF not set")
	}
	inst := pgtest.Start(t, pgtest.Settings(loadSettings()))
	tn := wltest.Place(t, inst, tenancy.Schema{}, "speed")[0]
	o := DefaultOptions()
	if n := os.Getenv("TPCH_LOAD_CONNECTIONS"); n != "" {
		o.LoadConnections = int(mustFloat(t, n))
	}
	w := mustNew(t, mustFloat(t, sfText), o)
	textPool()
	ctx := context.Background()
	conn := tn.Conn(t)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := w.Ingest(ctx, tn.Connect, nil); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("SF %s: %d rows in %v: %.0f rows/s (%d connections)", sfText, w.Rows(), d.Round(time.Millisecond),
		float64(w.Rows())/d.Seconds(), w.loadConnections())
	start = time.Now()
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	t.Logf("post-ingest: %v", time.Since(start).Round(time.Millisecond))
}

// testCheck checks the loaded tenant, then removes a row and checks again.
func testCheck(t *testing.T, tn wltest.Tenant, w *Workload) {
	conn := tn.Conn(t)
	ctx := context.Background()
	v, err := w.Check(ctx, conn)
	if err != nil || v != nil {
		t.Fatalf("loaded tenant: %v, %v", v, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "delete from lineitem where l_orderkey = 1 and l_linenumber = 6"); err != nil {
		t.Fatal(err)
	}
	v, err = w.Check(ctx, tx.Conn())
	if err != nil || len(v) != 1 || !strings.Contains(v[0], "lineitem has 60174 rows, want 60175") {
		t.Fatalf("after a delete: %v, %v", v, err)
	}
}

// loadSettings are the server settings of TestLoadSpeed: a larger WAL,
// and with TPCH_WAL_MINIMAL=1 Erdelt and Rabl's (2026) wal_level minimal (no
// WAL for COPY into tables truncated in the same transaction).
func loadSettings() map[string]string {
	m := map[string]string{"max_wal_size": "4GB", "checkpoint_timeout": "30min"}
	if os.Getenv("TPCH_WAL_MINIMAL") != "" {
		m["wal_level"], m["max_wal_senders"] = "minimal", "0"
	}
	return m
}

// testStreams runs two streams of a tenant through the driver's closed
// loop: each stops after its sequence, long before the phase's end, and
// a client reconnected on a stream goes on where the stream was.
func testStreams(t *testing.T, tn wltest.Tenant) {
	o := DefaultOptions()
	o.Queries, o.RepeatQueries = []int{1, 6, 14}, 2
	w := mustNew(t, 0.01, o)
	if err := w.SetTenant(1, 3); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := driver.Run(context.Background(), []driver.Tenant{{Name: tn.Tenant, Connect: tn.Connect, Workload: w, Clients: 2, Seed: 7}},
		driver.Options{Duration: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the phase took %v: the streams did not end it", d)
	}
	if got := res.Tenants[0].All.Committed; got != 12 {
		t.Errorf("%d queries committed, want 2 streams x 3 queries x 2", got)
	}
	streams := w.Streams()
	if len(streams) != 2 || streams[0].Number != 3 || streams[1].Number != 4 {
		t.Fatalf("streams %+v, want numbers 3 and 4 (first_stream 1 + tenant 1 x 2 clients)", streams)
	}
	for _, s := range streams {
		if s.Queries != 6 || len(s.Execs) != 6 {
			t.Errorf("stream %d: %d of %d executions logged, want 6 of 6", s.Number, len(s.Execs), s.Queries)
		}
		for i, e := range s.Execs {
			if e.Err != "" || !e.End.After(e.Start) {
				t.Errorf("stream %d exec %d: %+v", s.Number, i, e)
			}
			if i > 0 && e.Start.Before(s.Execs[i-1].End) {
				t.Errorf("stream %d exec %d started before the previous ended", s.Number, i)
			}
		}
		want := streamOrder(s.Number, o.Queries)
		for i, e := range s.Execs {
			if e.Query != queryName(want[i/2]) {
				t.Errorf("stream %d exec %d is %s, want %s", s.Number, i, e.Query, queryName(want[i/2]))
			}
		}
	}

	// A new client on a stream (after a lost connection) goes on.
	w2 := mustNew(t, 0.01, o)
	if err := w2.SetTenant(0, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c1, err := w2.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	seq := c1.(*Client).seq
	c1.Pick()
	c1.Pick()
	c2, err := w2.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.Pick(); got != seq[2] {
		t.Errorf("the new client's first query is type %d, want the stream's third, %d", got, seq[2])
	}
}
