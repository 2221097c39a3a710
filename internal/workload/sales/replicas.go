package sales

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Reads on replicas (workload.reads: replicas): T3, order_status, only
// reads (Table II: "Read-Only"), so a client given replicas
// (workload.ClientInfo.Replicas) sends each of its T3 to the next replica
// in turn, over the statement prepared there as on its own connection.
// T1, T2 and T4 write: they stay on the primary. Under latest-k, T3 reads
// the orders T2 pays on the primary: on a replica it may read them before
// the payment shows, the staleness the replicas add.

// ReadOnly says order_status is read-only (workload.ReadOnly).
func (w *Workload) ReadOnly(txn string) bool { return txn == OrderStatus }

// addReplicas prepares T3's statement on each replica connection
// (workload.OpenReplicas).
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int) (err error) {
	c.replicas, err = workload.OpenReplicas(ctx, Name, conns, index, func(ctx context.Context, conn *pgx.Conn) (statement, error) {
		var st statement
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+"order_status", sqlOrderStatus)
		if err != nil {
			return st, fmt.Errorf("sales: prepare %q on a replica: %w", sqlOrderStatus, err)
		}
		err = st.init(sd, []uint32{int4OID})
		return st, err
	})
	return err
}

// orderStatusOnReplica runs T3 on the next replica.
func (c *Client) orderStatusOnReplica(ctx context.Context) error {
	r, err := c.replicas.Next(ctx)
	if err != nil {
		return err
	}
	r.Stmt.setInt(0, c.pickOrder())
	c.status.found = false
	if err := r.Wire.RoundTrip(r.Stmt.name, r.Stmt.params, &c.status); err != nil {
		return r.Wire.Fail(ctx, err)
	}
	return nil
}
