package tpcb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Reads on replicas (workload.reads: replicas): select-only only reads, so
// a client given replicas (workload.ClientInfo.Replicas) sends each of its
// select-only transactions to the next replica in turn, each over a
// statement prepared there as on its own connection. tpcb-like and
// simple-update write: they stay on the primary.

// ReadOnly says select-only is read-only (workload.ReadOnly).
func (w *Workload) ReadOnly(txn string) bool { return txn == SelectOnly }

// addReplicas prepares select-only's statement on each replica
// connection (workload.OpenReplicas).
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int) (err error) {
	c.replicas, err = workload.OpenReplicas(ctx, Name, conns, index, func(ctx context.Context, conn *pgx.Conn) (statement, error) {
		var st statement
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+"select_account", sqlSelectAccount)
		if err != nil {
			return st, fmt.Errorf("tpcb: prepare %q on a replica: %w", sqlSelectAccount, err)
		}
		err = st.init(sd)
		return st, err
	})
	return err
}

// selectOnReplica runs select-only on the next replica.
func (c *Client) selectOnReplica(ctx context.Context) error {
	r, err := c.replicas.Next(ctx)
	if err != nil {
		return err
	}
	r.Stmt.set(0, c.random(1, c.accounts))
	if err := r.Wire.RoundTrip(r.Stmt.sd.Name, r.Stmt.params, (*balanceRow)(&c.balance)); err != nil {
		return r.Wire.Fail(ctx, err)
	}
	return nil
}
