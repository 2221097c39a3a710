package tpcc

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// New-Order with interaction statements: one statement per round trip, in
// the order of clause 2.4.2.2, with the statement shapes of go-tpc (the
// items, their stock and the order lines of an order are one statement
// each; each stock row is updated on its own):
//
//	BEGIN; the customer with the warehouse's tax; the district, locked;
//	its next order number incremented; the ORDER and NEW-ORDER rows; the
//	items (ROLLBACK here when one is unused, clause 2.4.2.3); the stock
//	rows, locked in (warehouse, item) order so that New-Orders never
//	deadlock; one UPDATE per stock row; the ORDER-LINE rows; COMMIT.
//
// About 10 + n round trips for n lines, where batched takes two.
const (
	sqlEachNewOrderDistrict = `SELECT d_next_o_id, (d_tax * 10000)::int4 FROM district
WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE`

	sqlEachNewOrderNextID = `UPDATE district SET d_next_o_id = $3::int4 + 1 WHERE d_w_id = $1 AND d_id = $2`

	sqlEachNewOrderStock = `SELECT s_w_id, s_i_id, s_quantity, s_data,
	CASE $3::int4 WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
		WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
		WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
FROM stock
WHERE (s_w_id, s_i_id) IN (SELECT * FROM unnest($1::int4[], $2::int4[]))
ORDER BY s_w_id, s_i_id FOR UPDATE`

	// S_QUANTITY is computed by the terminal from the locked row (clause
	// 2.4.2.2), as go-tpc and BenchBase do.
	sqlEachNewOrderStockUpdate = `UPDATE stock SET s_quantity = $3, s_ytd = s_ytd + $4,
	s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $5
WHERE s_w_id = $1 AND s_i_id = $2`

	sqlEachNewOrderLines = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT $1::int4, $2::int4, $3::int4, n, i, sw, NULL, q, amount / 100.0, dist
FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4[], $9::text[]) AS l (n, i, sw, q, amount, dist)`
)

type newOrderEach struct {
	district, nextID, stock, stockUpdate, lines stmt
	dist                                        [maxOrderLines][distLen]byte
}

func (t *newOrderTxn) prepareEach(ctx context.Context, conn *pgx.Conn) error {
	e := &t.each
	return prepareAll(ctx, conn, []stmtSQL{
		{&t.customer, "no_customer", sqlNewOrderCustomer},
		{&e.district, "noe_district", sqlEachNewOrderDistrict},
		{&e.nextID, "noe_next_id", sqlEachNewOrderNextID},
		{&t.orders, "no_order", sqlNewOrderOrder},
		{&t.newOrder, "no_new_order", sqlNewOrderNewOrder},
		{&t.items, "no_items", sqlNewOrderItems},
		{&e.stock, "noe_stock", sqlEachNewOrderStock},
		{&e.stockUpdate, "noe_stock_update", sqlEachNewOrderStockUpdate},
		{&e.lines, "noe_lines", sqlEachNewOrderLines},
	})
}

// runEach executes the profile of clause 2.4.2.2 one statement at a time.
func (t *newOrderTxn) runEach(c *Client) error {
	p, e := &c.p, &t.each
	if err := p.alone(&c.begin); err != nil {
		return err
	}
	t.customer.int4(0, t.w)
	t.customer.int4(1, t.d)
	t.customer.int4(2, t.c)
	if err := p.one(&t.customer); err != nil {
		return err
	}
	found := false
	for p.next() {
		v := p.values
		t.discount, t.wTax, found = getInt4(v[0]), getInt4(v[3]), true
		copy(t.credit[:], v[2])
	}
	if err := p.end(); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("tpcc: new_order: customer %d of district %d, warehouse %d, not found", t.c, t.d, t.w)
	}
	e.district.int4(0, t.w)
	e.district.int4(1, t.d)
	if err := p.one(&e.district); err != nil {
		return err
	}
	found = false
	for p.next() {
		t.oid, t.dTax, found = getInt4(p.values[0]), getInt4(p.values[1]), true
	}
	if err := p.end(); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("tpcc: new_order: district %d of warehouse %d not found", t.d, t.w)
	}
	e.nextID.int4(0, t.w)
	e.nextID.int4(1, t.d)
	e.nextID.int4(2, t.oid)
	if err := p.alone(&e.nextID); err != nil {
		return err
	}
	allLocal := 0
	if t.allLocal {
		allLocal = 1
	}
	t.setOrder(allLocal)
	if err := p.alone(&t.orders); err != nil {
		return err
	}
	t.newOrder.int4(0, t.oid)
	t.newOrder.int4(1, t.d)
	t.newOrder.int4(2, t.w)
	if err := p.alone(&t.newOrder); err != nil {
		return err
	}

	for i := range t.n {
		t.ids[i] = int32(t.line[i].item)
		t.line[i].found = false
	}
	t.items.int4s(0, t.ids[:t.n])
	if err := p.one(&t.items); err != nil {
		return err
	}
	for p.next() {
		id := getInt4(p.values[0])
		for i := range t.n {
			if l := &t.line[i]; l.item == id {
				l.found, l.price = true, getInt4(p.values[1])
				l.original = bytes.Contains(p.values[3], []byte(original))
			}
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	t.sortValid()
	if t.valid != t.n {
		// Clause 2.4.2.3: an unused item rolls the whole order back.
		if err := p.alone(&c.rollback); err != nil {
			return err
		}
		if !t.rollback {
			return fmt.Errorf("tpcc: new_order: an item of order %d of district %d, warehouse %d, not found", t.oid, t.d, t.w)
		}
		return workload.ErrRollback
	}

	for k, i := range t.sorted[:t.valid] {
		t.supplies[k], t.ids[k] = int32(t.line[i].supply), int32(t.line[i].item)
	}
	e.stock.int4s(0, t.supplies[:t.valid])
	e.stock.int4s(1, t.ids[:t.valid])
	e.stock.int4(2, t.d)
	if err := p.one(&e.stock); err != nil {
		return err
	}
	stocked := 0
	for p.next() {
		sw, id := getInt4(p.values[0]), getInt4(p.values[1])
		for k, i := range t.sorted[:t.valid] {
			l := &t.line[i]
			if l.supply != sw || l.item != id {
				continue
			}
			// S_QUANTITY less the quantity if 10 or more remain, else
			// less the quantity plus 91 (clause 2.4.2.2).
			l.stock = newStock(getInt4(p.values[2]), l.quantity)
			l.brand = 'G'
			if l.original && bytes.Contains(p.values[3], []byte(original)) {
				l.brand = 'B'
			}
			copy(e.dist[k][:], p.values[4])
			stocked++
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	if stocked != t.valid {
		return fmt.Errorf("tpcc: new_order: %d of %d stock rows found at warehouse %d", stocked, t.valid, t.w)
	}
	sum := 0
	for k, i := range t.sorted[:t.valid] {
		l := &t.line[i]
		remote := 0
		if l.supply != t.w {
			remote = 1
		}
		e.stockUpdate.int4(0, l.supply)
		e.stockUpdate.int4(1, l.item)
		e.stockUpdate.int4(2, l.stock)
		e.stockUpdate.int4(3, l.quantity)
		e.stockUpdate.int4(4, remote)
		if err := p.alone(&e.stockUpdate); err != nil {
			return err
		}
		amount := l.quantity * l.price // OL_AMOUNT = OL_QUANTITY * I_PRICE
		sum += amount
		t.nums[k], t.qtys[k], t.amounts[k] = int32(i+1), int32(l.quantity), int32(amount)
	}
	e.lines.int4(0, t.oid)
	e.lines.int4(1, t.d)
	e.lines.int4(2, t.w)
	e.lines.int4s(3, t.nums[:t.valid])
	e.lines.int4s(4, t.ids[:t.valid])
	e.lines.int4s(5, t.supplies[:t.valid])
	e.lines.int4s(6, t.qtys[:t.valid])
	e.lines.int4s(7, t.amounts[:t.valid])
	e.lines.dists(8, &e.dist, t.valid)
	if err := p.alone(&e.lines); err != nil {
		return err
	}
	if err := p.alone(&c.commit); err != nil {
		return err
	}
	t.total = float64(sum) / 100 * (1 - float64(t.discount)/10000) * (1 + float64(t.wTax+t.dTax)/10000)
	return nil
}
