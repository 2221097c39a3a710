package tpch

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// The refresh functions (clause 2.5): RF1 inserts SF x 1500 new orders
// with their 1 to 7 lineitems, RF2 deletes SF x 1500 orders with theirs.
// A stream with refresh on runs RF1 before its queries and RF2 after them
// (clause 5.3: the power test's RF1, queries, RF2; the throughput test's
// refresh pair per query stream).
//
// The rows of refresh set k (1-based) are those dbgen -U generates for its
// update set k: its generator continues past the loaded orders (driver.c
// set_state to the row after SF's), set k taking rows orders +
// (k-1) x size + 1 onwards, and its order keys are mk_sparse(index, 1 +
// k/1000) for indexes (k-1) x size + 1 .. k x size: the same sparse
// layout as the loaded keys with the two "unused" bits set to 1 (clause
// 4.2.3: the keys fill the unused part of the sparse key space), so they
// never meet a loaded key nor another set's.

// Names of the refresh functions in results.
const (
	rf1Name = "rf1"
	rf2Name = "rf2"
)

// maxRefreshSet is the largest set number: sets 1..999 take the second
// quarter of the sparse key space (seq 1 of mk_sparse); from 1000 on
// dbgen moves to the third, which the keys' int4 bound at SF up to 357
// is not checked for.
const maxRefreshSet = 999

// refreshSize is how many orders a refresh function inserts or deletes:
// SF x 1500 (clause 2.5.2, 2.5.3), 0.1 % of ORDERS. (dbgen computes
// (orders / 10000) x 10 in integers: the same from SF 1 on and at the
// multiples of 0.02 below, 10 instead of 15 at SF 0.01; the
// specification's count is taken.)
func (z sizes) refreshSize() int64 { return max(1, z.orders/1000) }

// refreshKey is the order key of index i of the refresh sets: dbgen's
// mk_sparse(i, seq) with SPARSE_BITS 2, SPARSE_KEEP 3.
func refreshKey(i, seq int64) int64 { return (i>>3)<<5 | seq<<3 | i&7 }

// refreshSetOf is the refresh set of stream n: n + 1, so that stream 0,
// the power test's, has set 1, as its update pair 1 in clause 5.3.
// Streams of one tenant differ in their sets; a stream's RF2 deletes what
// its RF1 inserted, so its next sequence (or the next repetition of the
// run on the same data) can use the same set again.
func refreshSetOf(n int) int64 { return int64(n) + 1 }

// refreshRow is the order (with its lines) of refresh set k's j-th
// order (0-based), from generator g.
func (w *Workload) refreshRow(g *orderGen, k, j int64) *orderRow {
	size := w.z.refreshSize()
	idx := (k-1)*size + j + 1
	return g.genAt(w.z.orders+idx, refreshKey(idx, 1+k/1000))
}

// RefreshKeys are the order keys refresh set k inserts and deletes.
func (w *Workload) RefreshKeys(k int64) []int64 {
	size := w.z.refreshSize()
	keys := make([]int64, size)
	for j := range size {
		idx := (k-1)*size + j + 1
		keys[j] = refreshKey(idx, 1+k/1000)
	}
	return keys
}

// RefreshLines is how many LINEITEM rows refresh set k inserts.
func (w *Workload) RefreshLines(k int64) int64 {
	g := newOrderGen(w.z)
	n := int64(0)
	for j := range w.z.refreshSize() {
		n += int64(len(w.refreshRow(g, k, j).lines))
	}
	return n
}

// rf1 inserts refresh set k's orders and lines in one transaction (clause
// 2.5.2), with COPY (binary) of ORDERS, then LINEITEM (its foreign key).
func (w *Workload) rf1(ctx context.Context, pg *pgconn.PgConn, k int64) error {
	size, big := w.z.refreshSize(), w.z.orderKeyIsBig()
	og, lg := newOrderGen(w.z), newOrderGen(w.z)
	tables := []workload.CopyTable{
		{Name: "orders", First: 0, Last: size - 1, MaxRow: maxSmallRow,
			Encode: func(buf []byte, j int64) []byte { return encodeOrder(buf, w.refreshRow(og, k, j), big) }},
		{Name: "lineitem", First: 0, Last: size - 1, MaxRow: maxLinesRow,
			Encode: func(buf []byte, j int64) []byte { return encodeLines(buf, w.refreshRow(lg, k, j), big) }},
	}
	return inTransaction(ctx, pg, func() error {
		for _, t := range tables {
			sql := "copy " + t.Name + " from stdin with (format binary)"
			if _, err := pg.CopyFrom(ctx, t.Reader(nil), sql); err != nil {
				return fmt.Errorf("tpch: rf1: copy %s: %w", t.Name, err)
			}
		}
		return nil
	})
}

// rf2 deletes refresh set k's orders and their lines in one transaction
// (clause 2.5.3), LINEITEM first (its foreign key to ORDERS).
func (w *Workload) rf2(ctx context.Context, pg *pgconn.PgConn, k int64) error {
	var b strings.Builder
	b.WriteByte('{')
	for i, key := range w.RefreshKeys(k) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(key, 10))
	}
	b.WriteByte('}')
	keys := [][]byte{[]byte(b.String())}
	return inTransaction(ctx, pg, func() error {
		for _, sql := range []string{
			"delete from lineitem where l_orderkey = any($1::bigint[])",
			"delete from orders where o_orderkey = any($1::bigint[])",
		} {
			if _, err := pg.ExecParams(ctx, sql, keys, nil, nil, nil).Close(); err != nil {
				return fmt.Errorf("tpch: rf2: %w", err)
			}
		}
		return nil
	})
}

// inTransaction runs f between begin and commit, rolling back when f
// fails.
func inTransaction(ctx context.Context, pg *pgconn.PgConn, f func() error) error {
	if err := pg.Exec(ctx, "begin").Close(); err != nil {
		return err
	}
	if err := f(); err != nil {
		if !pg.IsClosed() {
			_ = pg.Exec(context.WithoutCancel(ctx), "rollback").Close()
		}
		return err
	}
	return pg.Exec(ctx, "commit").Close()
}
