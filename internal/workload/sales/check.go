package sales

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// checkQuery is Check's query for n customers and orders, in SQL that
// PostgreSQL and MariaDB read alike (a count of CASE where PostgreSQL
// alone has an aggregate's FILTER). It reads customer and orders once
// each for the counts, then orders against customer for orphans.
func checkQuery(n int64) string {
	return fmt.Sprintf(`with
		c as (select count(*) as n,
			count(case when c_id not between 1 and %[1]d then 1 end) as bad_id,
			count(case when c_credit < 0 then 1 end) as neg_credit
			from customer),
		o as (select count(*) as n,
			count(case when o_id not between 1 and %[1]d then 1 end) as bad_id,
			count(case when o_status not in ('UNPAID', 'PAID') then 1 end) as bad_status
			from orders)
		select c.n, o.n, c.bad_id, o.bad_id, o.bad_status, c.neg_credit,
			(select count(*) from orders o where not exists (select 1 from customer c where c.c_id = o.o_c_id))
		from c, o`, n)
}

// Check verifies the tables after a run. No transaction adds or removes a
// customer or an order, so both tables keep SF x 300,000 rows with ids 1..N
// (latest-k relies on o_id N-k+1..N being the newest orders); T2 only
// writes PAID and only adds an order's total, never negative, to a credit;
// every order's customer exists. Each of customer and orders is read once,
// orderline not at all: T1 and T4 change its rows, T1 only into existing
// orders, and scanning the largest table (3 million rows at SF 1) would
// make the check phase longer than a short run.
func (w *Workload) Check(ctx context.Context, wc workload.Conn) ([]string, error) {
	var customers, orders, badCustomerIDs, badOrderIDs, badStatus, negCredit, orphanOrders int64
	dest := []any{&customers, &orders, &badCustomerIDs, &badOrderIDs, &badStatus, &negCredit, &orphanOrders}
	var err error
	if conn, ok := workload.PG(wc); ok {
		err = conn.QueryRow(ctx, checkQuery(w.orders)).Scan(dest...)
	} else if mc, ok := mariadb.Of(wc); ok {
		err = mc.SQL().QueryRowContext(ctx, checkQuery(w.orders)).Scan(dest...)
	} else {
		return nil, workload.NoForm(Name, wc)
	}
	if err != nil {
		return nil, fmt.Errorf("sales: check: %w", err)
	}
	var violations []string
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{customers == w.customers, fmt.Sprintf("customer has %d rows, want %d at scale %v", customers, w.customers, w.sf)},
		{orders == w.orders, fmt.Sprintf("orders has %d rows, want %d at scale %v", orders, w.orders, w.sf)},
		{badCustomerIDs == 0, fmt.Sprintf("%d customers have a c_id outside 1..%d", badCustomerIDs, w.customers)},
		{badOrderIDs == 0, fmt.Sprintf("%d orders have an o_id outside 1..%d", badOrderIDs, w.orders)},
		{badStatus == 0, fmt.Sprintf("%d orders have an o_status other than UNPAID and PAID", badStatus)},
		{negCredit == 0, fmt.Sprintf("%d customers have a negative c_credit", negCredit)},
		{orphanOrders == 0, fmt.Sprintf("%d orders have an o_c_id with no customer", orphanOrders)},
	} {
		if !c.ok {
			violations = append(violations, c.what)
		}
	}
	return violations, nil
}
