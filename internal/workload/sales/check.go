package sales

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/workload"
)

var _ workload.Checker = (*Workload)(nil)

// Check verifies the tables after a run. No transaction adds or removes a
// customer or an order, so both tables keep SF x 300,000 rows with ids 1..N
// (latest-k relies on o_id N-k+1..N being the newest orders); T2 only
// writes PAID and only adds an order's total, never negative, to a credit;
// every order's customer exists. Each of customer and orders is read once,
// orderline not at all: T1 and T4 change its rows, T1 only into existing
// orders, and scanning the largest table (3 million rows at SF 1) would
// make the check phase longer than a short run.
func (w *Workload) Check(ctx context.Context, wc workload.Conn) ([]string, error) {
	conn, ok := workload.PG(wc)
	if !ok {
		return nil, workload.NoForm(Name, wc)
	}
	var customers, orders, badCustomerIDs, badOrderIDs, badStatus, negCredit, orphanOrders int64
	err := conn.QueryRow(ctx, `with
		c as (select count(*) as n,
			count(*) filter (where c_id not between 1 and $1) as bad_id,
			count(*) filter (where c_credit < 0) as neg_credit
			from customer),
		o as (select count(*) as n,
			count(*) filter (where o_id not between 1 and $1) as bad_id,
			count(*) filter (where o_status not in ('UNPAID', 'PAID')) as bad_status
			from orders)
		select c.n, o.n, c.bad_id, o.bad_id, o.bad_status, c.neg_credit,
			(select count(*) from orders o where not exists (select from customer c where c.c_id = o.o_c_id))
		from c, o`, w.orders).
		Scan(&customers, &orders, &badCustomerIDs, &badOrderIDs, &badStatus, &negCredit, &orphanOrders)
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
