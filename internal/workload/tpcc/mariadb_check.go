package tpcc

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
)

// mariaConditionSQL are the conditions whose SQL MariaDB does not take as
// written for PostgreSQL, by clause: MariaDB has no IS DISTINCT FROM (its
// null-safe equality is <=>), no FULL JOIN and no aggregate FILTER. The
// others run as they are.
var mariaConditionSQL = map[string]string{
	"3.3.2.2": `SELECT count(*) FROM district
	LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
		ON o.o_w_id = d_w_id AND o.o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
		ON n.no_w_id = d_w_id AND n.no_d_id = d_id
	WHERE NOT (d_next_o_id - 1 <=> o.m) OR n.m <> d_next_o_id - 1`,
	// The FULL JOIN as the districts of ORDER with their lines, plus the
	// districts with lines but no order.
	"3.3.2.4": `SELECT
	(SELECT count(*) FROM
		(SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
		LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l
			ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
		WHERE NOT (o.s <=> l.n))
	+ (SELECT count(*) FROM (SELECT DISTINCT ol_w_id, ol_d_id FROM order_line) l
		WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_w_id = l.ol_w_id AND o_d_id = l.ol_d_id))`,
	"3.3.2.6": `SELECT count(*) FROM orders
	LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
		ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id
	WHERE NOT (o_ol_cnt <=> l.n)`,
	"3.3.2.11": `SELECT count(*) FROM district
	LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS n, sum(o_id >= 2101 AND o_carrier_id IS NOT NULL) AS delivered
		FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d_w_id AND o.o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) n
		ON n.no_w_id = d_w_id AND n.no_d_id = d_id
	WHERE coalesce(o.delivered, 0) = 0 AND coalesce(o.n, 0) - coalesce(n.n, 0) <> 2100`,
}

// mariaCheck runs conds on MariaDB in one consistent snapshot (a
// repeatable-read, read-only transaction), as checkConditions does on
// PostgreSQL.
func mariaCheck(ctx context.Context, mc *mariadb.Conn, conds []condition) ([]string, error) {
	c := mc.SQL()
	if err := mariaExec(ctx, mc,
		"set transaction isolation level repeatable read",
		"start transaction read only, with consistent snapshot",
	); err != nil {
		return nil, fmt.Errorf("tpcc: check: %w", err)
	}
	defer c.ExecContext(context.WithoutCancel(ctx), "rollback")
	var violations []string
	for _, cond := range conds {
		q := cond.sql
		if m, ok := mariaConditionSQL[cond.clause]; ok {
			q = m
		}
		var n int64
		if err := c.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return nil, fmt.Errorf("tpcc: check %s: %w", cond.clause, err)
		}
		if n > 0 {
			violations = append(violations, fmt.Sprintf("%s %s: violated by %d %s", cond.clause, cond.rule, n, cond.unit))
		}
	}
	return violations, nil
}
