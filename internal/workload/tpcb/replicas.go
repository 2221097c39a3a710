package tpcb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Reads on replicas (workload.reads: replicas): select-only only reads, so
// a client given replicas (workload.ClientInfo.Replicas) sends each of its
// select-only transactions to the next replica in turn, each over a
// statement prepared there as on its own connection. tpcb-like and
// simple-update write: they stay on the primary.

// ReadOnly says select-only is read-only (workload.ReadOnly).
func (w *Workload) ReadOnly(txn string) bool { return txn == SelectOnly }

// replica is a client's connection to one replica: its wire, the
// select-only statement prepared there, and its context watch.
type replica struct {
	pg            *pgconn.PgConn
	wire          workload.Wire
	selectAccount statement
	watch         workload.Watcher
}

// addReplicas prepares select-only's statement on each replica
// connection; the rotation starts at the client's index, so that a
// tenant's clients spread over the replicas.
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int) error {
	for _, rc := range conns {
		conn, ok := workload.PG(rc)
		if !ok {
			return workload.NoForm(Name, rc)
		}
		r := replica{pg: conn.PgConn()}
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+"select_account", sqlSelectAccount)
		if err != nil {
			return fmt.Errorf("tpcb: prepare %q on a replica: %w", sqlSelectAccount, err)
		}
		if err := r.selectAccount.init(sd); err != nil {
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

// selectOnReplica runs select-only on the next replica.
func (c *Client) selectOnReplica(ctx context.Context) error {
	r := &c.replicas[c.nextReplica]
	c.nextReplica = (c.nextReplica + 1) % len(c.replicas)
	if err := r.watch.Watch(ctx, r.pg); err != nil {
		return err
	}
	r.selectAccount.set(0, c.random(1, c.accounts))
	if err := r.wire.RoundTrip(r.selectAccount.sd.Name, r.selectAccount.params, (*balanceRow)(&c.balance)); err != nil {
		return r.wire.Fail(ctx, err)
	}
	return nil
}
