package duckdbcheck

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/marcboeker/go-duckdb"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpch"
)

// duckDDL is clause 1.4.1's tables in DuckDB's types (char(n) is varchar
// there, without padding).
const duckDDL = `
create table region (r_regionkey integer, r_name varchar, r_comment varchar);
create table nation (n_nationkey integer, n_name varchar, n_regionkey integer, n_comment varchar);
create table part (p_partkey integer, p_name varchar, p_mfgr varchar, p_brand varchar, p_type varchar,
	p_size integer, p_container varchar, p_retailprice decimal(15,2), p_comment varchar);
create table supplier (s_suppkey integer, s_name varchar, s_address varchar, s_nationkey integer,
	s_phone varchar, s_acctbal decimal(15,2), s_comment varchar);
create table partsupp (ps_partkey integer, ps_suppkey integer, ps_availqty integer,
	ps_supplycost decimal(15,2), ps_comment varchar);
create table customer (c_custkey integer, c_name varchar, c_address varchar, c_nationkey integer,
	c_phone varchar, c_acctbal decimal(15,2), c_mktsegment varchar, c_comment varchar);
create table orders (o_orderkey integer, o_custkey integer, o_orderstatus varchar, o_totalprice decimal(15,2),
	o_orderdate date, o_orderpriority varchar, o_clerk varchar, o_shippriority integer, o_comment varchar);
create table lineitem (l_orderkey integer, l_partkey integer, l_suppkey integer, l_linenumber integer,
	l_quantity decimal(15,2), l_extendedprice decimal(15,2), l_discount decimal(15,2), l_tax decimal(15,2),
	l_returnflag varchar, l_linestatus varchar, l_shipdate date, l_commitdate date, l_receiptdate date,
	l_shipinstruct varchar, l_shipmode varchar, l_comment varchar);`

// TestAnswers loads SF 0.01 into PostgreSQL and into MariaDB (the
// workload's own Setup, Ingest and PostIngest on each) and into DuckDB
// (from the workload's dbgen .tbl text), runs the 22 queries of several
// streams in each and compares the answers with DuckDB's: same rows, in
// the same order where the query orders them, numbers equal to 1e-9
// relative. MariaDB's part is skipped where no MariaDB server is
// installed.
func TestAnswers(t *testing.T) {
	sf := 0.01
	ctx := context.Background()
	w, err := tpch.New(sf, tpch.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// DuckDB from the .tbl files.
	dir := t.TempDir()
	duck, err := sql.Open("duckdb", filepath.Join(dir, "tpch.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if _, err := duck.Exec(duckDDL); err != nil {
		t.Fatal(err)
	}
	for _, name := range tpch.TableNames() {
		path := filepath.Join(dir, name+".tbl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.(*tpch.Workload).WriteTable(f, name); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := duck.Exec(fmt.Sprintf("copy %s from '%s' (delimiter '|', header false, quote '', escape '')", name, path)); err != nil {
			t.Fatalf("duckdb copy %s: %v", name, err)
		}
	}
	t.Run("postgres", func(t *testing.T) {
		inst := pgtest.Start(t)
		ps, err := tenancy.Schema{}.Place(ctx, []*provider.Instance{inst}, []string{"h01"})
		if err != nil {
			t.Fatal(err)
		}
		dsn := ps[0].DSN("tcp")
		connect := workload.PGConnect(func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) })
		conn := load(t, w, connect)
		pg, _ := workload.PG(conn)
		compareStreams(t, duck, conn, func(q int, params []string) ([][]string, error) {
			return pgAnswer(ctx, pg, tpch.QueryText(q), params)
		})
	})
	t.Run("mariadb", func(t *testing.T) {
		if _, err := (mariadb.Engine{}).FindPrograms(ctx, "", dbserver.Find{}); err != nil {
			t.Skip(err)
		}
		inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}))
		ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"h01"})
		if err != nil {
			t.Fatal(err)
		}
		dsn := ps[0].DSN("tcp")
		connect := func(ctx context.Context) (workload.Conn, error) { return inst.Engine.ClientConn(ctx, dsn, nil) }
		conn := load(t, w, connect)
		mc, _ := mariadb.Of(conn)
		compareStreams(t, duck, conn, func(q int, params []string) ([][]string, error) {
			return mariaAnswer(ctx, mc.SQL(), tpch.MariaDBQuery(q, params, 0))
		})
	})
}

