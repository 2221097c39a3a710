package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Stock-Level (clause 2.8): how many of the items of the district's last
// 20 orders have a stock below a threshold, read only. One round trip:
// BEGIN; one statement reading D_NEXT_O_ID and counting the distinct items
// of the order lines of orders [D_NEXT_O_ID - 20, D_NEXT_O_ID) whose stock
// at the warehouse is below the threshold (clause 2.8.2.2); COMMIT.
// D_NEXT_O_ID comes from a sub-select rather than a join so that the
// planner sees a narrow range of order lines, never a parallel scan.
const sqlStockLevel = `SELECT count(DISTINCT s_i_id)
FROM order_line, stock
WHERE ol_w_id = $1::int4 AND ol_d_id = $2::int4
	AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = $1::int4 AND d_id = $2::int4)
	AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = $1::int4 AND d_id = $2::int4)
	AND s_w_id = $1::int4 AND s_i_id = ol_i_id AND s_quantity < $3::int4`

type stockLevelTxn struct {
	stock stmt

	// The input of clause 2.8.1: the terminal's own district.
	w, d, threshold int

	low int64

	each stockLevelEach // interaction statements
	call stmt           // interaction procedures
}

func (t *stockLevelTxn) prepare(ctx context.Context, conn *pgx.Conn) error {
	return t.stock.prepare(ctx, conn, "stock_level", sqlStockLevel)
}

// count: Stock-Level adds nothing to the counts but the transaction.
func (t *stockLevelTxn) count(*Counts) {}

// draw is the input of clause 2.8.1: the terminal's district (constant
// over the run, clause 2.8.1.1) and a threshold random [10 .. 20].
func (t *stockLevelTxn) draw(c *Client, w int) {
	t.w, t.d = w, c.district
	t.threshold = c.r.rand(10, 20)
}

func (t *stockLevelTxn) run(c *Client) error {
	p := &c.p
	t.stock.int4(0, t.w)
	t.stock.int4(1, t.d)
	t.stock.int4(2, t.threshold)
	p.send(&c.begin)
	p.send(&t.stock)
	p.send(&c.commit)
	if err := p.flush(); err != nil {
		return err
	}
	p.skip()
	rows := 0
	for p.next() {
		t.low = getInt8(p.values[0])
		rows++
	}
	p.skip()
	if err := p.end(); err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: stock_level: %d result rows", rows)
	}
	return nil
}
