package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Payment (clause 2.5): update the customer's balance and record the
// payment in the warehouse's and the district's sales statistics. One
// round trip: BEGIN; the warehouse; the district; the customer with the
// HISTORY row; COMMIT. The rows are locked in the profile's order
// (warehouse, district, customer).
const (
	sqlPaymentWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $2::int4 / 100.0
WHERE w_id = $1
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`

	sqlPaymentDistrict = `UPDATE district SET d_ytd = d_ytd + $3::int4 / 100.0
WHERE d_w_id = $1 AND d_id = $2
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`

	// sqlPaymentCustomer takes c_w_id, c_d_id, w_id, d_id, h_amount (in
	// cents) and the customer (%s: by number or by last name). For a
	// customer of bad credit, C_DATA gets the payment's C_ID, C_D_ID,
	// C_W_ID, D_ID, W_ID and H_AMOUNT on its left, kept to 500 characters,
	// and its first 200 characters are returned (clause 2.5.2.2). H_DATA is
	// W_NAME, four spaces and D_NAME.
	sqlPaymentCustomer = `WITH c AS (
	UPDATE customer SET
		c_balance = c_balance - $5::int4 / 100.0,
		c_ytd_payment = c_ytd_payment + $5::int4 / 100.0,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN
			left(format('%%s %%s %%s %%s %%s %%s | ', c_id, c_d_id, c_w_id, $4::int4, $3::int4, ($5::int4 / 100.0)::numeric(6,2)) || c_data, 500)
			ELSE c_data END
	WHERE c_w_id = $1::int4 AND c_d_id = $2::int4 AND c_id = %s
	RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
		c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance,
		CASE WHEN c_credit = 'BC' THEN left(c_data, 200) END
), h AS (
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	SELECT c_id, $2::int4, $1::int4, $4::int4, $3::int4, localtimestamp, $5::int4 / 100.0,
		(SELECT w_name FROM warehouse WHERE w_id = $3::int4) || '    ' ||
		(SELECT d_name FROM district WHERE d_w_id = $3::int4 AND d_id = $4::int4)
	FROM c
)
SELECT * FROM c`

	// sqlCustomerByNumber selects the customer by C_ID ($6).
	sqlCustomerByNumber = `$6::int4`

	// sqlCustomerByName selects, among the customers of the district with
	// last name $6 sorted by C_FIRST, the one at position n/2 rounded up
	// (clauses 2.5.2.2 and 2.6.2.2).
	sqlCustomerByName = `(SELECT m.c_id FROM (
		SELECT c_id, row_number() OVER (ORDER BY c_first, c_id) AS pos, count(*) OVER () AS n
		FROM customer WHERE c_w_id = $1::int4 AND c_d_id = $2::int4 AND c_last = $6::varchar) m
	WHERE m.pos = (m.n + 1) / 2)`
)

type paymentTxn struct {
	warehouse, district, byNumber, byName stmt

	// The input of clause 2.5.1.
	w, d, cw, cd, c, last, amount int
	remote, byLast                bool

	cid int // the customer paid

	each paymentEach // interaction statements
	call stmt        // interaction procedures
}

func (t *paymentTxn) prepare(ctx context.Context, conn *pgx.Conn) error {
	return prepareAll(ctx, conn, []stmtSQL{
		{&t.warehouse, "pay_warehouse", sqlPaymentWarehouse},
		{&t.district, "pay_district", sqlPaymentDistrict},
		{&t.byNumber, "pay_customer_id", fmt.Sprintf(sqlPaymentCustomer, sqlCustomerByNumber)},
		{&t.byName, "pay_customer_name", fmt.Sprintf(sqlPaymentCustomer, sqlCustomerByName)},
	})
}

// draw is the input of clause 2.5.1: district random [1 .. 10]; the
// customer of the home warehouse and district in 85 % of the cases, else
// of a random district of another warehouse (when there is another, clause
// 2.5.1.2); by last name, NURand(255, 0, 999) with the run-time C, in 60 %
// of the cases, else by number, NURand(1023, 1, 3000); the amount random
// [1.00 .. 5,000.00].
func (t *paymentTxn) draw(c *Client, w int) {
	r := &c.r
	t.w = w
	t.d = r.rand(1, districtsPerW)
	t.cw, t.cd = w, t.d
	t.remote = false
	if r.rand(1, 100) > 85 && c.warehouses > 1 {
		t.cw, t.cd, t.remote = c.other(w), r.rand(1, districtsPerW), true
	}
	t.byLast = r.rand(1, 100) <= 60
	if t.byLast {
		t.last = r.nurand(aLast, c.k.cLast, 0, 999)
	} else {
		t.c = r.nurand(aCID, c.k.cID, 1, customersPerD)
	}
	t.amount = r.rand(100, 500000)
}

// run executes the profile of clause 2.5.2.2.
func (t *paymentTxn) run(c *Client) error {
	p := &c.p
	t.warehouse.int4(0, t.w)
	t.warehouse.int4(1, t.amount)
	t.district.int4(0, t.w)
	t.district.int4(1, t.d)
	t.district.int4(2, t.amount)
	cust := &t.byNumber
	if t.byLast {
		cust = &t.byName
		cust.text(5, lastNames[t.last])
	} else {
		cust.int4(5, t.c)
	}
	cust.int4(0, t.cw)
	cust.int4(1, t.cd)
	cust.int4(2, t.w)
	cust.int4(3, t.d)
	cust.int4(4, t.amount)
	p.send(&c.begin)
	p.send(&t.warehouse)
	p.send(&t.district)
	p.send(cust)
	p.send(&c.commit)
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	p.skip()
	p.skip()
	t.cid = 0
	for p.next() {
		t.cid = getInt4(p.values[0])
	}
	p.skip()
	if err := p.end(); err != nil {
		return err
	}
	if t.cid == 0 {
		// Only on damaged data: the warehouse and district were paid.
		return fmt.Errorf("tpcc: payment: no customer %s in district %d of warehouse %d", t.who(), t.cd, t.cw)
	}
	return nil
}

func (t *paymentTxn) who() string {
	if t.byLast {
		return "named " + lastNames[t.last]
	}
	return fmt.Sprint(t.c)
}

func (t *paymentTxn) count(k *Counts) {
	if t.remote {
		k.RemotePayments++
	}
	if t.byLast {
		k.PaymentsByName++
	}
}
