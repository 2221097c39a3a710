package sales

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// T2, Order Payment, of Table II ("read-write"):
//
//	(1) SELECT O_ID, O_C_ID, O_TOTALAMOUNT, O_UPDATEDDATE FROM orders WHERE O_ID=?
//	(2) UPDATE orders SET O_UPDATEDDATE=?, O_STATUS='PAID' WHERE O_ID=?
//	(3) UPDATE customer SET C_CREDIT=C_CREDIT+?, C_UPDATEDDATE=? WHERE C_ID=?
//
// with the placeholders numbered, in one transaction.
const (
	sqlBegin          = "BEGIN"
	sqlCommit         = "COMMIT"
	sqlSelectOrder    = "SELECT O_ID, O_C_ID, O_TOTALAMOUNT, O_UPDATEDDATE FROM orders WHERE O_ID=$1"
	sqlPayOrder       = "UPDATE orders SET O_UPDATEDDATE=$1, O_STATUS='PAID' WHERE O_ID=$2"
	sqlCreditCustomer = "UPDATE customer SET C_CREDIT=C_CREDIT+$1, C_UPDATEDDATE=$2 WHERE C_ID=$3"
)

// errNoOrder is T2's failure when the chosen order does not exist; the
// workload deletes no order, so it means the data were changed from
// outside.
var errNoOrder = errors.New("sales: order payment: the order does not exist")

// orderPayment "finds a target order, and then it updates the customer's
// credit and order's status" (section II-B.1): it reads the order chosen by
// the distribution, marks it PAID, and raises its customer's credit by the
// order's total, both stamped with the current time. Under latest-k the
// same k orders are paid again and again, as the paper has it ("T2 will
// update 10 specific items"). One statement per round trip, BEGIN and
// COMMIT included; the order's row lock, taken by (2), is held until
// COMMIT, and every T2 locks its order before its customer, so two T2
// cannot deadlock.
func (c *Client) orderPayment() error {
	o := c.pickOrder()
	if err := c.exec(&c.begin); err != nil {
		return err
	}
	c.selectOrder.setInt(0, o)
	c.order.found = false
	if err := c.roundTrip(&c.selectOrder, &c.order); err != nil {
		return err
	}
	if !c.order.found {
		return errNoOrder
	}
	t := now()
	c.payOrder.setInt(0, t)
	c.payOrder.setInt(1, o)
	if err := c.exec(&c.payOrder); err != nil {
		return err
	}
	// The total goes back as it came, in numeric's binary: nothing to parse.
	c.creditCustomer.setBinary(0, c.order.total)
	c.creditCustomer.setInt(1, t)
	c.creditCustomer.setInt(2, int64(c.order.customer))
	if err := c.exec(&c.creditCustomer); err != nil {
		return err
	}
	return c.exec(&c.commit)
}

// now is the time T2 stamps its updates with, in timestamptz's binary
// format. The client binds it, as Table II's placeholders ask, rather than
// leaving it to the server's clock.
func now() int64 { return workload.PGMicros(time.Now()) }

// orderRow is the row of T2's SELECT: o_id, o_c_id, o_totalamount (kept in
// numeric's binary format) and o_updateddate.
type orderRow struct {
	found        bool
	id, customer int32
	total        []byte
	updated      int64
}

func (r *orderRow) ReadRow(v [][]byte) {
	if len(v) != 4 || len(v[0]) != 4 || len(v[1]) != 4 || v[2] == nil || len(v[3]) != 8 {
		return
	}
	r.found = true
	r.id = int32(binary.BigEndian.Uint32(v[0]))
	r.customer = int32(binary.BigEndian.Uint32(v[1]))
	r.total = append(r.total[:0], v[2]...)
	r.updated = int64(binary.BigEndian.Uint64(v[3]))
}
