package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// The shared-table model: every tenant's rows in the same nine tables, each
// tenant owning a range of warehouses, its tenant key. Tenant i (from 0) of
// a run with W warehouses per tenant owns warehouses i x W + 1 .. (i + 1) x
// W, and every row of the eight tables below carries its warehouse number.
// ITEM is the same for every warehouse (clause 1.2.1): it is loaded once and
// read by all. A tenant's terminals choose remote warehouses (1 % of the
// order lines, 15 % of the payments) among its own warehouses only, so a
// tenant never reads or writes another's rows, and row-level security on the
// key columns lets it see no others.

var _ workload.Shared = (*Workload)(nil)

// keyColumns are the tables that hold warehouses' rows and the column
// holding the warehouse number, the tenant key. HISTORY is keyed by
// H_W_ID, the warehouse of the payment; its customer's warehouse H_C_W_ID
// is among the tenant's too.
var keyColumns = []workload.KeyColumn{
	{Table: "warehouse", Column: "w_id"},
	{Table: "district", Column: "d_w_id"},
	{Table: "customer", Column: "c_w_id"},
	{Table: "history", Column: "h_w_id"},
	{Table: "new_order", Column: "no_w_id"},
	{Table: "orders", Column: "o_w_id"},
	{Table: "order_line", Column: "ol_w_id"},
	{Table: "stock", Column: "s_w_id"},
}

// KeyColumns are the eight tables keyed by warehouse; ITEM is shared.
func (w *Workload) KeyColumns() []workload.KeyColumn {
	return append([]workload.KeyColumn(nil), keyColumns...)
}

// KeyRange is the warehouses of tenant key.Index: W x Index + 1 ..
// W x (Index + 1).
func (w *Workload) KeyRange(key workload.TenantKey) (lo, hi int64) {
	first := int64(key.Index) * int64(w.warehouses)
	return first + 1, first + int64(w.warehouses)
}

// SharedRows is the 100,000 items.
func (w *Workload) SharedRows() int64 { return items }

// IngestShared loads ITEM, once for every tenant of the shared tables, as
// their owner (with the option freeze, in the transaction that truncates
// it).
func (w *Workload) IngestShared(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	conn, err := workload.ConnectPG(ctx, Name, connect)
	if err != nil {
		return fmt.Errorf("tpcc: ingest: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var loaded int64
	report := func(n int64) {
		loaded += n
		if progress != nil {
			progress(loaded)
		}
	}
	gen := newGenerator(w.seed, w.k, time.Now().UTC())
	if err := (pgLoader{w, conn}).load(ctx, gen, unit{tItem, 0}, report); err != nil {
		return fmt.Errorf("tpcc: ingest item: %w", err)
	}
	return nil
}

// ForTenant is the workload of tenant key.Index of key.Tenants in shared
// tables: the same options and warehouses per tenant, its warehouses
// numbered from key.Index x W + 1. Its data equal those of a tenant with
// tables of its own (the warehouse numbers aside).
func (w *Workload) ForTenant(key workload.TenantKey) (workload.Workload, error) {
	if w.keyed {
		return nil, fmt.Errorf("tpcc: ForTenant of a tenant's workload")
	}
	if key.Tenants < 1 || key.Index < 0 || key.Index >= key.Tenants {
		return nil, fmt.Errorf("tpcc: tenant key %d of %d tenants", key.Index, key.Tenants)
	}
	if int64(key.Tenants)*int64(w.warehouses) > 1<<31-1 {
		return nil, fmt.Errorf("tpcc: %d tenants x %d warehouses do not fit warehouse numbers", key.Tenants, w.warehouses)
	}
	t := &Workload{warehouses: w.warehouses, opts: w.opts, k: w.k, seed: w.seed, deck: w.deck,
		keyed: true, key: key, first: key.Index * w.warehouses}
	return t, nil
}

// Key is the tenant key of a workload from ForTenant, and whether it has
// one.
func (w *Workload) Key() (workload.TenantKey, bool) { return w.key, w.keyed }

// loadStaged copies unit u of a tenant of shared tables. COPY FROM refuses
// tables under row-level security, so the rows go to a temporary table of
// the session first, then into the table with one INSERT, each row checked
// by the tenant's policy: a row outside the tenant's warehouses fails the
// load.
func (w *Workload) loadStaged(ctx context.Context, conn *pgx.Conn, gen *generator, u unit, report func(int64)) error {
	name := u.t.String()
	stage := "tpcc_stage_" + name
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "create temp table if not exists "+stage+" (like "+name+") on commit delete rows"); err != nil {
		return err
	}
	first, _ := u.span(w.warehouses)
	sql := "copy " + stage + " from stdin with (format binary)"
	if _, err := conn.PgConn().CopyFrom(ctx, workload.NewCopyReader(gen.source(u.t, first), maxRow, report), sql); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "insert into "+name+" select * from "+stage); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
