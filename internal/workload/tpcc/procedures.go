package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Interaction procedures: each transaction is one call of its function
// (procedures_sql.go), in one round trip, in the implicit transaction of
// the call: no BEGIN, no COMMIT.

func (c *Client) prepareCalls(ctx context.Context, conn *pgx.Conn) error {
	return prepareAll(ctx, conn, []stmtSQL{
		{&c.newOrder.call, "call_new_order", sqlCallNewOrder},
		{&c.payment.call, "call_payment", sqlCallPayment},
		{&c.orderStatus.call, "call_order_status", sqlCallOrderStatus},
		{&c.delivery.call, "call_delivery", sqlCallDelivery},
		{&c.stockLevel.call, "call_stock_level", sqlCallStockLevel},
	})
}

// callOne sends s alone and reads its one row's first values into dst.
func (c *Client) callOne(s *stmt, dst func(v [][]byte)) (rows int, err error) {
	p := &c.p
	if err := p.one(s); err != nil {
		return 0, err
	}
	for p.next() {
		dst(p.values)
		rows++
	}
	return rows, p.end()
}

// callLines fills the arrays of the lines of a call (nums, ids, supplies,
// qtys) in the order the procedures take them: sorted by (supply, item),
// the unused item last.
func (t *newOrderTxn) callLines() {
	for i := range t.n {
		t.line[i].found = t.line[i].item != unusedItem
	}
	t.sortValid()
	k := t.valid
	for i := range t.n {
		if !t.line[i].found {
			t.sorted[k] = i
			k++
		}
	}
	for k, i := range t.sorted[:t.n] {
		l := &t.line[i]
		t.nums[k], t.ids[k], t.supplies[k], t.qtys[k] = int32(i+1), int32(l.item), int32(l.supply), int32(l.quantity)
	}
}

func (t *newOrderTxn) callRun(c *Client) error {
	t.callLines()
	allLocal := 0
	if t.allLocal {
		allLocal = 1
	}
	s := &t.call
	s.int4(0, t.w)
	s.int4(1, t.d)
	s.int4(2, t.c)
	s.int4s(3, t.nums[:t.n])
	s.int4s(4, t.ids[:t.n])
	s.int4s(5, t.supplies[:t.n])
	s.int4s(6, t.qtys[:t.n])
	s.int4(7, allLocal)
	_, err := c.callOne(s, func(v [][]byte) { t.oid = getInt4(v[0]) })
	if err == nil {
		return nil
	}
	// Only on an error: the target of errors.As escapes, an allocation.
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == sqlstateRollback {
		if !t.rollback {
			return fmt.Errorf("tpcc: new_order: %s", pe.Message)
		}
		return workload.ErrRollback
	}
	return err
}

// callCustomer is how a procedure takes the customer of Payment and
// Order-Status (clauses 2.5.1.2, 2.6.1.2): by number, with no last name,
// or by last name, with number 0.
func callCustomer(byLast bool, id, lastName int) (int, string) {
	if byLast {
		return 0, lastNames[lastName]
	}
	return id, ""
}

func (t *paymentTxn) callRun(c *Client) error {
	s := &t.call
	s.int4(0, t.w)
	s.int4(1, t.d)
	s.int4(2, t.cw)
	s.int4(3, t.cd)
	id, last := callCustomer(t.byLast, t.c, t.last)
	s.int4(4, id)
	s.text(5, last)
	s.int4(6, t.amount)
	t.cid = 0
	if _, err := c.callOne(s, func(v [][]byte) { t.cid = getInt4(v[0]) }); err != nil {
		return err
	}
	if t.cid == 0 {
		return fmt.Errorf("tpcc: payment: no customer %s in district %d of warehouse %d", t.who(), t.cd, t.cw)
	}
	return nil
}

func (t *orderStatusTxn) callRun(c *Client) error {
	s := &t.call
	s.int4(0, t.w)
	s.int4(1, t.d)
	id, last := callCustomer(t.byLast, t.c, t.last)
	s.int4(2, id)
	s.text(3, last)
	t.cid, t.oid, t.lines = 0, 0, 0
	_, err := c.callOne(s, func(v [][]byte) { t.cid, t.oid, t.lines = getInt4(v[0]), getInt4(v[1]), getInt4(v[2]) })
	if err != nil {
		return err
	}
	if t.cid == 0 {
		return fmt.Errorf("tpcc: order_status: no customer in district %d of warehouse %d", t.d, t.w)
	}
	return nil
}

func (t *deliveryTxn) callRun(c *Client) error {
	s := &t.call
	s.int4(0, t.w)
	s.int4(1, t.carrier)
	t.delivered = 0
	if _, err := c.callOne(s, func(v [][]byte) { t.delivered = getInt4(v[0]) }); err != nil {
		return err
	}
	t.skipped = districtsPerW - t.delivered
	return nil
}

func (t *stockLevelTxn) callRun(c *Client) error {
	s := &t.call
	s.int4(0, t.w)
	s.int4(1, t.d)
	s.int4(2, t.threshold)
	rows, err := c.callOne(s, func(v [][]byte) { t.low = getInt8(v[0]) })
	if err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: stock_level: %d result rows", rows)
	}
	return nil
}
