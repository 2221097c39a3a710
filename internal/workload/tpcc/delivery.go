package tpcc

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Delivery (clause 2.7): deliver the oldest undelivered order of each of
// the warehouse's 10 districts in one database transaction. One round
// trip: BEGIN; one statement per district; COMMIT.
//
// Each statement takes the district's new order with the lowest NO_O_ID,
// deletes it, sets the order's O_CARRIER_ID, sets its lines'
// OL_DELIVERY_D, and adds the lines' amounts to the customer's balance and
// 1 to their C_DELIVERY_CNT (clause 2.7.4.2). A district without a new
// order is skipped: the statement returns no row. A new order that another
// Delivery holds locked is passed over (SKIP LOCKED) for the next one,
// which is what that Delivery leaves to this one once it commits.
const sqlDelivery = `WITH no AS (
	DELETE FROM new_order
	WHERE no_w_id = $1::int4 AND no_d_id = $2::int4 AND no_o_id = (
		SELECT no_o_id FROM new_order
		WHERE no_w_id = $1::int4 AND no_d_id = $2::int4
		ORDER BY no_o_id LIMIT 1
		FOR UPDATE SKIP LOCKED)
	RETURNING no_o_id
), o AS (
	UPDATE orders SET o_carrier_id = $3::int4
	FROM no
	WHERE o_w_id = $1::int4 AND o_d_id = $2::int4 AND o_id = no.no_o_id
	RETURNING o_id, o_c_id
), ol AS (
	UPDATE order_line SET ol_delivery_d = localtimestamp
	FROM no
	WHERE ol_w_id = $1::int4 AND ol_d_id = $2::int4 AND ol_o_id = no.no_o_id
	RETURNING ol_amount
)
UPDATE customer SET
	c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM ol),
	c_delivery_cnt = c_delivery_cnt + 1
FROM o
WHERE c_w_id = $1::int4 AND c_d_id = $2::int4 AND c_id = o.o_c_id
RETURNING o.o_id`

type deliveryTxn struct {
	district stmt

	// The input of clause 2.7.1.
	w, carrier int

	delivered, skipped int

	each deliveryEach // interaction statements
	call stmt         // interaction procedures
}

func (t *deliveryTxn) prepare(ctx context.Context, conn *pgx.Conn) error {
	return t.district.prepare(ctx, conn, "delivery", sqlDelivery)
}

// draw is the input of clause 2.7.1: the carrier random [1 .. 10].
func (t *deliveryTxn) draw(c *Client, w int) {
	t.w = w
	t.carrier = c.r.rand(1, 10)
}

// run executes the profile of clause 2.7.4.2, the districts in order.
func (t *deliveryTxn) run(c *Client) error {
	p := &c.p
	p.send(&c.begin)
	// send encodes the parameters at once, so one set of buffers serves
	// the ten districts.
	for d := range districtsPerW {
		t.district.int4(0, t.w)
		t.district.int4(1, d+1)
		t.district.int4(2, t.carrier)
		p.send(&t.district)
	}
	p.send(&c.commit)
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	t.delivered = 0
	for range districtsPerW {
		for p.next() {
			t.delivered++
		}
	}
	p.skip()
	if err := p.end(); err != nil {
		return err
	}
	t.skipped = districtsPerW - t.delivered
	return nil
}

func (t *deliveryTxn) count(k *Counts) {
	k.DeliveredOrders += int64(t.delivered)
	k.SkippedDistricts += int64(t.skipped)
	if t.skipped > 0 {
		k.SkippingDeliveries++
	}
}
