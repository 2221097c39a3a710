package tpcc

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// New-Order (clause 2.4): enter a complete order in one database
// transaction. Two round trips:
//
//  1. BEGIN; the district's next order number, taken and incremented, and
//     its tax; the customer's discount, last name and credit with the
//     warehouse's tax; the items ordered.
//  2. The ORDER and NEW-ORDER rows; for every item found, its stock
//     updated at the supplying warehouse and its ORDER-LINE row (one
//     statement); COMMIT, or ROLLBACK when an item was not found (clause
//     2.4.2.3).
const (
	sqlNewOrderDistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1
WHERE d_w_id = $1 AND d_id = $2
RETURNING d_next_o_id - 1, (d_tax * 10000)::int4`

	sqlNewOrderCustomer = `SELECT (c_discount * 10000)::int4, c_last, c_credit, (w_tax * 10000)::int4
FROM customer, warehouse
WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3`

	sqlNewOrderItems = `SELECT i_id, (i_price * 100)::int4, i_name, i_data
FROM item WHERE i_id = ANY ($1::int4[])`

	sqlNewOrderOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)`

	sqlNewOrderNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`

	// The lines arrive as arrays sorted by (supplying warehouse, item), so
	// the stock rows are locked in one global order (no deadlock between
	// New-Orders). S_QUANTITY follows clause 2.4.2.2: less the quantity
	// if 10 or more remain, else less the quantity plus 91.
	sqlNewOrderLines = `WITH l AS (
	SELECT * FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4[]) AS l (n, i, sw, q, amount)
), s AS (
	UPDATE stock SET
		s_quantity = CASE WHEN s_quantity >= l.q + 10 THEN s_quantity - l.q ELSE s_quantity - l.q + 91 END,
		s_ytd = s_ytd + l.q,
		s_order_cnt = s_order_cnt + 1,
		s_remote_cnt = s_remote_cnt + CASE WHEN l.sw = $3::int4 THEN 0 ELSE 1 END
	FROM l
	WHERE s_w_id = l.sw AND s_i_id = l.i
	RETURNING l.n, l.i, l.sw, l.q, l.amount, s_quantity, s_data,
		CASE $2::int4 WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
			WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
			WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist
), ol AS (
	INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
	SELECT $1::int4, $2::int4, $3::int4, n, i, sw, NULL, q, amount / 100.0, dist FROM s
)
SELECT n, s_quantity, s_data FROM s`
)

// orderLine is one line of a New-Order's input and what the transaction
// learns about it.
type orderLine struct {
	item, supply, quantity int
	found                  bool
	price                  int  // I_PRICE in cents
	original               bool // I_DATA holds "ORIGINAL"
	brand                  byte // 'B' or 'G' (clause 2.4.2.2)
	stock                  int  // S_QUANTITY after the update
}

type newOrderTxn struct {
	district, customer, items, orders, newOrder, lines stmt

	// The input of clause 2.4.1.
	w, d, c  int
	n        int
	rollback bool
	allLocal bool
	line     [maxOrderLines]orderLine

	// What the transaction reads and computes (clause 2.4.3.3).
	oid, dTax, wTax, discount int
	credit                    [2]byte
	total                     float64
	// Arrays of the valid lines, sorted by (supply, item).
	sorted                             [maxOrderLines]int
	nums, ids, supplies, qtys, amounts [maxOrderLines]int32
	valid                              int

	each newOrderEach // interaction statements
	call stmt         // interaction procedures
}

func (t *newOrderTxn) prepare(ctx context.Context, conn *pgx.Conn) error {
	return prepareAll(ctx, conn, []stmtSQL{
		{&t.district, "no_district", sqlNewOrderDistrict},
		{&t.customer, "no_customer", sqlNewOrderCustomer},
		{&t.items, "no_items", sqlNewOrderItems},
		{&t.orders, "no_order", sqlNewOrderOrder},
		{&t.newOrder, "no_new_order", sqlNewOrderNewOrder},
		{&t.lines, "no_lines", sqlNewOrderLines},
	})
}

// draw is the input of clause 2.4.1: district random [1 .. 10]; customer
// NURand(1023, 1, 3000); 5 to 15 lines; 1 % of orders end with an unused
// item (rbk, clause 2.4.1.4); each item NURand(8191, 1, 100000), supplied
// by the home warehouse in 99 % of the lines and by another one in 1 %
// (when there is another, clause 2.4.1.5.2); quantities random [1 .. 10].
// The items of one order are distinct (see docs/workloads-tpcc.md).
func (t *newOrderTxn) draw(c *Client, w int) {
	r := &c.r
	t.w = w
	t.d = r.rand(1, districtsPerW)
	t.c = r.nurand(aCID, c.k.cID, 1, customersPerD)
	t.n = r.rand(minOrderLines, maxOrderLines)
	t.rollback = r.rand(1, 100) == 1
	t.allLocal = true
	for i := range t.n {
		l := &t.line[i]
		*l = orderLine{}
		if t.rollback && i == t.n-1 {
			l.item = unusedItem
		} else {
		draw:
			l.item = r.nurand(aItem, c.k.cItem, 1, items)
			for j := range i {
				if t.line[j].item == l.item {
					goto draw
				}
			}
		}
		l.supply = w
		if r.rand(1, 100) == 1 && c.warehouses > 1 {
			l.supply = c.other(w)
			t.allLocal = false
		}
		l.quantity = r.rand(1, 10)
	}
}

// run executes the transaction profile of clause 2.4.2.2.
func (t *newOrderTxn) run(c *Client) error {
	p := &c.p
	t.district.int4(0, t.w)
	t.district.int4(1, t.d)
	t.customer.int4(0, t.w)
	t.customer.int4(1, t.d)
	t.customer.int4(2, t.c)
	for i := range t.n {
		t.ids[i] = int32(t.line[i].item)
		t.line[i].found = false
	}
	t.items.int4s(0, t.ids[:t.n])
	p.send(&c.begin)
	p.send(&t.district)
	p.send(&t.customer)
	p.send(&t.items)
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	found := false
	for p.next() {
		t.oid, t.dTax, found = getInt4(p.values[0]), getInt4(p.values[1]), true
	}
	for p.next() {
		v := p.values
		t.discount, t.wTax = getInt4(v[0]), getInt4(v[3])
		copy(t.credit[:], v[2])
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
	if !found {
		return fmt.Errorf("tpcc: new_order: district %d of warehouse %d not found", t.d, t.w)
	}

	t.sortValid()
	sum := 0
	for k, i := range t.sorted[:t.valid] {
		l := &t.line[i]
		amount := l.quantity * l.price // OL_AMOUNT = OL_QUANTITY * I_PRICE
		sum += amount
		t.nums[k], t.ids[k], t.supplies[k], t.qtys[k], t.amounts[k] = int32(i+1), int32(l.item), int32(l.supply), int32(l.quantity), int32(amount)
	}
	allLocal := 0
	if t.allLocal {
		allLocal = 1
	}
	t.setOrder(allLocal)
	t.newOrder.int4(0, t.oid)
	t.newOrder.int4(1, t.d)
	t.newOrder.int4(2, t.w)
	t.lines.int4(0, t.oid)
	t.lines.int4(1, t.d)
	t.lines.int4(2, t.w)
	t.lines.int4s(3, t.nums[:t.valid])
	t.lines.int4s(4, t.ids[:t.valid])
	t.lines.int4s(5, t.supplies[:t.valid])
	t.lines.int4s(6, t.qtys[:t.valid])
	t.lines.int4s(7, t.amounts[:t.valid])
	expected := t.valid == t.n
	p.send(&t.orders)
	p.send(&t.newOrder)
	p.send(&t.lines)
	if expected {
		p.send(&c.commit)
	} else {
		p.send(&c.rollback)
	}
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	p.skip()
	stocked := 0
	for p.next() {
		n := getInt4(p.values[0])
		if n < 1 || n > t.n {
			continue
		}
		l := &t.line[n-1]
		l.stock = getInt4(p.values[1])
		l.brand = 'G'
		if l.original && bytes.Contains(p.values[2], []byte(original)) {
			l.brand = 'B'
		}
		stocked++
	}
	p.skip()
	if err := p.end(); err != nil {
		return err
	}
	if stocked != t.valid {
		return fmt.Errorf("tpcc: new_order: %d of %d stock rows found at warehouse %d", stocked, t.valid, t.w)
	}
	// total_amount = sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX)
	t.total = float64(sum) / 100 * (1 - float64(t.discount)/10000) * (1 + float64(t.wTax+t.dTax)/10000)
	if !expected {
		if !t.rollback {
			return fmt.Errorf("tpcc: new_order: an item of order %d of district %d, warehouse %d, not found", t.oid, t.d, t.w)
		}
		return workload.ErrRollback
	}
	return nil
}

// sortValid sorts the lines whose item exists by (supply, item) into
// sorted[:valid]: clause 2.4.2.3 leaves out the unused item's stock, order
// line and amount, and stock rows locked in one global order never
// deadlock between New-Orders.
func (t *newOrderTxn) sortValid() {
	t.valid = 0
	for i := range t.n {
		if !t.line[i].found {
			continue
		}
		j := t.valid
		for ; j > 0; j-- {
			prev := &t.line[t.sorted[j-1]]
			if prev.supply < t.line[i].supply || prev.supply == t.line[i].supply && prev.item < t.line[i].item {
				break
			}
			t.sorted[j] = t.sorted[j-1]
		}
		t.sorted[j] = i
		t.valid++
	}
}

// setOrder sets the ORDER row's parameters.
func (t *newOrderTxn) setOrder(allLocal int) {
	t.orders.int4(0, t.oid)
	t.orders.int4(1, t.d)
	t.orders.int4(2, t.w)
	t.orders.int4(3, t.c)
	t.orders.int4(4, t.n)
	t.orders.int4(5, allLocal)
}

// count adds the transaction's rates to the counts.
func (t *newOrderTxn) count(k *Counts) {
	if t.rollback {
		k.Rollbacks++
	}
	k.OrderLines += int64(t.n)
	for i := range t.n {
		if t.line[i].supply != t.w {
			k.RemoteLines++
		}
	}
}
