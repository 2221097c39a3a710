package sales

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Client is one worker of the sales workload: it picks a transaction by the
// mix's ratios and runs it with prepared statements, one statement per
// round trip, T2's BEGIN and COMMIT included.
//
// The hot path is tpcb's (workload.Wire and workload.Watcher): parameters
// encoded in binary into buffers allocated once, results read in place, the
// context watched once per context. A transaction allocates nothing.
type Client struct {
	pg *pgconn.PgConn
	// maria, instead of pg, is the MariaDB connection (mariadb_client.go);
	// readMaria is mariaRow, bound once, and the mariaStmt, mariaRows and
	// mariaErr the statement under way's.
	maria     *mariadb.Conn
	readMaria func(mariadb.Row)
	mariaStmt *statement
	mariaRows workload.RowReader
	mariaErr  error
	// choose draws the transactions, draw their values: two streams, so
	// that changing the mix does not change the values of a transaction
	// type's n-th run.
	choose, draw *rand.Rand
	txns         []txn
	weights      []float64
	total        float64
	// orders and lines are the loaded ones; latest is the k of latest-k,
	// 0 for uniform.
	orders, lines, latest int64
	// gen prices T1's lines as the loaded ones are priced.
	gen generator

	begin, commit, insertLine, selectOrder, payOrder, creditCustomer, orderStatus, deleteLine statement

	order  orderRow  // what T2's SELECT returned
	status statusRow // what T3 returned

	watch workload.Watcher
	wire  workload.Wire
	// replicas take the order_status transactions in turn
	// (replicas.go); none: they run on pg.
	replicas workload.Replicas[statement]
}

var _ workload.Client = (*Client)(nil)

// Statement names; pgx.Conn.Prepare returns the existing statement when a
// second client prepares the same name and text on one connection.
const stmtPrefix = "tenantbench_sales_"

// NewClient prepares the transactions' statements on conn. ci.Seed drives
// the choice of transactions and their values: the same seed gives the
// same transactions. Clients are not bound to data, so ci.Index does not
// matter.
func (w *Workload) NewClient(ctx context.Context, wc workload.Conn, ci workload.ClientInfo) (workload.Client, error) {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaClient(ctx, mc, ci)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return nil, workload.NoForm(Name, wc)
	}
	c := w.newClient(ci.Seed)
	c.pg = conn.PgConn()
	var sds []*pgconn.StatementDescription
	for _, p := range c.statements() {
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+p.name, p.sql)
		if err != nil {
			return nil, fmt.Errorf("sales: prepare %q: %w", p.sql, err)
		}
		if err := p.s.init(sd, p.params); err != nil {
			return nil, err
		}
		sds = append(sds, sd)
	}
	var err error
	if c.wire, err = workload.NewWire(ctx, c.pg); err != nil {
		return nil, fmt.Errorf("sales: %w", err)
	}
	if workload.Unnamed(conn) {
		c.wire.Unnamed(sds...) // behind a pooler that cannot keep them
	}
	if err := c.addReplicas(ctx, ci.Replicas, ci.Index); err != nil {
		return nil, err
	}
	return c, nil
}

// statementDef is one of the client's statements: its name, SQL and
// parameter types.
type statementDef struct {
	s      *statement
	name   string
	sql    string
	params []uint32
}

// statements are the client's statements, the engines' forms alike.
func (c *Client) statements() []statementDef {
	return []statementDef{
		{&c.begin, "begin", sqlBegin, nil},
		{&c.commit, "commit", sqlCommit, nil},
		{&c.insertLine, "insert_orderline", sqlInsertOrderline, []uint32{int4OID, int4OID, int4OID, numericOID}},
		{&c.selectOrder, "select_order", sqlSelectOrder, []uint32{int4OID}},
		{&c.payOrder, "pay_order", sqlPayOrder, []uint32{timestamptzOID, int4OID}},
		{&c.creditCustomer, "credit_customer", sqlCreditCustomer, []uint32{numericOID, timestamptzOID, int4OID}},
		{&c.orderStatus, "order_status", sqlOrderStatus, []uint32{int4OID}},
		{&c.deleteLine, "delete_orderline", sqlDeleteOrderline, []uint32{int8OID}},
	}
}

// RunsUnnamed: its statements go through workload.Prepare and Wire,
// which send them unnamed behind a pooler that cannot keep named ones.
func (w *Workload) RunsUnnamed() bool { return true }

// newClient is a client without a connection: its choices only.
func (w *Workload) newClient(seed uint64) *Client {
	c := &Client{
		choose:  workload.Rand(seed),
		draw:    workload.Rand(seed ^ 0x5851f42d4c957f2d),
		txns:    w.txns,
		weights: w.weights,
		orders:  w.orders,
		lines:   w.lines,
		latest:  w.latest,
		gen:     newGenerator(w.opts.Seed, w.customers, w.orders),
		order:   orderRow{total: make([]byte, 0, 2*workload.MaxNumericSize)},
	}
	for _, wt := range w.weights {
		c.total += wt
	}
	return c
}

// Pick chooses a transaction by the mix's ratios: a uniform draw in
// [0, sum of the weights) walked down the weights.
func (c *Client) Pick() int {
	if len(c.txns) == 1 {
		return 0
	}
	r := c.choose.Float64() * c.total
	for i, w := range c.weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(c.weights) - 1 // rounding left r at the very top
}

