package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Order-Status, Delivery and Stock-Level with interaction statements: one
// statement per round trip, in the order of clauses 2.6.2.2, 2.7.4.2 and
// 2.8.2.2.
const (
	// Order-Status: BEGIN; by last name, the customers of that name
	// (sqlEachCustomersByName); the customer; their last order; its lines;
	// COMMIT.
	sqlEachStatusCustomer = `SELECT c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	sqlEachStatusOrder = `SELECT o_id, o_carrier_id, o_entry_d FROM orders
WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	sqlEachStatusLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`

	// Delivery: BEGIN; per district, its oldest new order, locked (one
	// another Delivery holds is passed over, as in the batched form); that
	// NEW-ORDER row deleted; the order's carrier set and its customer read;
	// its lines' delivery date set; their amounts summed; the customer's
	// balance and delivery count updated; COMMIT. Up to 62 round trips.
	sqlEachDeliveryOldest = `SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2
ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED`
	sqlEachDeliveryDelete = `DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3`
	sqlEachDeliveryOrder  = `UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3
RETURNING o_c_id`
	sqlEachDeliveryLines = `UPDATE order_line SET ol_delivery_d = localtimestamp
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
	sqlEachDeliveryAmount = `SELECT (sum(ol_amount) * 100)::int8 FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
	sqlEachDeliveryCustomer = `UPDATE customer SET c_balance = c_balance + $4::int8 / 100.0, c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`

	// Stock-Level: BEGIN; the district's next order number; the count of
	// low stock among the items of its last 20 orders; COMMIT.
	sqlEachStockNextID = `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`
	sqlEachStockCount  = `SELECT count(DISTINCT s_i_id) FROM order_line, stock
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $3 - 20
	AND s_w_id = $1 AND s_i_id = ol_i_id AND s_quantity < $4`
)

type orderStatusEach struct{ byName, customer, order, lines stmt }

func (t *orderStatusTxn) prepareEach(ctx context.Context, conn *pgx.Conn) error {
	e := &t.each
	return prepareAll(ctx, conn, []stmtSQL{
		{&e.byName, "ose_customers_by_name", sqlEachCustomersByName},
		{&e.customer, "ose_customer", sqlEachStatusCustomer},
		{&e.order, "ose_order", sqlEachStatusOrder},
		{&e.lines, "ose_lines", sqlEachStatusLines},
	})
}

// runEach executes the profile of clause 2.6.2.2 one statement at a time.
func (t *orderStatusTxn) runEach(c *Client) error {
	p, e := &c.p, &t.each
	if err := p.alone(&c.begin); err != nil {
		return err
	}
	t.cid, t.oid, t.lines = t.c, 0, 0
	if t.byLast {
		id, err := c.customerByName(&e.byName, t.w, t.d, t.last)
		if err != nil {
			return err
		}
		t.cid = id
	}
	found := false
	if t.cid != 0 {
		if err := c.rows(&e.customer, &found, t.w, t.d, t.cid); err != nil {
			return err
		}
	}
	if !found {
		if err := p.alone(&c.commit); err != nil {
			return err
		}
		return fmt.Errorf("tpcc: order_status: no customer in district %d of warehouse %d", t.d, t.w)
	}
	e.order.int4(0, t.w)
	e.order.int4(1, t.d)
	e.order.int4(2, t.cid)
	if err := p.one(&e.order); err != nil {
		return err
	}
	for p.next() {
		t.oid = getInt4(p.values[0])
	}
	if err := p.end(); err != nil {
		return err
	}
	if t.oid != 0 {
		e.lines.int4(0, t.w)
		e.lines.int4(1, t.d)
		e.lines.int4(2, t.oid)
		if err := p.one(&e.lines); err != nil {
			return err
		}
		for p.next() {
			t.lines++
		}
		if err := p.end(); err != nil {
			return err
		}
	}
	return p.alone(&c.commit)
}

// rows runs s with the int4 parameters args as a round trip of its own
// and reads its rows; found says whether there was one.
func (c *Client) rows(s *stmt, found *bool, args ...int) error {
	for i, a := range args {
		s.int4(i, a)
	}
	p := &c.p
	if err := p.one(s); err != nil {
		return err
	}
	*found = false
	for p.next() {
		*found = true
	}
	return p.end()
}

type deliveryEach struct{ oldest, delete, order, lines, amount, customer stmt }

func (t *deliveryTxn) prepareEach(ctx context.Context, conn *pgx.Conn) error {
	e := &t.each
	return prepareAll(ctx, conn, []stmtSQL{
		{&e.oldest, "dle_oldest", sqlEachDeliveryOldest},
		{&e.delete, "dle_delete", sqlEachDeliveryDelete},
		{&e.order, "dle_order", sqlEachDeliveryOrder},
		{&e.lines, "dle_lines", sqlEachDeliveryLines},
		{&e.amount, "dle_amount", sqlEachDeliveryAmount},
		{&e.customer, "dle_customer", sqlEachDeliveryCustomer},
	})
}

// runEach executes the profile of clause 2.7.4.2 one statement at a time,
// the districts in order.
func (t *deliveryTxn) runEach(c *Client) error {
	p, e := &c.p, &t.each
	if err := p.alone(&c.begin); err != nil {
		return err
	}
	t.delivered = 0
	for d := 1; d <= districtsPerW; d++ {
		e.oldest.int4(0, t.w)
		e.oldest.int4(1, d)
		if err := p.one(&e.oldest); err != nil {
			return err
		}
		oid := 0
		for p.next() {
			oid = getInt4(p.values[0])
		}
		if err := p.end(); err != nil {
			return err
		}
		if oid == 0 {
			continue // no new order in the district: skipped
		}
		for _, s := range []*stmt{&e.delete, &e.order, &e.lines, &e.amount, &e.customer} {
			s.int4(0, t.w)
			s.int4(1, d)
		}
		e.delete.int4(2, oid)
		if err := p.alone(&e.delete); err != nil {
			return err
		}
		e.order.int4(2, oid)
		e.order.int4(3, t.carrier)
		if err := p.one(&e.order); err != nil {
			return err
		}
		cid := 0
		for p.next() {
			cid = getInt4(p.values[0])
		}
		if err := p.end(); err != nil {
			return err
		}
		e.lines.int4(2, oid)
		if err := p.alone(&e.lines); err != nil {
			return err
		}
		e.amount.int4(2, oid)
		if err := p.one(&e.amount); err != nil {
			return err
		}
		var cents int64
		for p.next() {
			cents = getInt8(p.values[0])
		}
		if err := p.end(); err != nil {
			return err
		}
		e.customer.int4(2, cid)
		e.customer.int8(3, cents)
		if err := p.alone(&e.customer); err != nil {
			return err
		}
		t.delivered++
	}
	if err := p.alone(&c.commit); err != nil {
		return err
	}
	t.skipped = districtsPerW - t.delivered
	return nil
}

type stockLevelEach struct{ nextID, count stmt }

func (t *stockLevelTxn) prepareEach(ctx context.Context, conn *pgx.Conn) error {
	e := &t.each
	return prepareAll(ctx, conn, []stmtSQL{
		{&e.nextID, "sle_next_id", sqlEachStockNextID},
		{&e.count, "sle_count", sqlEachStockCount},
	})
}

// runEach executes the profile of clause 2.8.2.2 one statement at a time.
func (t *stockLevelTxn) runEach(c *Client) error {
	p, e := &c.p, &t.each
	if err := p.alone(&c.begin); err != nil {
		return err
	}
	e.nextID.int4(0, t.w)
	e.nextID.int4(1, t.d)
	if err := p.one(&e.nextID); err != nil {
		return err
	}
	next := 0
	for p.next() {
		next = getInt4(p.values[0])
	}
	if err := p.end(); err != nil {
		return err
	}
	if next == 0 {
		return fmt.Errorf("tpcc: stock_level: district %d of warehouse %d not found", t.d, t.w)
	}
	e.count.int4(0, t.w)
	e.count.int4(1, t.d)
	e.count.int4(2, next)
	e.count.int4(3, t.threshold)
	if err := p.one(&e.count); err != nil {
		return err
	}
	rows := 0
	for p.next() {
		t.low = getInt8(p.values[0])
		rows++
	}
	if err := p.end(); err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: stock_level: %d result rows", rows)
	}
	return p.alone(&c.commit)
}
