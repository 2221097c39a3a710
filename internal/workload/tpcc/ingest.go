package tpcc

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// unit is one piece of the load, done on one connection: one table of
// every warehouse in one transaction (freeze), or one table of one
// warehouse (w > 0). ITEM is a unit of its own either way.
type unit struct {
	t table
	w int // 0: every warehouse
}

func (u unit) String() string {
	if u.w == 0 || u.t == tItem {
		return u.t.String()
	}
	return fmt.Sprintf("%s of warehouse %d", u.t, u.w)
}

// span is the warehouses whose rows u copies, one COPY each; 0, 0 for
// ITEM.
func (u unit) span(warehouses int) (first, last int) {
	switch {
	case u.t == tItem:
		return 0, 0
	case u.w == 0:
		return 1, warehouses
	}
	return u.w, u.w
}

// tableOrder are the tables by decreasing size, the order in which the
// connections take them, so that they finish at about the same time.
var tableOrder = []table{tStock, tOrderLine, tCustomer, tItem, tHistory, tOrders, tNewOrder, tDistrict, tWarehouse}

// units are the pieces of the load, the largest first.
func (w *Workload) units() []unit {
	var us []unit
	for _, t := range tableOrder {
		if t == tItem && w.keyed {
			continue // the owner of the shared tables loads ITEM (IngestShared)
		}
		if w.opts.Freeze && !w.keyed || t == tItem {
			us = append(us, unit{t, 0})
			continue
		}
		for wid := 1; wid <= w.warehouses; wid++ {
			us = append(us, unit{t, wid})
		}
	}
	return us
}

// loadConnections is how many connections Ingest uses: the option, else
// one more than the CPUs (generating rows and storing them overlap: on 2
// CPUs, 3 connections loaded 4 warehouses 20 % faster than 2, and 4 no
// faster than 3), at most 4; never more than there are units.
func (w *Workload) loadConnections(units int) int {
	n := w.opts.LoadConnections
	if n == 0 {
		n = min(runtime.GOMAXPROCS(0)+1, 4)
	}
	return max(1, min(n, units))
}

// Ingest loads the population of clause 4.3.3.1 over several
// connections opened with connect, each taking the next unit of the load
// (the largest first) and storing it in its engine's way (a loader:
// PostgreSQL's COPY below, MariaDB's LOAD DATA in mariadb.go). On
// PostgreSQL, with the option freeze (the default) a unit is a table: one
// transaction truncates it and copies the rows of every warehouse with
// FREEZE, so they are written frozen and all-visible and the VACUUM of
// PostIngest has little left to do; tables load in parallel. Without, a
// unit is one table of one warehouse in a transaction of its own, and
// warehouses load in parallel: for tables that other tenants' rows share,
// which must not be truncated. A tenant of shared tables (ForTenant) loads
// its own warehouses that way whatever the option, through row-level
// security (loadStaged), and not ITEM. progress is called with the rows
// loaded so far.
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	// The first connection says the engine: MariaDB's form loads on it
	// and more; PostgreSQL's opens its own (one per unit taker).
	first, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcc: ingest: connect: %w", err)
	}
	if mc, ok := mariadb.Of(first); ok {
		// The first loader takes this connection over and closes it when
		// the units run out: a tenant allowed one connection at a time
		// (the run's LoadConnect) lets the other loaders connect only then.
		open, err := w.mariaLoaders(ctx, mc, connect)
		if err != nil {
			mc.Close(context.WithoutCancel(ctx))
			return err
		}
		return w.loadUnits(ctx, open, progress)
	}
	if err := first.Close(ctx); err != nil {
		return fmt.Errorf("tpcc: ingest: %w", err)
	}
	return w.loadUnits(ctx, w.pgLoaders(connect), progress)
}

// loader stores units of the load on one connection, in its engine's way.
type loader interface {
	load(ctx context.Context, gen *generator, u unit, report func(rows int64)) error
	// close ends the loader's session (its connection, if it opened one).
	close(ctx context.Context)
}

// openLoader opens the loader of the i-th unit taker (from 0).
type openLoader func(ctx context.Context, i int) (loader, error)

// loadUnits loads the units of the load, each taken by the next free of
// loadConnections loaders, all from one generator.
func (w *Workload) loadUnits(ctx context.Context, open openLoader, progress func(rows int64)) error {
	// The "current date and time" of clause 4.3.3.1, one for the load.
	gen := newGenerator(w.seed, w.k, time.Now().UTC())
	gen.first = w.first
	us := w.units()
	next := make(chan unit, len(us))
	for _, u := range us {
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
	for i := range w.loadConnections(len(us)) {
		g.Go(func() error {
			l, err := open(gctx, i)
			if err != nil {
				return err
			}
			defer l.close(context.WithoutCancel(ctx))
			for u := range next {
				if err := l.load(gctx, gen, u, report); err != nil {
					return fmt.Errorf("tpcc: ingest %s: %w", u, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// pgLoader copies units with COPY in binary format on a connection of
// its own.
type pgLoader struct {
	w    *Workload
	conn *pgx.Conn
}

// pgLoaders opens each unit taker's connection with connect.
func (w *Workload) pgLoaders(connect workload.Connect) openLoader {
	return func(ctx context.Context, _ int) (loader, error) {
		conn, err := workload.ConnectPG(ctx, Name, connect)
		if err != nil {
			return nil, fmt.Errorf("tpcc: ingest: connect: %w", err)
		}
		if w.keyed {
			// loadStaged's temporary tables hold a table of one
			// warehouse at a time (STOCK, the largest, about 35 MB):
			// in memory rather than in temporary files (the default
			// is 8 MB). Local buffers are allocated as used.
			if _, err := conn.Exec(ctx, "set temp_buffers = '64MB'"); err != nil {
				conn.Close(context.WithoutCancel(ctx))
				return nil, err
			}
		}
		return pgLoader{w, conn}, nil
	}
}

func (l pgLoader) close(ctx context.Context) { l.conn.Close(ctx) }

// load copies unit u.
func (l pgLoader) load(ctx context.Context, gen *generator, u unit, report func(int64)) error {
	w, conn := l.w, l.conn
	if w.keyed {
		return w.loadStaged(ctx, conn, gen, u, report)
	}
	name := u.t.String()
	first, last := u.span(w.warehouses)
	if !w.opts.Freeze {
		sql := "copy " + name + " from stdin with (format binary)"
		_, err := conn.PgConn().CopyFrom(ctx, workload.NewCopyReader(gen.source(u.t, first), maxRow, report), sql)
		return err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "truncate table "+name); err != nil {
		return err
	}
	sql := "copy " + name + " from stdin with (format binary, freeze)"
	for wid := first; wid <= last; wid++ {
		if _, err := conn.PgConn().CopyFrom(ctx, workload.NewCopyReader(gen.source(u.t, wid), maxRow, report), sql); err != nil {
			if wid > 0 {
				return fmt.Errorf("warehouse %d: %w", wid, err)
			}
			return err
		}
	}
	return tx.Commit(ctx)
}
