package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Reads on replicas (workload.reads: replicas): Order-Status and
// Stock-Level only read (clauses 2.6 and 2.8), so a terminal given
// replicas (workload.ClientInfo.Replicas) sends each of them to the next
// replica in turn, in the interaction of its primary, over statements
// prepared there by the same names; New-Order, Payment and Delivery write
// and stay on the primary. A replica is a snapshot of the primary some
// replication lag ago: Order-Status may miss the customer's newest order
// and Stock-Level the district's newest lines, which TPC-C's isolation
// levels (clause 3.4) allow of no transaction run on the primary. A run
// with reads on replicas is therefore not TPC-C as clause 3 has it: the
// option is the user's (workload.reads is primary by default).

// session is one connection of a terminal: its wire, its context watch,
// and its BEGIN, COMMIT and ROLLBACK. The terminal's transactions hold
// their statements by name, prepared on each session alike.
type session struct {
	pg                      *pgconn.PgConn
	p                       pipe
	watch                   workload.Watcher
	begin, commit, rollback stmt
}

// ReadOnly says order_status and stock_level are read-only
// (workload.ReadOnly).
func (w *Workload) ReadOnly(txn string) bool {
	return txn == txnNames[OrderStatus] || txn == txnNames[StockLevel]
}

// readOnly is ReadOnly by transaction type.
func readOnly(typ int) bool { return typ == OrderStatus || typ == StockLevel }

// replicaNames is why a terminal's reads on replicas need the primary's
// statements named: a read-only transaction runs on a replica's session
// by the names its statements were prepared under there and on the
// primary, and an unnamed statement is registered with one wire only
// (stmt.wired), so it cannot move between sessions.
const replicaNames = "a read-only transaction moves to a replica's session by the names of its prepared statements"

// ReplicaReadsNamed: a terminal's statements move to its replica
// sessions by name (workload.NamedReplicaReads), whatever the
// interaction.
func (w *Workload) ReplicaReadsNamed() string { return replicaNames }

// addReplicas opens a session on each of conns (the terminal's
// replicas, none when its reads stay on the primary), in the primary's
// interaction, the rotation starting at the terminal's index so that a
// tenant's terminals spread over the replicas. A hot standby refuses
// SERIALIZABLE ("cannot use serializable mode in a hot standby"): the
// read-only transactions run there in REPEATABLE READ, the strongest
// level it has, which PostgreSQL gives a read-only transaction that
// would have been serializable.
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int, level string, unnamed bool) error {
	if len(conns) == 0 {
		return nil
	}
	if unnamed {
		// The plan refuses this (ReplicaReadsNamed); a plan made
		// before it did, or another caller, still finds out here.
		return fmt.Errorf("tpcc: reads on replicas are not supported behind a pooler that keeps no named statement: %s", replicaNames)
	}
	if level == IsolationSerializable {
		level = IsolationRepeatableRead
	}
	for _, rc := range conns {
		conn, ok := workload.PG(rc)
		if !ok {
			return workload.NoForm(Name, rc)
		}
		s, err := c.open(ctx, conn, level)
		if err != nil {
			return fmt.Errorf("tpcc: a replica: %w", err)
		}
		c.replicas = append(c.replicas, s)
	}
	c.nextReplica = index % len(c.replicas)
	return nil
}

// onReplica runs transaction typ (read-only) on the next replica: that
// replica's session stands in for the primary's while it runs, so that
// every form, the retries and the rollback of a failure act on it.
func (c *Client) onReplica(ctx context.Context, typ int) error {
	k := c.nextReplica
	c.nextReplica = (k + 1) % len(c.replicas)
	c.session, c.replicas[k] = c.replicas[k], c.session
	err := c.run(ctx, typ)
	c.session, c.replicas[k] = c.replicas[k], c.session
	return err
}
