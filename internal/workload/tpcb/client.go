package tpcb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Client is one pgbench client: it picks a built-in script by weight and runs
// it as "pgbench -M prepared" does, one statement per round trip (BEGIN and
// END included), each a prepared statement.
//
// The hot path speaks the protocol itself (see workload.Wire): statements
// prepared once, parameters encoded in binary into buffers allocated once,
// results read in place, and the context watched once per context rather
// than once per statement. A transaction allocates nothing.
type Client struct {
	pg *pgconn.PgConn
	// choose draws the scripts (pgbench's per-thread ts_choose_rs), draw the
	// random values of \set (pgbench's per-client cs_func_rs).
	choose, draw *rand.Rand
	kinds        []script
	weights      []int64
	total        int64
	// Sizes of the random ranges: 100000, 1 and 10 times the scale.
	accounts, branches, tellers int64

	begin, end, updateAccount, selectAccount, updateTeller, updateBranch, insertHistory statement

	// balance is the abalance the last SELECT returned.
	balance int32

	watch workload.Watcher
	wire  workload.Wire
	// maria is the connection of MariaDB's form (mariadb.go); nil for
	// PostgreSQL's. readBalance reads its SELECT's row into balance.
	maria       *mariadb.Conn
	readBalance func(mariadb.Row)
	// replicas take the select-only transactions in turn
	// (replicas.go); none: they run on pg.
	replicas workload.Replicas[statement]
}

var _ workload.Client = (*Client)(nil)

// Looped: every statement of a transaction, and the ROLLBACK after a
// failed one, goes through the Wire or MariaDB's statements, whose waits
// a rawsock.Loop can take.
func (*Client) Looped() bool { return true }

// statement is a prepared statement and its parameter buffers, one per
// parameter, sized by the parameter's type (int4 or int8).
type statement struct {
	sd     *pgconn.StatementDescription
	params [][]byte
	// MariaDB's form: the prepared statement and its arguments, or the
	// text of a statement sent unprepared (BEGIN, COMMIT).
	stmt *mariadb.Stmt
	args []any
	text string
}

// set writes v into parameter i in the parameter's binary format.
func (s *statement) set(i int, v int64) {
	p := s.params[i]
	if len(p) == 8 {
		binary.BigEndian.PutUint64(p, uint64(v))
	} else {
		binary.BigEndian.PutUint32(p, uint32(int32(v)))
	}
}

// Statement names; pgx.Conn.Prepare returns the existing statement when a
// second client prepares the same name and text on one connection.
const stmtPrefix = "tenantbench_tpcb_"

// NewClient prepares the scripts' statements on conn. ci.Seed drives the
// script choice and the random values; the same seed gives the same
// transactions. pgbench clients are not bound to data, so the client's
// index does not matter.
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
	for _, p := range []struct {
		s        *statement
		name, sq string
	}{
		{&c.begin, "begin", sqlBegin},
		{&c.end, "end", sqlEnd},
		{&c.updateAccount, "update_account", sqlUpdateAccount},
		{&c.selectAccount, "select_account", sqlSelectAccount},
		{&c.updateTeller, "update_teller", sqlUpdateTeller},
		{&c.updateBranch, "update_branch", sqlUpdateBranch},
		{&c.insertHistory, "insert_history", sqlInsertHistory},
	} {
		sd, err := workload.Prepare(ctx, conn, stmtPrefix+p.name, p.sq)
		if err != nil {
			return nil, fmt.Errorf("tpcb: prepare %q: %w", p.sq, err)
		}
		if err := p.s.init(sd); err != nil {
			return nil, err
		}
		sds = append(sds, sd)
	}
	var err error
	if c.wire, err = workload.NewWire(ctx, c.pg); err != nil {
		return nil, fmt.Errorf("tpcb: %w", err)
	}
	if workload.Unnamed(conn) {
		c.wire.Unnamed(sds...) // behind a pooler that cannot keep them
	}
	if err := c.addReplicas(ctx, ci.Replicas, ci.Index); err != nil {
		return nil, err
	}
	return c, nil
}

