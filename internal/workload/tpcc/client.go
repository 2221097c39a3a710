package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Client is one terminal (clause 5.2): it has a home warehouse and a
// district of its own, deals the transaction types from a shuffled deck and
// runs each transaction with the input the specification draws for it.
type Client struct {
	// session is the connection the terminal runs on, the primary; a
	// read-only transaction sent to a replica swaps in the replica's
	// for its time (replicas.go).
	session
	// replicas are the terminal's sessions on the replicas of its
	// server (workload.reads: replicas), taken in turn; nextReplica is
	// the one whose turn it is.
	replicas    []session
	nextReplica int
	// maria is the MariaDB session of a terminal of the MariaDB form
	// (mariadb_client.go); nil on PostgreSQL.
	maria *mariaConn
	r     rng
	k     constants

	warehouses int
	// first is the offset of the tenant's warehouse numbers: its
	// warehouses are first+1 .. first+warehouses (0 but in shared tables).
	first int
	// home and district are the terminal's warehouse and the district its
	// Stock-Levels use (clause 2.8.1.1); with all_warehouses the home
	// warehouse moves on by one every transaction.
	home, district int
	allWarehouses  bool
	turn           int
	pacing         bool
	// interaction is Options.Interaction: how each transaction is sent,
	// in the form of the terminal's engine and interaction.
	interaction string
	form        form
	// named are the customers of one last name (interaction statements).
	named [customersPerD]int32

	deck  []int
	dealt int

	maxRetries int
	retries    [numTxns]int64
	counts     Counts

	newOrder    newOrderTxn
	payment     paymentTxn
	orderStatus orderStatusTxn
	delivery    deliveryTxn
	stockLevel  stockLevelTxn
	// txns are the five above, indexed by type.
	txns [numTxns]txn
}

var (
	_ workload.Client  = (*Client)(nil)
	_ workload.Retrier = (*Client)(nil)
	_ workload.Auditor = (*Workload)(nil)
)

// Terminal is the home warehouse and district of client index of clients
// over warehouses: client i gets warehouse (i mod W) + 1, and the clients
// of one warehouse spread evenly over its 10 districts (with 10 clients
// per warehouse, as clause 4.2.2 has it, each district has one terminal).
func Terminal(index, clients, warehouses int) (warehouse, district int) {
	if clients < 1 {
		clients = 1
	}
	index %= clients
	if index < 0 {
		index += clients
	}
	wi := index % warehouses
	rank := index / warehouses
	n := clients / warehouses
	if wi < clients%warehouses {
		n++
	}
	return wi + 1, rank*districtsPerW/n + 1
}

// NewClient prepares a terminal on conn: its statements, its isolation
// level, its home warehouse and district from c (see Terminal) and its
// random stream from c.Seed.
func (w *Workload) NewClient(ctx context.Context, wc workload.Conn, c workload.ClientInfo) (workload.Client, error) {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaClient(ctx, mc, c)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return nil, workload.NoForm(Name, wc)
	}
	cl := w.newClient(c)
	cl.form = pgForms[cl.interaction]
	var err error
	if cl.session, err = cl.open(ctx, conn, w.opts.Isolation); err != nil {
		return nil, err
	}
	if err := cl.addReplicas(ctx, c.Replicas, c.Index, w.opts.Isolation, workload.Unnamed(conn)); err != nil {
		return nil, err
	}
	w.clientsMu.Lock()
	w.clients = append(w.clients, cl)
	w.clientsMu.Unlock()
	return cl, nil
}

// open readies conn as a session of the terminal: its isolation level,
// its BEGIN, COMMIT and ROLLBACK, and its form's statements (prepared
// into the terminal's transactions, by the same names on every
// connection).
func (cl *Client) open(ctx context.Context, conn *pgx.Conn, level string) (session, error) {
	s := session{pg: conn.PgConn()}
	s.p = newPipe(s.pg)
	// The isolation level goes with each BEGIN: a session's
	// characteristics would stay on one server connection behind a pooler
	// in transaction mode, while the client's transactions move between
	// them. A procedure's call has no BEGIN: it runs in the session's
	// level, which such a pooler cannot keep (SessionState).
	isolation := isolationSQL(level)
	if cl.interaction == InteractionProcedures {
		if err := s.pg.Exec(ctx, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+isolation).Close(); err != nil {
			return s, fmt.Errorf("tpcc: set the isolation level: %w", err)
		}
	}
	if err := prepareAll(ctx, conn, []stmtSQL{
		{&s.begin, "begin", "BEGIN ISOLATION LEVEL " + isolation},
		{&s.commit, "commit", "COMMIT"},
		{&s.rollback, "rollback", "ROLLBACK"},
	}); err != nil {
		return s, err
	}
	if err := cl.form.prepare(cl, ctx, conn); err != nil {
		return s, err
	}
	if cl.interaction != InteractionBatched {
		// One statement per round trip: the wire's path (see pipe.wire).
		wire, err := workload.NewWire(ctx, s.pg)
		if err != nil {
			return s, fmt.Errorf("tpcc: %w", err)
		}
		s.p.wire = &wire
	}
	return s, nil
}

