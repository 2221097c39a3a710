package sales

// sqlInsertOrderline is T1, New Orderline, of Table II ("write-only"):
//
//	INSERT INTO orderline VALUES (DEFAULT, ?,?,?,?)
//
// with the placeholders numbered. DEFAULT is ol_id, the identity; the four
// values are ol_o_id, ol_p_id, ol_quantity and ol_amount.
const sqlInsertOrderline = "INSERT INTO orderline VALUES (DEFAULT, $1, $2, $3, $4)"

// newOrderline inserts a line into an order chosen uniformly among all
// orders, whatever the distribution (section II-B.1 applies latest-k to T2
// and T3): a product 1..100000, a quantity 1..10 and their amount at the
// product's price, as the loaded lines. It runs alone, in an implicit
// transaction; the order's o_totalamount is left as it is, since Table II
// has T1 insert and nothing else.
func (c *Client) newOrderline() error {
	o := 1 + c.draw.Int64N(c.orders)
	p := 1 + c.draw.Int64N(products)
	q := 1 + c.draw.Int64N(maxQuantity)
	s := &c.insertLine
	s.setInt(0, o)
	s.setInt(1, p)
	s.setInt(2, q)
	s.setNumeric(3, q*c.gen.price(p))
	return c.exec(s)
}
