package sales

// sqlDeleteOrderline is T4, Orderline Deletion, of Table II ("deletion"):
//
//	DELETE FROM orderline WHERE OL_ID=?
const sqlDeleteOrderline = "DELETE FROM orderline WHERE OL_ID=$1"

// orderlineDeletion "is to delete a given orderline" (section II-B.1): an
// ol_id drawn uniformly among the loaded lines, 1 to 10 x the orders,
// whatever the distribution (latest-k is about orders). The client cannot
// aim at T1's lines, whose ids the server assigns and T1's statement does
// not return. A line already deleted, by this client or another, is not
// an error: the DELETE removes nothing and the transaction counts as
// committed; after d deletions, about d / (10 x orders) of them find no
// line. It runs alone, in an implicit transaction.
func (c *Client) orderlineDeletion() error {
	c.deleteLine.setInt(0, 1+c.draw.Int64N(c.lines))
	return c.exec(&c.deleteLine)
}