// load loads w with connect and returns a connection, closed when the
// test ends.
func load(t *testing.T, w workload.Workload, connect workload.Connect) workload.Conn {
	ctx := context.Background()
	conn, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := w.Ingest(ctx, connect, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

// compareStreams runs the 22 queries of streams 0 to 7 with answer and
// compares each answer with DuckDB's. The streams' parameters are those
// of clients made on conn.
func compareStreams(t *testing.T, duck *sql.DB, conn workload.Conn, answer func(q int, params []string) ([][]string, error)) {
	ctx := context.Background()
	for s := range 8 {
		o := tpch.DefaultOptions()
		o.FirstStream = s
		sw, _ := tpch.New(0.01, o)
		if err := sw.(*tpch.Workload).SetTenant(0, 1); err != nil {
			t.Fatal(err)
		}
		cl, err := sw.NewClient(ctx, conn, workload.ClientInfo{Clients: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := cl.(*tpch.Client)
		for q := 1; q <= 22; q++ {
			params := c.Params(q)
			got, err := answer(q, params)
			if err != nil {
				t.Fatalf("stream %d q%02d %v: %v", s, q, params, err)
			}
			duckRows, err := duckAnswer(duck, tpch.QueryText(q), params)
			if err != nil {
				t.Fatalf("stream %d q%02d %v duckdb: %v", s, q, params, err)
			}
			if msg := compare(got, duckRows); msg != "" {
				t.Errorf("stream %d q%02d %v: %s", s, q, params, msg)
			} else if testing.Verbose() {
				t.Logf("stream %d q%02d: %d rows agree", s, q, len(got))
			}
		}
	}
}

// mariaAnswer runs query text on a MariaDB connection and returns its
// rows as text.
func mariaAnswer(ctx context.Context, c *sql.Conn, text string) ([][]string, error) {
	rs, err := c.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var rows [][]string
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = strings.TrimRight(string(v), " ")
			}
		}
		rows = append(rows, row)
	}
	return rows, rs.Err()
}

// pgAnswer runs query text with params (text) and returns its rows as
// text.
func pgAnswer(ctx context.Context, conn *pgx.Conn, text string, params []string) ([][]string, error) {
	args := make([][]byte, len(params))
	for i, p := range params {
		args[i] = []byte(p)
	}
	rr := conn.PgConn().ExecParams(ctx, text, args, nil, nil, nil)
	var rows [][]string
	for rr.NextRow() {
		var row []string
		for _, v := range rr.Values() {
			if v == nil {
				row = append(row, "NULL")
			} else {
				row = append(row, strings.TrimRight(string(v), " "))
			}
		}
		rows = append(rows, row)
	}
	_, err := rr.Close()
	return rows, err
}

// duckAnswer runs the same query in DuckDB, the parameters written in as
// string literals ($10 before $1), cast as the query casts them.
func duckAnswer(db *sql.DB, text string, params []string) ([][]string, error) {
	for i := len(params); i >= 1; i-- {
		text = strings.ReplaceAll(text, fmt.Sprintf("$%d", i), "'"+strings.ReplaceAll(params[i-1], "'", "''")+"'")
	}
	rs, err := db.Query(text)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var rows [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case time.Time:
				row[i] = x.Format(time.DateOnly)
			case string:
				row[i] = strings.TrimRight(x, " ")
			case duckdb.Decimal:
				row[i] = x.String()
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		rows = append(rows, row)
	}
	return rows, rs.Err()
}

// compare says how two answers differ, "" when they agree: row by row,
// numbers to 1e-9 relative; rows whose order the query leaves open (ties)
// may come in either order.
func compare(a, b [][]string) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rows, duckdb %d rows", len(a), len(b))
	}
	same := func(x, y []string) bool { return rowsEqual(x, y) }
	if slices.EqualFunc(a, b, same) {
		return ""
	}
	// Ties: compare as multisets.
	used := make([]bool, len(b))
	for _, r := range a {
		found := false
		for j, s := range b {
			if !used[j] && same(r, s) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("row %v not in duckdb's answer (first duckdb row %v)", r, b[0])
		}
	}
	return ""
}

func rowsEqual(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] == y[i] {
			continue
		}
		f, err1 := strconv.ParseFloat(x[i], 64)
		g, err2 := strconv.ParseFloat(y[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if math.Abs(f-g) > 1e-9*math.Max(1, math.Max(math.Abs(f), math.Abs(g))) {
			return false
		}
	}
	return true
}
