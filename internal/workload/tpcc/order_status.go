package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Order-Status (clause 2.6): the status of a customer's last order, read
// only. One round trip: BEGIN; one statement that selects the customer
// (by number or by last name), their most recent order (the largest O_ID,
// clause 2.6.2.2) and its lines, one result row per line; COMMIT.
const sqlOrderStatus = `WITH c AS (
	SELECT c_id, c_balance, c_first, c_middle, c_last
	FROM customer WHERE c_w_id = $1::int4 AND c_d_id = $2::int4 AND c_id = %s
), o AS (
	SELECT o_id, o_entry_d, o_carrier_id
	FROM orders, c
	WHERE o_w_id = $1::int4 AND o_d_id = $2::int4 AND o_c_id = c.c_id
	ORDER BY o_id DESC LIMIT 1
)
SELECT c.c_id, c.c_balance, c.c_first, c.c_middle, c.c_last, o.o_id, o.o_entry_d, o.o_carrier_id,
	ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
FROM c LEFT JOIN o ON true
LEFT JOIN order_line ON ol_w_id = $1::int4 AND ol_d_id = $2::int4 AND ol_o_id = o.o_id`

// The customer of Order-Status, selected like Payment's ($3).
const (
	sqlStatusByNumber = `$3::int4`
	sqlStatusByName   = `(SELECT m.c_id FROM (
		SELECT c_id, row_number() OVER (ORDER BY c_first, c_id) AS pos, count(*) OVER () AS n
		FROM customer WHERE c_w_id = $1::int4 AND c_d_id = $2::int4 AND c_last = $3::varchar) m
	WHERE m.pos = (m.n + 1) / 2)`
)

type orderStatusTxn struct {
	byNumber, byName stmt

	// The input of clause 2.6.1.
	w, d, c, last int
	byLast        bool

	cid, oid, lines int

	each orderStatusEach // interaction statements
	call stmt            // interaction procedures
}

func (t *orderStatusTxn) prepare(ctx context.Context, conn *pgx.Conn) error {
	if err := t.byNumber.prepare(ctx, conn, "os_id", fmt.Sprintf(sqlOrderStatus, sqlStatusByNumber)); err != nil {
		return err
	}
	return t.byName.prepare(ctx, conn, "os_name", fmt.Sprintf(sqlOrderStatus, sqlStatusByName))
}

// draw is the input of clause 2.6.1: district random [1 .. 10]; by last
// name, NURand(255, 0, 999) with the run-time C, in 60 % of the cases,
// else by number, NURand(1023, 1, 3000).
func (t *orderStatusTxn) draw(c *Client, w int) {
	r := &c.r
	t.w = w
	t.d = r.rand(1, districtsPerW)
	t.byLast = r.rand(1, 100) <= 60
	if t.byLast {
		t.last = r.nurand(aLast, c.k.cLast, 0, 999)
	} else {
		t.c = r.nurand(aCID, c.k.cID, 1, customersPerD)
	}
}

// run executes the profile of clause 2.6.2.2.
func (t *orderStatusTxn) run(c *Client) error {
	p := &c.p
	s := &t.byNumber
	if t.byLast {
		s = &t.byName
		s.text(2, lastNames[t.last])
	} else {
		s.int4(2, t.c)
	}
	s.int4(0, t.w)
	s.int4(1, t.d)
	p.send(&c.begin)
	p.send(s)
	p.send(&c.commit)
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	t.cid, t.oid, t.lines = 0, 0, 0
	for p.next() {
		v := p.values
		t.cid = getInt4(v[0])
		if v[5] != nil {
			t.oid = getInt4(v[5])
		}
		if v[8] != nil {
			t.lines++
		}
	}
	p.skip()
	if err := p.end(); err != nil {
		return err
	}
	if t.cid == 0 {
		return fmt.Errorf("tpcc: order_status: no customer in district %d of warehouse %d", t.d, t.w)
	}
	return nil
}

func (t *orderStatusTxn) count(k *Counts) {
	if t.byLast {
		k.OrderStatusByName++
	}
}