// RunsUnnamed: its statements go through workload.Prepare and Wire,
// which send them unnamed behind a pooler that cannot keep named ones.
func (w *Workload) RunsUnnamed() bool { return true }

// newClient is a client without a connection: its choices only.
func (w *Workload) newClient(seed uint64) *Client {
	c := &Client{
		choose:   workload.Rand(seed),
		draw:     workload.Rand(seed ^ 0x5851f42d4c957f2d),
		kinds:    w.kinds,
		weights:  w.weights,
		accounts: w.scale * accountsPerScale,
		branches: w.scale * branchesPerScale,
		tellers:  w.scale * tellersPerScale,
	}
	for _, wt := range w.weights {
		c.total += wt
	}
	return c
}

// init allocates the statement's parameter buffers from its description.
func (s *statement) init(sd *pgconn.StatementDescription) error {
	s.sd = sd
	size := 0
	for _, oid := range sd.ParamOIDs {
		switch oid {
		case int4OID:
			size += 4
		case int8OID:
			size += 8
		default:
			return fmt.Errorf("tpcb: %q: parameter of type oid %d, want int or bigint", sd.SQL, oid)
		}
	}
	buf := make([]byte, size)
	s.params = make([][]byte, len(sd.ParamOIDs))
	for i, oid := range sd.ParamOIDs {
		n := 4
		if oid == int8OID {
			n = 8
		}
		s.params[i], buf = buf[:n:n], buf[n:]
	}
	return nil
}

const (
	int4OID = 23
	int8OID = 20
)

// Pick chooses a script by weight as pgbench's chooseScript does: a uniform
// draw in [0, total weight) walked down the scripts' weights.
func (c *Client) Pick() int {
	if len(c.kinds) == 1 {
		return 0
	}
	w := c.choose.Int64N(c.total)
	i := 0
	for w -= c.weights[i]; w >= 0; w -= c.weights[i] {
		i++
	}
	return i
}

// Run executes one transaction of script typ (an index into TxnNames).
// A failed statement inside BEGIN ... END is followed by a ROLLBACK when the
// connection is still usable; the statement's error is returned unchanged
// (a *pgconn.PgError for an SQL error), joined with the context's error when
// the context ended the transaction.
func (c *Client) Run(ctx context.Context, typ int) error {
	if c.maria == nil {
		if err := c.watch.Watch(ctx, c.pg); err != nil {
			return err
		}
	} else if err := c.watch.WatchConn(ctx, c.maria.Socket()); err != nil {
		return err
	}
	var err error
	switch c.kinds[typ] {
	case scriptTPCBLike:
		err = c.tpcbLike()
	case scriptSimpleUpdate:
		err = c.simpleUpdate()
	case scriptSelectOnly:
		if c.replicas.Len() > 0 {
			return c.selectOnReplica(ctx)
		}
		err = c.selectOnly()
	}
	if err != nil && c.maria != nil {
		return c.mariaFail(ctx, err)
	}
	if err != nil {
		return c.wire.Fail(ctx, err)
	}
	return nil
}

// random is pgbench's random(min, max): uniform, both ends included.
func (c *Client) random(min, max int64) int64 {
	return min + c.draw.Int64N(max-min+1)
}

// exec runs s with its current parameters and discards its result.
func (c *Client) exec(s *statement) error {
	if c.maria != nil {
		return c.mariaRun(s, false)
	}
	return c.wire.RoundTrip(s.sd.Name, s.params, nil)
}

// query runs s, a SELECT abalance, and keeps the balance it returns.
func (c *Client) query(s *statement) error {
	if c.maria != nil {
		return c.mariaRun(s, true)
	}
	return c.wire.RoundTrip(s.sd.Name, s.params, (*balanceRow)(&c.balance))
}

// balanceRow reads a row of one int4 column into the int32 it points to.
// A pointer in an interface costs no allocation.
type balanceRow int32

func (b *balanceRow) ReadRow(values [][]byte) {
	if len(values) == 1 && len(values[0]) == 4 {
		*b = balanceRow(int32(binary.BigEndian.Uint32(values[0])))
	}
}
