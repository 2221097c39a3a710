package sales

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

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

// replica is a client's connection to one replica: its wire, T3's
// statement prepared there, and its context watch.
type replica struct {
	pg          *pgconn.PgConn
	wire        workload.Wire
	orderStatus statement
	watch       workload.Watcher
}

// addReplicas prepares T3's statement on each replica connection; the
// rotation starts at the client's index, so that a tenant's clients
// spread over the replicas.
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int) error {
	for _, rc := range conns {
		conn, ok := workload.PG(rc)
		if !ok {
			return workload.NoForm(Name, rc)
		}
		r := replica{pg: conn.PgConn()}
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+"order_status", sqlOrderStatus)
		if err != nil {
			return fmt.Errorf("sales: prepare %q on a replica: %w", sqlOrderStatus, err)
		}
		if err := r.orderStatus.init(sd, []uint32{int4OID}); err != nil {
			return err
		}
		r.wire = workload.NewWire(r.pg)
		c.replicas = append(c.replicas, r)
	}
	if len(c.replicas) > 0 {
		c.nextReplica = index % len(c.replicas)
	}
	return nil
}

// orderStatusOnReplica runs T3 on the next replica.
func (c *Client) orderStatusOnReplica(ctx context.Context) error {
	r := &c.replicas[c.nextReplica]
	c.nextReplica = (c.nextReplica + 1) % len(c.replicas)
	if err := r.watch.Watch(ctx, r.pg); err != nil {
		return err
	}
	r.orderStatus.setInt(0, c.pickOrder())
	c.status.found = false
	if err := r.wire.RoundTrip(r.orderStatus.name, r.orderStatus.params, &c.status); err != nil {
		return r.wire.Fail(ctx, err)
	}
	return nil
}
