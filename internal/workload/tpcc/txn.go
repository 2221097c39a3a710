package tpcc

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// txn is one transaction type of clause 2 as a terminal holds it: its
// drawn input, its forms (one per engine and interaction) and what it
// adds to the counts. The five types are a Client's txns, indexed by type
// (NewOrder .. StockLevel).
type txn interface {
	draw(c *Client, w int)
	count(k *Counts)

	// PostgreSQL, interaction batched (its own file, new_order.go ...).
	prepare(ctx context.Context, conn *pgx.Conn) error
	run(c *Client) error
	// PostgreSQL, interaction statements (statements_*.go).
	prepareEach(ctx context.Context, conn *pgx.Conn) error
	runEach(c *Client) error
	// PostgreSQL, interaction procedures (procedures.go; prepareCalls
	// prepares the calls of all five).
	callRun(c *Client) error
	// MariaDB, interactions statements and procedures
	// (mariadb_statements.go, mariadb_procedures.go; prepared on first
	// use).
	mariaRun(c *Client) error
	mariaCall(c *Client) error
}

var (
	_ txn = (*newOrderTxn)(nil)
	_ txn = (*paymentTxn)(nil)
	_ txn = (*orderStatusTxn)(nil)
	_ txn = (*deliveryTxn)(nil)
	_ txn = (*stockLevelTxn)(nil)
)

// form is how a terminal of one engine sends its transactions in one
// interaction: prepare, once on a new connection (nil: nothing to prepare
// ahead), and send, each transaction once.
type form struct {
	prepare func(c *Client, ctx context.Context, conn *pgx.Conn) error
	send    func(t txn, c *Client) error
}

// pgForms are the PostgreSQL form's interactions.
var pgForms = map[string]form{
	InteractionBatched:    {eachTxn(txn.prepare), txn.run},
	InteractionStatements: {eachTxn(txn.prepareEach), txn.runEach},
	InteractionProcedures: {(*Client).prepareCalls, txn.callRun},
}

// mariaForms are the MariaDB form's interactions: batched has none (it
// sends PostgreSQL's arrays and CTEs).
var mariaForms = map[string]form{
	InteractionStatements: {nil, txn.mariaRun},
	InteractionProcedures: {nil, txn.mariaCall},
}

// eachTxn prepares the statements of every transaction type with prep.
func eachTxn(prep func(t txn, ctx context.Context, conn *pgx.Conn) error) func(*Client, context.Context, *pgx.Conn) error {
	return func(c *Client, ctx context.Context, conn *pgx.Conn) error {
		for _, t := range c.txns {
			if err := prep(t, ctx, conn); err != nil {
				return err
			}
		}
		return nil
	}
}
