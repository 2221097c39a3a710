package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Payment with interaction statements: one statement per round trip, in
// the order of clause 2.5.2.2, as go-tpc sends them: BEGIN; the warehouse's
// W_YTD increased, then its name and address read; the same for the
// district; by last name, the district's customers of that name sorted by
// C_FIRST (the terminal takes the one at position n/2 rounded up); the
// customer, locked; its balance updated (and, for bad credit, its C_DATA);
// the HISTORY row; COMMIT. Nine round trips, ten by last name.
const (
	sqlEachPaymentWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $2::int4 / 100.0 WHERE w_id = $1`

	sqlEachPaymentWarehouseRead = `SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $1`

	sqlEachPaymentDistrict = `UPDATE district SET d_ytd = d_ytd + $3::int4 / 100.0 WHERE d_w_id = $1 AND d_id = $2`

	sqlEachPaymentDistrictRead = `SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = $1 AND d_id = $2`

	sqlEachCustomersByName = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id`

	sqlEachPaymentCustomer = `SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
	c_since, c_credit, c_credit_lim, c_discount, c_balance
FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE`

	sqlEachPaymentGoodCredit = `UPDATE customer SET c_balance = c_balance - $4::int4 / 100.0,
	c_ytd_payment = c_ytd_payment + $4::int4 / 100.0, c_payment_cnt = c_payment_cnt + 1
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`

	// C_DATA gets the payment on its left, kept to 500 characters, and its
	// first 200 are returned, as in the batched form (clause 2.5.2.2).
	sqlEachPaymentBadCredit = `UPDATE customer SET c_balance = c_balance - $4::int4 / 100.0,
	c_ytd_payment = c_ytd_payment + $4::int4 / 100.0, c_payment_cnt = c_payment_cnt + 1,
	c_data = left(format('%s %s %s %s %s %s | ', c_id, c_d_id, c_w_id, $5::int4, $6::int4, ($4::int4 / 100.0)::numeric(6,2)) || c_data, 500)
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3
RETURNING left(c_data, 200)`

	sqlEachPaymentHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES ($1, $2, $3, $4, $5, localtimestamp, $6::int4 / 100.0, $7)`
)

type paymentEach struct {
	warehouse, warehouseRead, district, districtRead, byName, customer, good, bad, history stmt

	wName, dName [10]byte
	wLen, dLen   int
}

func (t *paymentTxn) prepareEach(ctx context.Context, conn *pgx.Conn) error {
	e := &t.each
	return prepareAll(ctx, conn, []stmtSQL{
		{&e.warehouse, "paye_warehouse", sqlEachPaymentWarehouse},
		{&e.warehouseRead, "paye_warehouse_read", sqlEachPaymentWarehouseRead},
		{&e.district, "paye_district", sqlEachPaymentDistrict},
		{&e.districtRead, "paye_district_read", sqlEachPaymentDistrictRead},
		{&e.byName, "paye_customers_by_name", sqlEachCustomersByName},
		{&e.customer, "paye_customer", sqlEachPaymentCustomer},
		{&e.good, "paye_good_credit", sqlEachPaymentGoodCredit},
		{&e.bad, "paye_bad_credit", sqlEachPaymentBadCredit},
		{&e.history, "paye_history", sqlEachPaymentHistory},
	})
}

// runEach executes the profile of clause 2.5.2.2 one statement at a time.
func (t *paymentTxn) runEach(c *Client) error {
	p, e := &c.p, &t.each
	if err := p.alone(&c.begin); err != nil {
		return err
	}
	e.warehouse.int4(0, t.w)
	e.warehouse.int4(1, t.amount)
	if err := p.alone(&e.warehouse); err != nil {
		return err
	}
	e.warehouseRead.int4(0, t.w)
	if err := p.one(&e.warehouseRead); err != nil {
		return err
	}
	for p.next() {
		e.wLen = copy(e.wName[:], p.values[0])
	}
	if err := p.end(); err != nil {
		return err
	}
	e.district.int4(0, t.w)
	e.district.int4(1, t.d)
	e.district.int4(2, t.amount)
	if err := p.alone(&e.district); err != nil {
		return err
	}
	e.districtRead.int4(0, t.w)
	e.districtRead.int4(1, t.d)
	if err := p.one(&e.districtRead); err != nil {
		return err
	}
	for p.next() {
		e.dLen = copy(e.dName[:], p.values[0])
	}
	if err := p.end(); err != nil {
		return err
	}
	t.cid = t.c
	if t.byLast {
		id, err := c.customerByName(&e.byName, t.cw, t.cd, t.last)
		if err != nil {
			return err
		}
		t.cid = id
	}
	credit := [2]byte{}
	found := false
	if t.cid != 0 {
		e.customer.int4(0, t.cw)
		e.customer.int4(1, t.cd)
		e.customer.int4(2, t.cid)
		if err := p.one(&e.customer); err != nil {
			return err
		}
		for p.next() {
			copy(credit[:], p.values[10])
			found = true
		}
		if err := p.end(); err != nil {
			return err
		}
	}
	if !found {
		// Only on damaged data: the warehouse and district were paid.
		t.cid = 0
		if err := p.alone(&c.commit); err != nil {
			return err
		}
		return fmt.Errorf("tpcc: payment: no customer %s in district %d of warehouse %d", t.who(), t.cd, t.cw)
	}
	u := &e.good
	if credit == [2]byte{'B', 'C'} {
		u = &e.bad
		u.int4(4, t.d)
		u.int4(5, t.w)
	}
	u.int4(0, t.cw)
	u.int4(1, t.cd)
	u.int4(2, t.cid)
	u.int4(3, t.amount)
	if err := p.alone(u); err != nil {
		return err
	}
	h := &e.history
	h.int4(0, t.cid)
	h.int4(1, t.cd)
	h.int4(2, t.cw)
	h.int4(3, t.d)
	h.int4(4, t.w)
	h.int4(5, t.amount)
	// H_DATA is W_NAME, four spaces and D_NAME (clause 2.5.2.2).
	b := append(h.params[6][:0], e.wName[:e.wLen]...)
	b = append(b, "    "...)
	h.params[6] = append(b, e.dName[:e.dLen]...)
	if err := p.alone(h); err != nil {
		return err
	}
	return p.alone(&c.commit)
}

// customerByName is the customer at position n/2 rounded up among the n
// customers of district d of warehouse w with last name number last,
// sorted by C_FIRST (clauses 2.5.2.2 and 2.6.2.2); 0 when there is none.
// s is sqlEachCustomersByName, prepared by the caller.
func (c *Client) customerByName(s *stmt, w, d, last int) (int, error) {
	p := &c.p
	s.int4(0, w)
	s.int4(1, d)
	s.text(2, lastNames[last])
	if err := p.one(s); err != nil {
		return 0, err
	}
	n := 0
	for p.next() {
		if n < len(c.named) {
			c.named[n] = int32(getInt4(p.values[0]))
		}
		n++
	}
	if err := p.end(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	return int(c.named[(n+1)/2-1]), nil
}
