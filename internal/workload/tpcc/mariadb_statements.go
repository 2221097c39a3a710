package tpcc

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Interaction statements on MariaDB: one statement per round trip, in
// the order of the profiles, as the PostgreSQL form and go-tpc's MySQL
// form send them. MariaDB has no UPDATE ... RETURNING: a row read and
// then changed is first read with SELECT ... FOR UPDATE, as go-tpc does.
// Amounts travel in cents (integers) and are divided by 100 in the
// server's exact decimal arithmetic; decimals come back as integers of
// cents or ten-thousandths.
const (
	mariaNewOrderCustomer = `SELECT CAST(c_discount * 10000 AS SIGNED), c_last, c_credit, CAST(w_tax * 10000 AS SIGNED)
FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?`
	mariaNewOrderDistrict = `SELECT d_next_o_id, CAST(d_tax * 10000 AS SIGNED) FROM district
WHERE d_w_id = ? AND d_id = ? FOR UPDATE`
	mariaNewOrderNextID = `UPDATE district SET d_next_o_id = ? + 1 WHERE d_w_id = ? AND d_id = ?`
	mariaNewOrderOrder  = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES (?, ?, ?, ?, NOW(6), NULL, ?, ?)`
	mariaNewOrderNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)`
	// The items: "IN (?, ...)", one ? per line.
	mariaNewOrderItems = `SELECT i_id, CAST(i_price * 100 AS SIGNED), i_data FROM item WHERE i_id IN (%s)`
	// The stock rows, locked in (warehouse, item) order, one "(s_w_id = ?
	// AND s_i_id = ?)" per line: ranges of the primary key.
	mariaNewOrderStock = `SELECT s_w_id, s_i_id, s_quantity, s_data,
	CASE ? WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
		WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
		WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
FROM stock WHERE %s ORDER BY s_w_id, s_i_id FOR UPDATE`
	mariaNewOrderStockUpdate = `UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?,
	s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ?
WHERE s_w_id = ? AND s_i_id = ?`
	// The order lines, one "(...)" per line.
	mariaNewOrderLines = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
VALUES %s`
	mariaNewOrderLine = `(?, ?, ?, ?, ?, ?, NULL, ?, ? / 100, ?)`

	mariaPaymentWarehouse     = `UPDATE warehouse SET w_ytd = w_ytd + ? / 100 WHERE w_id = ?`
	mariaPaymentWarehouseRead = `SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?`
	mariaPaymentDistrict      = `UPDATE district SET d_ytd = d_ytd + ? / 100 WHERE d_w_id = ? AND d_id = ?`
	mariaPaymentDistrictRead  = `SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?`
	mariaCustomersByName      = `SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id`
	mariaPaymentCustomer      = `SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
	c_since, c_credit, c_credit_lim, c_discount, c_balance
FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE`
	mariaPaymentGoodCredit = `UPDATE customer SET c_balance = c_balance - ? / 100,
	c_ytd_payment = c_ytd_payment + ? / 100, c_payment_cnt = c_payment_cnt + 1
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	// C_DATA gets the payment on its left, kept to 500 characters, as in
	// the PostgreSQL form (clause 2.5.2.2); its first 200 are read after.
	mariaPaymentBadCredit = `UPDATE customer SET c_balance = c_balance - ? / 100,
	c_ytd_payment = c_ytd_payment + ? / 100, c_payment_cnt = c_payment_cnt + 1,
	c_data = LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ?, ' ', ?, ' ', CAST(? / 100 AS DECIMAL(6,2)), ' | ', c_data), 500)
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	mariaPaymentData    = `SELECT LEFT(c_data, 200) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	mariaPaymentHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES (?, ?, ?, ?, ?, NOW(6), ? / 100, ?)`

	mariaStatusCustomer = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	mariaStatusOrder    = `SELECT o_id, o_carrier_id, o_entry_d FROM orders
WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1`
	mariaStatusLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?`

	// Delivery: a new order another Delivery holds locked is passed over,
	// as in the PostgreSQL form (SKIP LOCKED, MariaDB 10.6 and later).
	mariaDeliveryOldest = `SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ?
ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED`
	mariaDeliveryDelete   = `DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?`
	mariaDeliveryCustomer = `SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? FOR UPDATE`
	mariaDeliveryOrder    = `UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?`
	mariaDeliveryLines    = `UPDATE order_line SET ol_delivery_d = NOW(6) WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?`
	mariaDeliveryAmount   = `SELECT CAST(coalesce(sum(ol_amount), 0) * 100 AS SIGNED) FROM order_line
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?`
	mariaDeliveryBalance = `UPDATE customer SET c_balance = c_balance + ? / 100, c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`

	mariaStockNextID = `SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?`
	mariaStockCount  = `SELECT count(DISTINCT s_i_id) FROM order_line, stock
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20
	AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?`
)

