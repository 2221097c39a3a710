package sales

import "encoding/binary"

// sqlOrderStatus is T3, Order Status, of Table II ("read-only"):
//
//	SELECT O_ID, O_DATE, O_STATUS FROM orders WHERE O_ID = ?
const sqlOrderStatus = "SELECT O_ID, O_DATE, O_STATUS FROM orders WHERE O_ID = $1"

// orderStatusTxn "checks the status of a given order" (section II-B.1):
// the order chosen by the distribution, so that under latest-k it reads
// the orders T2 pays ("T3 will read these items randomly"). It runs alone,
// in an implicit transaction.
func (c *Client) orderStatusTxn() error {
	c.orderStatus.setInt(0, c.pickOrder())
	c.status.found = false
	return c.roundTrip(&c.orderStatus, &c.status)
}

// statusRow is the row of T3: o_id, o_date and o_status.
type statusRow struct {
	found  bool
	id     int32
	date   int64
	status [6]byte // varchar(6)
	n      int
}

func (r *statusRow) ReadRow(v [][]byte) {
	if len(v) != 3 || len(v[0]) != 4 || len(v[1]) != 8 {
		return
	}
	r.found = true
	r.id = int32(binary.BigEndian.Uint32(v[0]))
	r.date = int64(binary.BigEndian.Uint64(v[1]))
	r.n = copy(r.status[:], v[2])
}
