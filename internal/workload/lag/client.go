package lag

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// The operations (Zhang et al. 2025, Table II: T1 inserts an order line,
// T2 updates, T4 deletes one), each one statement committed on its own,
// and the reads that find the change on a replica.
const (
	sqlInsert = `INSERT INTO lag_rows (owner, pad) VALUES ($1, repeat('y', 80)) RETURNING id, v`
	// The client's first row from a random id on (its first row at all
	// when none lies above), one more update of it.
	sqlUpdate = `UPDATE lag_rows SET v = v + 1 WHERE id = coalesce(
 (SELECT id FROM lag_rows WHERE owner = $1 AND id >= $2 ORDER BY id LIMIT 1),
 (SELECT min(id) FROM lag_rows WHERE owner = $1)) RETURNING id, v`
	sqlDelete = `DELETE FROM lag_rows WHERE id = (SELECT min(id) FROM lag_rows WHERE owner = $1) RETURNING id, v`
	sqlRead   = `SELECT v FROM lag_rows WHERE id = $1`
)

// errNoReplica: the client was given no replica to read (the plan
// refuses a run without).
var errNoReplica = errors.New("lag: no replica to read the change from (sut.replicas must be at least 1)")

type client struct {
	w        *Workload
	conn     *pgx.Conn
	replicas []*pgx.Conn
	next     int
	owner    int
	rand     *rand.Rand
	total    int
}

// NewClient prepares one client on conn, reading the replicas of
// ci.Replicas in turn from the one its index names.
func (w *Workload) NewClient(ctx context.Context, wc workload.Conn, ci workload.ClientInfo) (workload.Client, error) {
	conn, ok := workload.PG(wc)
	if !ok {
		return nil, workload.NoForm(Name, wc)
	}
	if len(ci.Replicas) == 0 {
		return nil, errNoReplica
	}
	c := &client{w: w, conn: conn, owner: ci.Index % owners, rand: workload.Rand(ci.Seed)}
	for _, rc := range ci.Replicas {
		r, ok := workload.PG(rc)
		if !ok {
			return nil, workload.NoForm(Name, rc)
		}
		c.replicas = append(c.replicas, r)
	}
	c.next = ci.Index % len(c.replicas)
	for _, s := range w.share {
		c.total += s
	}
	return c, nil
}

// Pick draws an operation by its share.
func (c *client) Pick() int {
	n := c.rand.IntN(c.total)
	for i, s := range c.w.share {
		if n < s {
			return i
		}
		n -= s
	}
	return len(c.w.share) - 1
}

// Run commits one operation on the primary, then reads the next replica
// until the change shows there and records how long that took. A change
// of nothing (an update or delete that found no row of the client's) is
// committed and not measured.
func (c *client) Run(ctx context.Context, typ int) error {
	kind := c.w.kinds[typ]
	var id, v int64
	var err error
	switch kind {
	case Insert:
		err = c.conn.QueryRow(ctx, sqlInsert, c.owner).Scan(&id, &v)
	case Update:
		err = c.conn.QueryRow(ctx, sqlUpdate, c.owner, 1+c.rand.Int64N(c.w.rows)).Scan(&id, &v)
	case Delete:
		err = c.conn.QueryRow(ctx, sqlDelete, c.owner).Scan(&id, &v)
	}
	committed := time.Now()
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	r := c.next
	c.next = (c.next + 1) % len(c.replicas)
	lag, err := c.await(ctx, c.replicas[r], kind, id, v, committed)
	if err != nil {
		return fmt.Errorf("replica %d: %w", r+1, err)
	}
	c.w.record(typ, r, committed, lag)
	return nil
}

// await reads the row on rep until the change shows: the row there
// (insert), with v at least the committed one (update), or gone
// (delete). The lag ends when the read that sees it returns.
func (c *client) await(ctx context.Context, rep *pgx.Conn, kind string, id, v int64, committed time.Time) (time.Duration, error) {
	deadline := committed.Add(c.w.opts.Timeout)
	for {
		var got int64
		err := rep.QueryRow(ctx, sqlRead, id).Scan(&got)
		now := time.Now()
		found := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, err
		}
		switch {
		case kind == Insert && found, kind == Update && found && got >= v, kind == Delete && !found:
			return now.Sub(committed), nil
		}
		if now.After(deadline) {
			return 0, fmt.Errorf("lag: the %s of row %d did not show within %v", kind, id, c.w.opts.Timeout)
		}
		if p := c.w.opts.Poll; p > 0 {
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(p):
			}
		}
	}
}
