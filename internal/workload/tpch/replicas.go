package tpch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Reads on replicas (workload.reads: replicas): every one of the 22
// queries only reads (clause 2.1), so a stream given replicas
// (workload.ClientInfo.Replicas) sends each query to the next replica in
// turn, from the one its index names; the refresh functions write and
// stay on the primary. A long query on a hot standby may be cancelled
// by the replay of a change it conflicts with (SQLSTATE 40001, "conflict
// with recovery") once max_standby_streaming_delay (30 s by default)
// has passed: with refresh on, sut.settings' hot_standby_feedback: on
// keeps the primary from removing the rows the replica's queries read.

// ReadOnly says every query is read-only and the refresh functions are
// not (workload.ReadOnly).
func (w *Workload) ReadOnly(txn string) bool { return txn != rf1Name && txn != rf2Name }

// addReplicas readies each of conns (the stream's replicas) as the
// primary's connection is readied: its statement_timeout.
func (c *Client) addReplicas(ctx context.Context, conns []workload.Conn, index int) error {
	for _, rc := range conns {
		conn, ok := workload.PG(rc)
		if !ok {
			return workload.NoForm(Name, rc)
		}
		pg := conn.PgConn()
		if c.timeout != "" {
			if err := pg.Exec(ctx, c.timeout).Close(); err != nil {
				return fmt.Errorf("tpch: %s on a replica: %w", c.timeout, err)
			}
		}
		c.replicas = append(c.replicas, pg)
	}
	if len(c.replicas) > 0 {
		c.next = index % len(c.replicas)
	}
	return nil
}

// queryConn is the connection the next query goes to: the next replica
// in turn, or the primary without replicas.
func (c *Client) queryConn() *pgconn.PgConn {
	if len(c.replicas) == 0 {
		return c.pg
	}
	pg := c.replicas[c.next]
	c.next = (c.next + 1) % len(c.replicas)
	return pg
}
