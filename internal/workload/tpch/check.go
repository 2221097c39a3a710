package tpch

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// Check verifies that every table still holds the rows of clause 4.2.5
// at the workload's scale (LINEITEM's as generated): the queries only
// read, so a difference means a broken or partial load. One count per
// table.
func (w *Workload) Check(ctx context.Context, wc workload.Conn) ([]string, error) {
	count := func(ctx context.Context, sql string, n *int64) error { return workload.NoForm(Name, wc) }
	if conn, ok := workload.PG(wc); ok {
		count = func(ctx context.Context, sql string, n *int64) error { return conn.QueryRow(ctx, sql).Scan(n) }
	} else if mc, ok := mariadb.Of(wc); ok {
		count = func(ctx context.Context, sql string, n *int64) error {
			return mc.SQL().QueryRowContext(ctx, sql).Scan(n)
		}
	}
	want := w.Counts()
	var violations []string
	for _, name := range tableNames {
		var n int64
		if err := count(ctx, "select count(*) from "+name, &n); err != nil {
			return nil, fmt.Errorf("tpch: check %s: %w", name, err)
		}
		if n != want[name] {
			violations = append(violations, fmt.Sprintf("%s has %d rows, want %d at scale %v", name, n, want[name], w.z.sf))
		}
	}
	return violations, nil
}
