package tpch

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Client is one query stream (clause 5.1.2.3): the queries in the
// stream's order (clause 5.3.5.4), each repeat_queries times in a row,
// with the stream's substitution parameters. Pick walks that sequence;
// Run executes one query, reads its rows and logs its start and end
// (workload.Streamer). When the sequence is done, Done reports true (the
// closed loop then stops the client: Erdelt and Rabl's (2026) T_s ends
// there); Pick would start it again.
type Client struct {
	pg      *pgconn.PgConn
	maria   *mariadb.Conn          // instead of pg, on MariaDB
	texts   [numQueries + 1]string // MariaDB's query texts, parameters in
	w       *Workload
	stream  int
	seed    int64
	params  queryParams
	args    [numQueries + 1][][]byte // params as bound, per query number
	seq     []int                    // types (indexes into w.queries), in run order
	st      *streamState
	rows    int64 // of the last query run
	timeout string
	// replicas take the queries in turn, next's first (replicas.go);
	// none: they run on pg.
	replicas []*pgconn.PgConn
	next     int
}

// streamState is where a stream is in its sequence and what it ran. Once
// SetTenant was called it belongs to the workload, one per stream, so that
// a client reconnected after a lost connection (a server killed for
// memory and restarted) goes on with the stream's next query instead of
// starting it again: the query that failed stays failed (lost).
type streamState struct {
	pos, passes int
	execs       []workload.Exec
}

var _ workload.Finisher = (*Client)(nil)
var _ workload.Client = (*Client)(nil)

// NewClient prepares stream n of the tenant on conn: n = first_stream +
// tenant x clients + ci.Index once SetTenant was called; before, a stream
// of first_stream..40 picked by ci.Seed, so that tenants differ (two may
// meet on one stream). Streams above 40 take the query order of stream
// n mod 41 (clause 5.3.5.4's comment: the ordered sets wrap around) and
// their own parameters (seed + n). The session's statement_timeout is the
// query timeout (on MariaDB each query's max_statement_time).
func (w *Workload) NewClient(ctx context.Context, wc workload.Conn, ci workload.ClientInfo) (workload.Client, error) {
	conn, ok := workload.PG(wc)
	mc, maria := mariadb.Of(wc)
	if !ok && !maria {
		return nil, workload.NoForm(Name, wc)
	}
	n, err := w.streamOf(ci)
	if err != nil {
		return nil, err
	}
	c := w.newClient(n)
	if w.tenant >= 0 {
		c.st = w.state(n, len(c.seq))
	}
	if maria {
		c.maria = mc
		for _, q := range w.queries {
			c.texts[q] = MariaDBQuery(q, c.params[q], w.opts.QueryTimeout.Seconds())
		}
		return c, nil
	}
	c.pg = conn.PgConn()
	if w.opts.QueryTimeout > 0 {
		c.timeout = fmt.Sprintf("set statement_timeout = %d", w.opts.QueryTimeout.Milliseconds())
		if err := c.pg.Exec(ctx, c.timeout).Close(); err != nil {
			return nil, fmt.Errorf("tpch: %s: %w", c.timeout, err)
		}
	}
	if err := c.addReplicas(ctx, ci.Replicas, ci.Index); err != nil {
		return nil, err
	}
	return c, nil
}

// streamOf is the stream number of client ci of the tenant.
func (w *Workload) streamOf(ci workload.ClientInfo) (int, error) {
	first := w.opts.FirstStream
	if w.tenant < 0 {
		return first + int(ci.Seed%uint64(maxStream-first+1)), nil
	}
	n := first + w.tenant*max(ci.Clients, 1) + ci.Index
	if w.opts.Seed+int64(n) >= rngM {
		return 0, fmt.Errorf("tpch: stream %d: seed %d + %d is not below 2^31 - 1", n, w.opts.Seed, n)
	}
	return n, nil
}

// newClient is stream n's client without a connection.
func (w *Workload) newClient(n int) *Client {
	c := &Client{w: w, stream: n, seed: w.opts.Seed + int64(n), st: &streamState{}}
	c.params = qgenParams(c.seed, w.z.sf)
	for q := 1; q <= numQueries; q++ {
		for _, p := range c.params[q] {
			c.args[q] = append(c.args[q], []byte(p))
		}
	}
	typeOf := map[int]int{}
	for i, q := range w.queries {
		typeOf[q] = i
	}
	if w.opts.Refresh {
		c.seq = append(c.seq, len(w.queries)) // RF1 first (clause 5.3)
	}
	for _, q := range streamOrder(n, w.queries) {
		for range w.opts.RepeatQueries {
			c.seq = append(c.seq, typeOf[q])
		}
	}
	if w.opts.Refresh {
		c.seq = append(c.seq, len(w.queries)+1) // RF2 last
	}
	return c
}

// Stream is the client's stream number.
func (c *Client) Stream() int { return c.stream }

// Done says whether the client has run its whole sequence at least once.
func (c *Client) Done() bool { return c.st.passes > 0 }

// Pick is the next query of the stream's sequence (an index into
// TxnNames).
func (c *Client) Pick() int {
	st := c.st
	t := c.seq[st.pos]
	st.pos++
	if st.pos == len(c.seq) {
		st.pos = 0
		st.passes++
	}
	return t
}

// Run executes query typ with the stream's parameters and reads every row
// it returns. An SQL error is returned as the server's *pgconn.PgError
// (a query cancelled by the timeout has SQLSTATE 57014), on MariaDB as
// its *mysql.MySQLError (error 1969).
func (c *Client) Run(ctx context.Context, typ int) error {
	if typ >= len(c.w.queries) {
		return c.refresh(ctx, typ-len(c.w.queries))
	}
	q := c.w.queries[typ]
	start := time.Now()
	var err error
	if c.maria != nil {
		c.rows, err = c.mariaQuery(ctx, q)
	} else {
		rr := c.queryConn().ExecParams(ctx, QueryText(q), c.args[q], nil, nil, nil)
		n := int64(0)
		for rr.NextRow() {
			n++
		}
		c.rows = n
		_, err = rr.Close()
	}
	e := workload.Exec{Query: queryName(q), Start: start, End: time.Now()}
	if err != nil {
		e.Err = err.Error()
	}
	c.st.execs = append(c.st.execs, e)
	return err
}

// refresh runs RF1 (f 0) or RF2 (f 1) of the stream's refresh set and
// logs it as the queries are logged.
func (c *Client) refresh(ctx context.Context, f int) error {
	k := refreshSetOf(c.stream)
	start := time.Now()
	var err error
	name := rf1Name
	switch {
	case f == 0 && c.maria != nil:
		err = c.w.mariaRF1(ctx, c.maria, k)
	case f == 0:
		err = c.w.rf1(ctx, c.pg, k)
	case c.maria != nil:
		name = rf2Name
		err = c.w.mariaRF2(ctx, c.maria, k)
	default:
		name = rf2Name
		err = c.w.rf2(ctx, c.pg, k)
	}
	e := workload.Exec{Query: name, Start: start, End: time.Now(), Refresh: true}
	if err != nil {
		e.Err = err.Error()
	}
	c.st.execs = append(c.st.execs, e)
	return err
}

// Params are the substitution parameters of query q (1..22) in this
// stream, as qgen would print them.
func (c *Client) Params(q int) []string { return c.params[q] }