// mariaLists are the statements of New-Order whose text holds one part
// per line, for 1 to maxOrderLines lines, made once.
var mariaLists = func() (l struct{ items, stock, lines [maxOrderLines + 1]string }) {
	for n := 1; n <= maxOrderLines; n++ {
		l.items[n] = fmt.Sprintf(mariaNewOrderItems, strings.TrimSuffix(strings.Repeat("?, ", n), ", "))
		l.stock[n] = fmt.Sprintf(mariaNewOrderStock, strings.TrimSuffix(strings.Repeat("(s_w_id = ? AND s_i_id = ?) OR ", n), " OR "))
		l.lines[n] = fmt.Sprintf(mariaNewOrderLines, strings.TrimSuffix(strings.Repeat(mariaNewOrderLine+", ", n), ", "))
	}
	return l
}()

// newStock is S_QUANTITY after an order of quantity from stock q: less
// the quantity if 10 or more remain, else less the quantity plus 91
// (clause 2.4.2.2).
func newStock(q, quantity int) int {
	if q >= quantity+10 {
		return q - quantity
	}
	return q - quantity + 91
}

// mariaRun executes the profile of clause 2.4.2.2 one statement at a time.
func (t *newOrderTxn) mariaRun(c *Client) error {
	m := c.maria
	if err := m.text("BEGIN"); err != nil {
		return err
	}
	n, err := m.each(mariaNewOrderCustomer, []any{t.w, t.d, t.c}, func(v mariadb.Row) {
		t.discount, t.wTax = atoi(v, 0), atoi(v, 3)
		copy(t.credit[:], v.Bytes(2))
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("tpcc: new_order: customer %d of district %d, warehouse %d, not found", t.c, t.d, t.w)
	}
	n, err = m.each(mariaNewOrderDistrict, []any{t.w, t.d}, func(v mariadb.Row) {
		t.oid, t.dTax = atoi(v, 0), atoi(v, 1)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("tpcc: new_order: district %d of warehouse %d not found", t.d, t.w)
	}
	if _, err := m.exec(mariaNewOrderNextID, t.oid, t.w, t.d); err != nil {
		return err
	}
	allLocal := 0
	if t.allLocal {
		allLocal = 1
	}
	if _, err := m.exec(mariaNewOrderOrder, t.oid, t.d, t.w, t.c, t.n, allLocal); err != nil {
		return err
	}
	if _, err := m.exec(mariaNewOrderNewOrder, t.oid, t.d, t.w); err != nil {
		return err
	}
	args := make([]any, 0, 10*maxOrderLines)
	for i := range t.n {
		t.line[i].found = false
		args = append(args, t.line[i].item)
	}
	if _, err := m.each(mariaLists.items[t.n], args, func(v mariadb.Row) {
		id := atoi(v, 0)
		for i := range t.n {
			if l := &t.line[i]; l.item == id {
				l.found, l.price = true, atoi(v, 1)
				l.original = bytes.Contains(v.Bytes(2), []byte(original))
			}
		}
	}); err != nil {
		return err
	}
	t.sortValid()
	if t.valid != t.n {
		// Clause 2.4.2.3: an unused item rolls the whole order back.
		if err := m.text("ROLLBACK"); err != nil {
			return err
		}
		if !t.rollback {
			return fmt.Errorf("tpcc: new_order: an item of order %d of district %d, warehouse %d, not found", t.oid, t.d, t.w)
		}
		return workload.ErrRollback
	}
	args = append(args[:0], t.d)
	for _, i := range t.sorted[:t.valid] {
		args = append(args, t.line[i].supply, t.line[i].item)
	}
	dist := &t.each.dist
	stocked := 0
	if _, err := m.each(mariaLists.stock[t.valid], args, func(v mariadb.Row) {
		sw, id := atoi(v, 0), atoi(v, 1)
		for k, i := range t.sorted[:t.valid] {
			l := &t.line[i]
			if l.supply != sw || l.item != id {
				continue
			}
			l.stock = newStock(atoi(v, 2), l.quantity)
			l.brand = 'G'
			if l.original && bytes.Contains(v.Bytes(3), []byte(original)) {
				l.brand = 'B'
			}
			copy(dist[k][:], v.Bytes(4))
			stocked++
		}
	}); err != nil {
		return err
	}
	if stocked != t.valid {
		return fmt.Errorf("tpcc: new_order: %d of %d stock rows found at warehouse %d", stocked, t.valid, t.w)
	}
	sum := 0
	args = args[:0]
	for k, i := range t.sorted[:t.valid] {
		l := &t.line[i]
		remote := 0
		if l.supply != t.w {
			remote = 1
		}
		if _, err := m.exec(mariaNewOrderStockUpdate, l.stock, l.quantity, remote, l.supply, l.item); err != nil {
			return err
		}
		amount := l.quantity * l.price // OL_AMOUNT = OL_QUANTITY * I_PRICE
		sum += amount
		args = append(args, t.oid, t.d, t.w, i+1, l.item, l.supply, l.quantity, amount, dist[k][:])
	}
	if _, err := m.exec(mariaLists.lines[t.valid], args...); err != nil {
		return err
	}
	if err := m.text("COMMIT"); err != nil {
		return err
	}
	t.total = float64(sum) / 100 * (1 - float64(t.discount)/10000) * (1 + float64(t.wTax+t.dTax)/10000)
	return nil
}

// mariaRun executes the profile of clause 2.5.2.2 one statement at a time.
func (t *paymentTxn) mariaRun(c *Client) error {
	m := c.maria
	if err := m.text("BEGIN"); err != nil {
		return err
	}
	var wName, dName []byte
	if _, err := m.exec(mariaPaymentWarehouse, t.amount, t.w); err != nil {
		return err
	}
	if _, err := m.each(mariaPaymentWarehouseRead, []any{t.w}, func(v mariadb.Row) {
		wName = append(wName[:0], v.Bytes(0)...)
	}); err != nil {
		return err
	}
	if _, err := m.exec(mariaPaymentDistrict, t.amount, t.w, t.d); err != nil {
		return err
	}
	if _, err := m.each(mariaPaymentDistrictRead, []any{t.w, t.d}, func(v mariadb.Row) {
		dName = append(dName[:0], v.Bytes(0)...)
	}); err != nil {
		return err
	}
	t.cid = t.c
	if t.byLast {
		id, err := c.mariaCustomerByName(m, t.cw, t.cd, t.last)
		if err != nil {
			return err
		}
		t.cid = id
	}
	var credit [2]byte
	found := 0
	if t.cid != 0 {
		var err error
		if found, err = m.each(mariaPaymentCustomer, []any{t.cw, t.cd, t.cid}, func(v mariadb.Row) {
			copy(credit[:], v.Bytes(10))
		}); err != nil {
			return err
		}
	}
	if found == 0 {
		// Only on damaged data: the warehouse and district were paid.
		t.cid = 0
		if err := m.text("COMMIT"); err != nil {
			return err
		}
		return fmt.Errorf("tpcc: payment: no customer %s in district %d of warehouse %d", t.who(), t.cd, t.cw)
	}
	if credit == [2]byte{'B', 'C'} {
		if _, err := m.exec(mariaPaymentBadCredit, t.amount, t.amount, t.d, t.w, t.amount, t.cw, t.cd, t.cid); err != nil {
			return err
		}
		if _, err := m.each(mariaPaymentData, []any{t.cw, t.cd, t.cid}, func(mariadb.Row) {}); err != nil {
			return err
		}
	} else if _, err := m.exec(mariaPaymentGoodCredit, t.amount, t.amount, t.cw, t.cd, t.cid); err != nil {
		return err
	}
	// H_DATA is W_NAME, four spaces and D_NAME (clause 2.5.2.2).
	hData := string(wName) + "    " + string(dName)
	if _, err := m.exec(mariaPaymentHistory, t.cid, t.cd, t.cw, t.d, t.w, t.amount, hData); err != nil {
		return err
	}
	return m.text("COMMIT")
}

// mariaCustomerByName is customerByName on MariaDB: the customer at
// position n/2 rounded up among the n customers of the name sorted by
// C_FIRST; 0 when there is none.
func (c *Client) mariaCustomerByName(m *mariaConn, w, d, last int) (int, error) {
	k := 0
	if _, err := m.each(mariaCustomersByName, []any{w, d, lastNames[last]}, func(v mariadb.Row) {
		if k < len(c.named) {
			c.named[k] = int32(atoi(v, 0))
		}
		k++
	}); err != nil {
		return 0, err
	}
	if k == 0 {
		return 0, nil
	}
	return int(c.named[(k+1)/2-1]), nil
}

// mariaRun executes the profile of clause 2.6.2.2 one statement at a time.
func (t *orderStatusTxn) mariaRun(c *Client) error {
	m := c.maria
	if err := m.text("BEGIN"); err != nil {
		return err
	}
	t.cid, t.oid, t.lines = t.c, 0, 0
	if t.byLast {
		id, err := c.mariaCustomerByName(m, t.w, t.d, t.last)
		if err != nil {
			return err
		}
		t.cid = id
	}
	found := 0
	if t.cid != 0 {
		var err error
		if found, err = m.each(mariaStatusCustomer, []any{t.w, t.d, t.cid}, func(mariadb.Row) {}); err != nil {
			return err
		}
	}
	if found == 0 {
		if err := m.text("COMMIT"); err != nil {
			return err
		}
		return fmt.Errorf("tpcc: order_status: no customer in district %d of warehouse %d", t.d, t.w)
	}
	if _, err := m.each(mariaStatusOrder, []any{t.w, t.d, t.cid}, func(v mariadb.Row) {
		t.oid = atoi(v, 0)
	}); err != nil {
		return err
	}
	if t.oid != 0 {
		var err error
		if t.lines, err = m.each(mariaStatusLines, []any{t.w, t.d, t.oid}, func(mariadb.Row) {}); err != nil {
			return err
		}
	}
	return m.text("COMMIT")
}

// mariaRun executes the profile of clause 2.7.4.2 one statement at a
// time, the districts in order.
func (t *deliveryTxn) mariaRun(c *Client) error {
	m := c.maria
	if err := m.text("BEGIN"); err != nil {
		return err
	}
	t.delivered = 0
	for d := 1; d <= districtsPerW; d++ {
		oid := 0
		if _, err := m.each(mariaDeliveryOldest, []any{t.w, d}, func(v mariadb.Row) { oid = atoi(v, 0) }); err != nil {
			return err
		}
		if oid == 0 {
			continue // no new order in the district: skipped
		}
		if _, err := m.exec(mariaDeliveryDelete, t.w, d, oid); err != nil {
			return err
		}
		cid := 0
		if _, err := m.each(mariaDeliveryCustomer, []any{t.w, d, oid}, func(v mariadb.Row) { cid = atoi(v, 0) }); err != nil {
			return err
		}
		if _, err := m.exec(mariaDeliveryOrder, t.carrier, t.w, d, oid); err != nil {
			return err
		}
		if _, err := m.exec(mariaDeliveryLines, t.w, d, oid); err != nil {
			return err
		}
		cents := 0
		if _, err := m.each(mariaDeliveryAmount, []any{t.w, d, oid}, func(v mariadb.Row) { cents = atoi(v, 0) }); err != nil {
			return err
		}
		if _, err := m.exec(mariaDeliveryBalance, cents, t.w, d, cid); err != nil {
			return err
		}
		t.delivered++
	}
	if err := m.text("COMMIT"); err != nil {
		return err
	}
	t.skipped = districtsPerW - t.delivered
	return nil
}

// mariaRun executes the profile of clause 2.8.2.2 one statement at a time.
func (t *stockLevelTxn) mariaRun(c *Client) error {
	m := c.maria
	if err := m.text("BEGIN"); err != nil {
		return err
	}
	next := 0
	if _, err := m.each(mariaStockNextID, []any{t.w, t.d}, func(v mariadb.Row) { next = atoi(v, 0) }); err != nil {
		return err
	}
	if next == 0 {
		return fmt.Errorf("tpcc: stock_level: district %d of warehouse %d not found", t.d, t.w)
	}
	rows, err := m.each(mariaStockCount, []any{t.w, t.d, next, next, t.w, t.threshold}, func(v mariadb.Row) {
		t.low = int64(atoi(v, 0))
	})
	if err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: stock_level: %d result rows", rows)
	}
	return m.text("COMMIT")
}