// Looped: every statement, and the ROLLBACK after a failed one, goes
// through the Wire or MariaDB's statements, whose waits a rawsock.Loop
// can take.
func (c *Client) Looped() bool { return true }

// Run executes one transaction of type typ (an index into TxnNames). A
// failed statement inside T2's BEGIN ... COMMIT is followed by a ROLLBACK
// when the connection is still usable; the statement's error is returned
// unchanged (a *pgconn.PgError for an SQL error, on MariaDB a
// *mysql.MySQLError), joined with the context's error when the context
// ended the transaction.
func (c *Client) Run(ctx context.Context, typ int) error {
	if c.maria == nil {
		if err := c.watch.Watch(ctx, c.pg); err != nil {
			return err
		}
	} else if err := c.watch.WatchConn(ctx, c.maria.Socket()); err != nil {
		return err
	}
	var err error
	switch c.txns[typ] {
	case txnNewOrderline:
		err = c.newOrderline()
	case txnOrderPayment:
		err = c.orderPayment()
	case txnOrderStatus:
		if c.replicas.Len() > 0 {
			return c.orderStatusOnReplica(ctx)
		}
		err = c.orderStatusTxn()
	case txnOrderlineDeletion:
		err = c.orderlineDeletion()
	}
	if err != nil && c.maria != nil {
		return c.mariaFail(ctx, err)
	}
	if err != nil {
		return c.wire.Fail(ctx, err)
	}
	return nil
}

// pickOrder is the order T2 and T3 work on (section II-B.1): uniform over
// all orders, or uniform over the latest k, the k highest o_id, which are
// the k newest o_date.
func (c *Client) pickOrder() int64 {
	if c.latest > 0 {
		return c.orders - c.latest + 1 + c.draw.Int64N(c.latest)
	}
	return 1 + c.draw.Int64N(c.orders)
}

// exec runs s with its current parameters and discards any result.
func (c *Client) exec(s *statement) error { return c.roundTrip(s, nil) }

// roundTrip runs s with its current parameters; the row it returns, if
// any, goes to rows (nil: none read), in PostgreSQL's binary format on
// either engine.
func (c *Client) roundTrip(s *statement, rows workload.RowReader) error {
	if c.maria != nil {
		return c.mariaRoundTrip(s, rows)
	}
	return c.wire.RoundTrip(s.name, s.params, rows)
}

// Parameter type OIDs (pg_type).
const (
	int4OID        = 23
	int8OID        = 20
	numericOID     = 1700
	timestamptzOID = 1184
)

// statement is a prepared statement and its parameters in binary, each in
// a buffer of its own allocated once.
type statement struct {
	name   string
	oids   []uint32
	params [][]byte // what Bind sends: each a prefix of its buffer
	bufs   [][]byte // the buffers, at full capacity
	// maria is the statement prepared on MariaDB (nil for BEGIN and
	// COMMIT, sent as text), args its parameters; cols hold a row's
	// columns in PostgreSQL's binary format, vals what ReadRow is given
	// (a column of cols, or nil for NULL).
	maria      *mariadb.Stmt
	args       []any
	cols, vals [][]byte
}

// init checks that the server typed the parameters as the schema says and
// allocates their buffers.
func (s *statement) init(sd *pgconn.StatementDescription, want []uint32) error {
	if len(sd.ParamOIDs) != len(want) {
		return fmt.Errorf("sales: %q: %d parameters, want %d", sd.SQL, len(sd.ParamOIDs), len(want))
	}
	for i, oid := range sd.ParamOIDs {
		if oid != want[i] {
			return fmt.Errorf("sales: %q: parameter $%d of type oid %d, want %d", sd.SQL, i+1, oid, want[i])
		}
	}
	s.alloc(sd.Name, sd.ParamOIDs)
	return nil
}

// alloc names the statement and allocates its parameters' buffers.
func (s *statement) alloc(name string, oids []uint32) {
	s.name, s.oids = name, oids
	s.params = make([][]byte, len(oids))
	s.bufs = make([][]byte, len(oids))
	for i, oid := range oids {
		size := 8
		switch oid {
		case int4OID:
			size = 4
		case numericOID:
			size = 2 * workload.MaxNumericSize
		}
		s.bufs[i] = make([]byte, size)
		s.params[i] = s.bufs[i]
	}
}

// setInt sets parameter i, an int, bigint or timestamptz (microseconds).
func (s *statement) setInt(i int, v int64) {
	if s.oids[i] == int4OID {
		binary.BigEndian.PutUint32(s.bufs[i], uint32(int32(v)))
	} else {
		binary.BigEndian.PutUint64(s.bufs[i], uint64(v))
	}
}

// setNumeric sets parameter i, a numeric, to cents/100.
func (s *statement) setNumeric(i int, cents int64) {
	s.params[i] = workload.AppendNumeric(s.bufs[i][:0], cents, 2)
}

// setBinary sets parameter i to v, a value in the parameter's binary format.
func (s *statement) setBinary(i int, v []byte) {
	s.params[i] = append(s.bufs[i][:0], v...)
	if cap(s.params[i]) > cap(s.bufs[i]) {
		s.bufs[i] = s.params[i][:cap(s.params[i])] // grown: keep the larger buffer
	}
}
