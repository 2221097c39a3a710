package tpch

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// mariaQuery runs query q's MariaDB text (MariaDBQuery, made once per
// client) and reads its rows to the end; it returns how many.
func (c *Client) mariaQuery(ctx context.Context, q int) (int64, error) {
	rows, err := c.maria.SQL().QueryContext(ctx, c.texts[q])
	if err != nil {
		return 0, err
	}
	n := int64(0)
	for rows.Next() {
		n++
	}
	// An error after the first row (a timeout, a killed query) ends the
	// rows: Err says it, Close would not.
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}

// mariaRF1 inserts refresh set k's orders and lines in one transaction,
// as rf1 does, with a LOAD DATA of ORDERS, then one of LINEITEM: the
// same rows, the foreign keys checked.
func (w *Workload) mariaRF1(ctx context.Context, mc *mariadb.Conn, k int64) error {
	size, big := w.z.refreshSize(), w.z.orderKeyIsBig()
	og, lg := newOrderGen(w.z), newOrderGen(w.z)
	tables := []workload.CopyTable{
		{Name: "orders", First: 0, Last: size - 1, MaxRow: maxSmallRow,
			Encode: func(buf []byte, j int64) []byte { return encodeOrder(buf, w.refreshRow(og, k, j), big) }},
		{Name: "lineitem", First: 0, Last: size - 1, MaxRow: maxLinesRow,
			Encode: func(buf []byte, j int64) []byte { return encodeLines(buf, w.refreshRow(lg, k, j), big) }},
	}
	return mariaInTransaction(ctx, mc, func() error {
		for _, t := range tables {
			err := mc.LoadData(ctx, t.Name, func(out io.Writer) error {
				return workload.WriteLoadText(out, t.Source(), t.MaxRow, mariaKinds[t.Name], nil)
			})
			if err != nil {
				return fmt.Errorf("tpch: rf1: %w", err)
			}
		}
		return nil
	})
}

// mariaRF2 deletes refresh set k's orders and their lines in one
// transaction, as rf2 does, the keys listed in the statements.
func (w *Workload) mariaRF2(ctx context.Context, mc *mariadb.Conn, k int64) error {
	var b strings.Builder
	for i, key := range w.RefreshKeys(k) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(key, 10))
	}
	keys := b.String()
	return mariaInTransaction(ctx, mc, func() error {
		for _, sql := range []string{
			"delete from lineitem where l_orderkey in (" + keys + ")",
			"delete from orders where o_orderkey in (" + keys + ")",
		} {
			if err := mc.Exec(ctx, sql); err != nil {
				return fmt.Errorf("tpch: rf2: %w", err)
			}
		}
		return nil
	})
}

// mariaInTransaction runs f between begin and commit, rolling back when
// f fails.
func mariaInTransaction(ctx context.Context, mc *mariadb.Conn, f func() error) error {
	if err := mc.Exec(ctx, "begin"); err != nil {
		return err
	}
	if err := f(); err != nil {
		if !mc.IsClosed() {
			_ = mc.Exec(context.WithoutCancel(ctx), "rollback")
		}
		return err
	}
	return mc.Exec(ctx, "commit")
}
