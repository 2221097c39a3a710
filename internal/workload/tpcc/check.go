package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"

	"github.com/tenantbench/tenantbench/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// condition is one consistency condition of clause 3.3.2: a query counting
// the rows (warehouses, districts, orders...) that violate it.
type condition struct {
	clause, rule, unit string
	sql                string
}

// deliveredLines sums, per customer, the amounts of their delivered order
// lines (conditions 10 and 12).
const deliveredLines = `(SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) AS s
	FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id)`

// conditions are the twelve conditions; Check runs the first four, or all
// with the option check: full.
var conditions = []condition{
	{"3.3.2.1", "W_YTD = sum(D_YTD)", "warehouses", `SELECT count(*) FROM warehouse
	LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w_id
	WHERE w_ytd <> coalesce(d.s, 0)`},
	{"3.3.2.2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", "districts", `SELECT count(*) FROM district
	LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
		ON o.o_w_id = d_w_id AND o.o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
		ON n.no_w_id = d_w_id AND n.no_d_id = d_id
	WHERE d_next_o_id - 1 IS DISTINCT FROM o.m OR n.m <> d_next_o_id - 1`},
	{"3.3.2.3", "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER", "districts", `SELECT count(*) FROM (
	SELECT max(no_o_id) - min(no_o_id) + 1 <> count(*) AS bad FROM new_order GROUP BY no_w_id, no_d_id) x
	WHERE bad`},
	{"3.3.2.4", "sum(O_OL_CNT) = rows in ORDER-LINE", "districts", `SELECT count(*) FROM
	(SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
	FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l
		ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
	WHERE o.s IS DISTINCT FROM l.n`},
	{"3.3.2.5", "O_CARRIER_ID is null if and only if the order is in NEW-ORDER", "orders", `SELECT
	(SELECT count(*) FROM orders
		LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
		WHERE (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL))
	+ (SELECT count(*) FROM new_order WHERE NOT EXISTS (
		SELECT 1 FROM orders WHERE o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id))`},
	{"3.3.2.6", "O_OL_CNT = the order's rows in ORDER-LINE", "orders", `SELECT count(*) FROM orders
	LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
		ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id
	WHERE o_ol_cnt IS DISTINCT FROM l.n`},
	{"3.3.2.7", "OL_DELIVERY_D is null if and only if the order's O_CARRIER_ID is", "order lines", `SELECT count(*)
	FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
	WHERE (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)`},
	{"3.3.2.8", "W_YTD = sum(H_AMOUNT)", "warehouses", `SELECT count(*) FROM warehouse
	LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w_id
	WHERE w_ytd <> coalesce(h.s, 0)`},
	{"3.3.2.9", "D_YTD = sum(H_AMOUNT)", "districts", `SELECT count(*) FROM district
	LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
		ON h.h_w_id = d_w_id AND h.h_d_id = d_id
	WHERE d_ytd <> coalesce(h.s, 0)`},
	{"3.3.2.10", "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", "customers", `SELECT count(*) FROM customer
	LEFT JOIN ` + deliveredLines + ` ol ON ol.o_w_id = c_w_id AND ol.o_d_id = c_d_id AND ol.o_c_id = c_id
	LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) AS s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
		ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id
	WHERE c_balance <> coalesce(ol.s, 0) - coalesce(h.s, 0)`},
	// Condition 11 holds for the initial population only: every Delivery
	// removes a NEW-ORDER row and keeps its ORDER row. It is checked in
	// the districts no Delivery has visited (none of the orders 2,101 and
	// above has a carrier).
	{"3.3.2.11", "rows in ORDER - rows in NEW-ORDER = 2100 (districts without deliveries)", "districts", `SELECT count(*) FROM district
	LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS n, count(*) FILTER (WHERE o_id >= 2101 AND o_carrier_id IS NOT NULL) AS delivered
		FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d_w_id AND o.o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) n
		ON n.no_w_id = d_w_id AND n.no_d_id = d_id
	WHERE coalesce(o.delivered, 0) = 0 AND coalesce(o.n, 0) - coalesce(n.n, 0) <> 2100`},
	{"3.3.2.12", "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", "customers", `SELECT count(*) FROM customer
	LEFT JOIN ` + deliveredLines + ` ol ON ol.o_w_id = c_w_id AND ol.o_d_id = c_d_id AND ol.o_c_id = c_id
	WHERE c_balance + c_ytd_payment <> coalesce(ol.s, 0)`},
}

// basicConditions is how many of conditions the basic check runs.
const basicConditions = 4

// Check verifies the consistency conditions of clause 3.3.2 on the
// tenant's tables, all in one snapshot: 3.3.2.1 to 3.3.2.4, or 3.3.2.1 to
// 3.3.2.12 with the option check: full. It returns one line per violated
// condition with the number of rows that violate it.
func (w *Workload) Check(ctx context.Context, wc workload.Conn) ([]string, error) {
	conds := conditions[:basicConditions]
	if w.opts.Check == CheckFull {
		conds = conditions
	}
	if mc, ok := mariadb.Of(wc); ok {
		return mariaCheck(ctx, mc, conds)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return nil, workload.NoForm(Name, wc)
	}
	return checkConditions(ctx, conn, conds)
}

func checkConditions(ctx context.Context, conn *pgx.Conn, conds []condition) ([]string, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("tpcc: check: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var violations []string
	for _, c := range conds {
		var n int64
		if err := tx.QueryRow(ctx, c.sql).Scan(&n); err != nil {
			return nil, fmt.Errorf("tpcc: check %s: %w", c.clause, err)
		}
		if n > 0 {
			violations = append(violations, fmt.Sprintf("%s %s: violated by %d %s", c.clause, c.rule, n, c.unit))
		}
	}
	return violations, nil
}