// newClient is a client without a connection: its choices only.
func (w *Workload) newClient(c workload.ClientInfo) *Client {
	home, district := Terminal(c.Index, c.Clients, w.warehouses)
	cl := &Client{
		r:             newRNG(c.Seed, 0x7465726d),
		k:             w.k,
		warehouses:    w.warehouses,
		first:         w.first,
		home:          w.first + home,
		district:      district,
		allWarehouses: w.opts.AllWarehouses,
		pacing:        w.opts.KeyingAndThinkTime,
		deck:          append([]int(nil), w.deck...),
		maxRetries:    w.opts.Retries,
		interaction:   w.opts.Interaction,
	}
	cl.dealt = len(cl.deck)
	cl.txns = [numTxns]txn{&cl.newOrder, &cl.payment, &cl.orderStatus, &cl.delivery, &cl.stockLevel}
	return cl
}

func isolationSQL(level string) string {
	switch level {
	case IsolationRepeatableRead:
		return "REPEATABLE READ"
	case IsolationSerializable:
		return "SERIALIZABLE"
	}
	return "READ COMMITTED"
}

// Pick deals the next card of the terminal's deck, shuffling a new deck
// when the last is dealt (clause 5.2.4.2).
func (c *Client) Pick() int {
	if c.dealt == len(c.deck) {
		for i := len(c.deck) - 1; i > 0; i-- {
			j := c.r.rand(0, i)
			c.deck[i], c.deck[j] = c.deck[j], c.deck[i]
		}
		c.dealt = 0
	}
	c.dealt++
	return c.deck[c.dealt-1]
}

// Run draws the input of one transaction of type typ and executes it. A
// serialization failure or a deadlock is retried with the same input up to
// the retries option, after a rollback; the New-Order rolled back on
// purpose returns workload.ErrRollback; any other error is returned as it
// came, after a rollback if the connection is still usable.
func (c *Client) Run(ctx context.Context, typ int) error {
	if len(c.replicas) > 0 && readOnly(typ) {
		return c.onReplica(ctx, typ)
	}
	return c.run(ctx, typ)
}

// run is Run on the terminal's current session.
func (c *Client) run(ctx context.Context, typ int) error {
	if c.maria == nil {
		if err := c.watch.Watch(ctx, c.pg); err != nil {
			return err
		}
	} else if err := c.maria.watch.WatchConn(ctx, c.maria.mc.Socket()); err != nil {
		return err
	}
	w := c.home
	if c.allWarehouses {
		w = c.first + (c.home-c.first-1+c.turn)%c.warehouses + 1
		c.turn++
	}
	if typ < 0 || typ >= numTxns {
		return fmt.Errorf("tpcc: no transaction type %d", typ)
	}
	c.txns[typ].draw(c, w)
	return c.runDrawn(ctx, typ)
}

// runDrawn executes the drawn transaction of type typ, retrying and
// counting it the same way in every interaction.
func (c *Client) runDrawn(ctx context.Context, typ int) error {
	for attempt := 0; ; attempt++ {
		err := c.execute(ctx, typ)
		if err == nil || err == workload.ErrRollback {
			c.counted(typ)
			return err
		}
		c.abort(ctx)
		if attempt < c.maxRetries && retryable(err) && !c.closed() && ctx.Err() == nil {
			c.retries[typ]++
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return errors.Join(ctxErr, err)
		}
		return err
	}
}

// execute runs the drawn transaction of type typ once, in the client's
// form.
func (c *Client) execute(ctx context.Context, typ int) error {
	return c.form.send(c.txns[typ], c)
}

// counted adds a finished transaction to the counts.
func (c *Client) counted(typ int) {
	c.counts.Txns[typ]++
	c.txns[typ].count(&c.counts)
}

// retryable says whether err is a serialization failure (40001) or a
// deadlock (40P01), or MariaDB's deadlock or lock wait timeout.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01") || mariaRetryable(err)
}

// closed says whether the terminal's connection is gone.
func (c *Client) closed() bool {
	if c.maria != nil {
		return c.maria.mc.IsClosed()
	}
	return c.pg.IsClosed()
}

// abort rolls back a transaction a failure left open, if the connection is
// still usable.
func (c *Client) abort(ctx context.Context) {
	if c.maria != nil {
		c.mariaAbort(ctx)
		return
	}
	if c.pg.IsClosed() || c.p.txStatus() == 'I' {
		return
	}
	if c.p.wire != nil {
		_ = c.p.alone(&c.rollback)
		return
	}
	c.p.send(&c.rollback)
	if c.p.flush() == nil {
		_ = c.p.end()
	}
}

// Retries are the retries per transaction type so far.
func (c *Client) Retries() []int64 { return append([]int64(nil), c.retries[:]...) }

// Counts are the terminal's observed rates so far (see Audit).
func (c *Client) Counts() Counts { return c.counts }

// other is a warehouse other than w drawn at random, for remote order
// lines (clause 2.4.1.5.2) and remote customers (clause 2.5.1.2); w itself
// when there is only one. It is always one of the tenant's own
// warehouses: in shared tables a tenant never touches another's rows.
func (c *Client) other(w int) int {
	if c.warehouses == 1 {
		return w
	}
	o := c.r.rand(1, c.warehouses-1)
	if o >= w-c.first {
		o++
	}
	return c.first + o
}
