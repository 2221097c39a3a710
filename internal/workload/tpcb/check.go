package tpcb

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// checkQuery reads Check's figures, in SQL both engines read alike.
const checkQuery = `select
		(select count(*) from pgbench_branches),
		(select count(*) from pgbench_tellers),
		(select count(*) from pgbench_accounts),
		(select coalesce(sum(abalance), 0) from pgbench_accounts),
		(select coalesce(sum(tbalance), 0) from pgbench_tellers),
		(select coalesce(sum(bbalance), 0) from pgbench_branches),
		(select coalesce(sum(delta), 0) from pgbench_history)`

// Check verifies the tables after a run. The row counts are pgbench's scale
// rules. Every committed tpcb-like or simple-update transaction adds its
// delta to one account and one history row, and every tpcb-like one also to
// one teller and one branch, so TPC-B's consistency conditions hold, as far
// as pgbench's schema keeps what they need:
//
//	sum(abalance) = sum(history.delta)
//	sum(tbalance) = sum(bbalance)
//	sum(tbalance) = sum(history.delta)   when simple-update has weight 0
func (w *Workload) Check(ctx context.Context, wc workload.Conn) ([]string, error) {
	var branches, tellers, accounts, abalance, tbalance, bbalance, delta int64
	dest := []any{&branches, &tellers, &accounts, &abalance, &tbalance, &bbalance, &delta}
	var err error
	if mc, ok := mariadb.Of(wc); ok {
		err = mariaCheck(ctx, mc, dest...)
	} else if conn, ok := workload.PG(wc); ok {
		err = conn.QueryRow(ctx, checkQuery).Scan(dest...)
	} else {
		return nil, workload.NoForm(Name, wc)
	}
	if err != nil {
		return nil, fmt.Errorf("tpcb: check: %w", err)
	}
	var violations []string
	for _, c := range []struct {
		table     string
		got, want int64
	}{
		{"pgbench_branches", branches, w.scale * branchesPerScale},
		{"pgbench_tellers", tellers, w.scale * tellersPerScale},
		{"pgbench_accounts", accounts, w.scale * accountsPerScale},
	} {
		if c.got != c.want {
			violations = append(violations, fmt.Sprintf("%s has %d rows, want %d at scale %d", c.table, c.got, c.want, w.scale))
		}
	}
	if abalance != delta {
		violations = append(violations, fmt.Sprintf("sum(abalance) %d differs from sum(pgbench_history.delta) %d", abalance, delta))
	}
	if tbalance != bbalance {
		violations = append(violations, fmt.Sprintf("sum(tbalance) %d differs from sum(bbalance) %d", tbalance, bbalance))
	}
	if w.opts.Scripts[SimpleUpdate] == 0 && tbalance != delta {
		violations = append(violations, fmt.Sprintf("sum(tbalance) %d differs from sum(pgbench_history.delta) %d", tbalance, delta))
	}
	return violations, nil
}
