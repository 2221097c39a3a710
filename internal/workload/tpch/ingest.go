package tpch

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Row size bounds for workload.CopyTable.MaxRow: a lineitem "row" is an
// order's up to 7 lines, a partsupp "row" a part's 4 rows.
const (
	maxSmallRow    = 512
	maxPartsuppRow = 4 * 320
	maxLinesRow    = maxLines * 320
)

// loadUnit is the tables one connection loads in one transaction.
type loadUnit []string

// loadUnits are the pieces of the load, the largest first: LINEITEM,
// ORDERS and PARTSUPP alone, the five others together.
var loadUnits = []loadUnit{
	{"lineitem"}, {"orders"}, {"partsupp"},
	{"part", "customer", "supplier", "nation", "region"},
}

// loadConnections is how many connections Ingest uses: the option, else
// one more than the CPUs (generation and the server's work overlap), at
// most one per unit.
func (w *Workload) loadConnections() int {
	n := w.opts.LoadConnections
	if n == 0 {
		n = runtime.GOMAXPROCS(0) + 1
	}
	return max(1, min(n, len(loadUnits)))
}

// Ingest loads the eight tables with COPY in binary format over several
// connections, each taking the next unit (the largest first). A unit is
// one transaction that truncates its tables and copies them WITH FREEZE,
// so the rows are written frozen and all-visible. On MariaDB a unit is a
// LOAD DATA per table (mariadb.go). progress is called with
// the rows loaded so far (partsupp and lineitem rows counted as rows, not
// parts and orders).
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	textPool() // build the text pool once, before the connections wait on it
	next := make(chan loadUnit, len(loadUnits))
	for _, u := range loadUnits {
		next <- u
	}
	close(next)
	var loaded atomic.Int64
	report := func(n int64) {
		if progress != nil {
			progress(loaded.Add(n))
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for range w.loadConnections() {
		g.Go(func() error {
			conn, err := connect(gctx)
			if err != nil {
				return fmt.Errorf("tpch: ingest: connect: %w", err)
			}
			defer conn.Close(context.WithoutCancel(ctx))
			load, err := w.loader(gctx, conn)
			if err != nil {
				return err
			}
			for u := range next {
				if err := load(gctx, u, report); err != nil {
					return fmt.Errorf("tpch: ingest %s: %w", strings.Join(u, ", "), err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// loader is how conn loads a unit: PostgreSQL's COPY or MariaDB's LOAD
// DATA, by the connection's engine.
func (w *Workload) loader(ctx context.Context, conn workload.Conn) (func(context.Context, loadUnit, func(int64)) error, error) {
	if mc, ok := mariadb.Of(conn); ok {
		return w.mariaLoader(ctx, mc)
	}
	pg, ok := workload.PG(conn)
	if !ok {
		return nil, workload.NoForm(Name, conn)
	}
	return func(ctx context.Context, u loadUnit, report func(int64)) error {
		return w.loadUnit(ctx, pg, u, report)
	}, nil
}

// loadUnit truncates u's tables and copies them with FREEZE in one
// transaction.
func (w *Workload) loadUnit(ctx context.Context, conn *pgx.Conn, u loadUnit, report func(int64)) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "truncate table "+strings.Join(u, ", ")); err != nil {
		return err
	}
	for _, name := range u {
		t, counter := w.copyTable(name, 1, 0)
		rep := report
		if counter != nil {
			rep = nil // the table counts its own rows
			counter.report = report
		}
		if err := workload.CopyFreeze(ctx, conn.PgConn(), t, rep); err != nil {
			return err
		}
		if counter != nil {
			counter.flush()
		}
	}
	return tx.Commit(ctx)
}

// rowCounter reports the rows of tables whose CopyTable ids are not rows
// (partsupp: parts; lineitem: orders).
type rowCounter struct {
	n      int64
	report func(int64)
}

func (c *rowCounter) add(n int64) {
	c.n += n
	if c.n >= workload.CopyProgressEvery {
		c.flush()
	}
}

func (c *rowCounter) flush() {
	if c.n > 0 && c.report != nil {
		c.report(c.n)
	}
	c.n = 0
}

// copyTable is table name's rows with ids first..last (last 0: to the
// end), each with a generator of its own, so tables and ranges can be
// encoded concurrently. The ids are the row numbers of dbgen: parts for
// part and partsupp, orders for orders and lineitem, keys from 0 for
// nation and region. For partsupp and lineitem, whose ids hold several
// rows, the counter counts the rows.
func (w *Workload) copyTable(name string, first, last int64) (workload.CopyTable, *rowCounter) {
	z := w.z
	big := z.orderKeyIsBig()
	end := func(n int64) int64 {
		if last == 0 || last > n {
			return n
		}
		return last
	}
	switch name {
	case "part":
		g := newPartGen(z)
		return workload.CopyTable{Name: name, First: first, Last: end(z.parts), MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodePart(buf, g.gen(id)) }}, nil
	case "partsupp":
		g := newPartGen(z)
		c := &rowCounter{}
		return workload.CopyTable{Name: name, First: first, Last: end(z.parts), MaxRow: maxPartsuppRow,
			Encode: func(buf []byte, id int64) []byte {
				c.add(suppsPerPart)
				return encodePartsupp(buf, g.gen(id))
			}}, c
	case "supplier":
		g := newSupplierGen()
		return workload.CopyTable{Name: name, First: first, Last: end(z.suppliers), MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodeSupplier(buf, g.gen(id)) }}, nil
	case "customer":
		g := newCustomerGen()
		return workload.CopyTable{Name: name, First: first, Last: end(z.customers), MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodeCustomer(buf, g.gen(id)) }}, nil
	case "orders":
		g := newOrderGen(z)
		return workload.CopyTable{Name: name, First: first, Last: end(z.orders), MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodeOrder(buf, g.gen(id), big) }}, nil
	case "lineitem":
		g := newOrderGen(z)
		c := &rowCounter{}
		return workload.CopyTable{Name: name, First: first, Last: end(z.orders), MaxRow: maxLinesRow,
			Encode: func(buf []byte, id int64) []byte {
				r := g.gen(id)
				c.add(int64(len(r.lines)))
				return encodeLines(buf, r, big)
			}}, c
	case "nation":
		g := newNationGen()
		return workload.CopyTable{Name: name, First: first - 1, Last: end(numNations) - 1, MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodeNation(buf, g, id) }}, nil
	case "region":
		g := newNationGen()
		return workload.CopyTable{Name: name, First: first - 1, Last: end(numRegions) - 1, MaxRow: maxSmallRow,
			Encode: func(buf []byte, id int64) []byte { return encodeRegion(buf, g, id) }}, nil
	}
	panic("tpch: unknown table " + name)
}
