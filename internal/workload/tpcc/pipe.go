package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// pipe sends several prepared statements in one round trip (the extended
// query protocol's pipelining: Bind and Execute per statement, one Sync)
// and reads their results in order, without allocating: the messages,
// their buffers and the parameter buffers are reused from one transaction
// to the next.
//
// A transaction is one or two round trips: BEGIN, its statements and
// COMMIT go together whenever no statement depends on the result of
// another (clause 2 leaves the division of the work into statements to the
// implementation). After an error the server skips the statements left
// until the Sync, so a failed transaction is never committed; the caller
// rolls back.
//
// pipe writes through the connection's pgproto3.Frontend and reads with
// PgConn.ReceiveMessage, so pgconn keeps track of the transaction status
// and of notices. An I/O error closes the connection.
type pipe struct {
	pg   *pgconn.PgConn
	fe   *pgproto3.Frontend
	bind pgproto3.Bind
	exec pgproto3.Execute
	sync pgproto3.Sync

	pending int   // statements whose results are not read yet
	err     error // the first error of the round trip
	ready   bool  // the round trip's ReadyForQuery is read
	// values is the current row (valid until the next call to next); rows
	// the rows the last finished statement affected or returned.
	values [][]byte
	rows   int64

	// wire, when set, carries every round trip of one statement (one and
	// alone, the interactions statements and procedures) as tpcb's do:
	// Bind, Execute and Sync in one write and the replies read from the
	// socket itself, skipping pgconn's per-message work. The rows are
	// buffered (rowBuf) and next reads them from there. The batched
	// interaction, which pipelines, never sets it.
	wire     *workload.Wire
	buf      rowBuf
	buffered bool // the last round trip's rows are in buf
}

var binaryFormat = []int16{1}

func newPipe(pg *pgconn.PgConn) pipe {
	return pipe{
		pg: pg, fe: pg.Frontend(),
		bind: pgproto3.Bind{ParameterFormatCodes: binaryFormat, ResultFormatCodes: binaryFormat},
	}
}

// send queues s with its current parameters.
func (p *pipe) send(s *stmt) {
	p.bind.PreparedStatement = s.name
	if s.parse != nil {
		// Unnamed: each statement of the round trip replaces the last
		// (Parse, Bind, Execute in turn; the server runs them in order).
		p.fe.SendParse(s.parse)
		p.bind.PreparedStatement = ""
	}
	p.bind.Parameters = s.params
	p.fe.SendBind(&p.bind)
	p.fe.SendExecute(&p.exec)
	p.pending++
}

// alone sends s as a round trip of its own and reads it to its end: a
// statement whose result the caller does not need (BEGIN, COMMIT, an
// INSERT).
func (p *pipe) alone(s *stmt) error {
	if err := p.one(s); err != nil {
		return err
	}
	return p.end()
}

// one sends s as a round trip of its own; the caller reads its rows with
// next, then calls end.
func (p *pipe) one(s *stmt) error {
	if p.wire != nil {
		if s.parse != nil && !s.wired {
			p.wire.Unnamed(s.sd)
			s.wired = true
		}
		p.buf.reset()
		p.err = p.wire.RoundTrip(s.name, s.params, &p.buf)
		p.buffered, p.pending, p.ready = true, 0, true
		return nil
	}
	p.send(s)
	return p.flush()
}

// txStatus is the transaction status after the last round trip: 'I' idle,
// 'T' in a transaction block, 'E' in a failed one.
func (p *pipe) txStatus() byte {
	if p.wire != nil {
		return p.wire.TxStatus()
	}
	return p.pg.TxStatus()
}

// flush ends the round trip's statements with a Sync and sends them.
func (p *pipe) flush() error {
	p.err, p.ready = nil, false
	p.fe.SendSync(&p.sync)
	if err := p.fe.Flush(); err != nil {
		return p.broken(err)
	}
	return nil
}

// next advances to the next row of the current statement. It returns false
// when the statement is done (then rows says how many rows it affected or
// returned) or failed. Each sent statement's rows are read in turn:
//
//	for p.next() { ... p.values ... }
func (p *pipe) next() bool {
	if p.buffered {
		return p.buf.next(&p.values)
	}
	if p.pending == 0 {
		return false
	}
	for {
		msg, err := p.pg.ReceiveMessage(context.Background())
		if err != nil {
			p.broken(err)
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			p.values = m.Values
			return true
		case *pgproto3.CommandComplete:
			p.rows = tagRows(m.CommandTag)
			p.pending--
			return false
		case *pgproto3.EmptyQueryResponse:
			p.rows = 0
			p.pending--
			return false
		case *pgproto3.ErrorResponse:
			// The server skips the rest until the Sync.
			p.err = pgconn.ErrorResponseToPgError(m)
			p.pending = 0
			return false
		case *pgproto3.ReadyForQuery:
			p.pending, p.ready = 0, true
			if p.err == nil {
				p.err = fmt.Errorf("tpcc: the server ended the round trip before every result was read")
			}
			return false
		}
		// ParseComplete, BindComplete, and messages pgconn has handled
		// (notices).
	}
}

// skip reads the current statement's result to its end.
func (p *pipe) skip() {
	for p.next() {
	}
}

// end reads what is left of the round trip up to the server's
// ReadyForQuery and returns its first error.
func (p *pipe) end() error {
	if p.buffered {
		p.buffered = false
		return p.err
	}
	for p.pending > 0 {
		p.skip()
	}
	if p.ready || p.pg.IsClosed() {
		return p.err
	}
	for {
		msg, err := p.pg.ReceiveMessage(context.Background())
		if err != nil {
			return p.broken(err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			p.ready = true
			return p.err
		}
	}
}

// broken records an I/O error and closes the connection: the protocol
// state is lost.
func (p *pipe) broken(err error) error {
	if p.err == nil {
		p.err = err
	}
	p.pending, p.ready = 0, true
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = p.pg.Close(ctx)
	cancel()
	return p.err
}

// tagRows is the row count at the end of a command tag ("UPDATE 1",
// "INSERT 0 1", "SELECT 5"); 0 when there is none.
func tagRows(tag []byte) int64 {
	var n int64
	mul := int64(1)
	for i := len(tag) - 1; i >= 0; i-- {
		c := tag[i]
		if c < '0' || c > '9' {
			break
		}
		n += int64(c-'0') * mul
		mul *= 10
	}
	return n
}

// rowBuf keeps the rows of one statement that workload.Wire hands over
// (valid only during its call) until the caller reads them: the values'
// bytes in one slab, their bounds apart, reused from one round trip to the
// next so that reading allocates nothing once the buffers have grown.
type rowBuf struct {
	data   []byte
	bounds []int32 // per value: start and end in data; -1, -1 for NULL
	starts []int32 // per row: its first value's index in bounds / 2
	cur    [][]byte
	read   int
}

var _ workload.RowReader = (*rowBuf)(nil)

func (b *rowBuf) reset() {
	b.data, b.bounds, b.starts, b.read = b.data[:0], b.bounds[:0], b.starts[:0], 0
}

// ReadRow copies one row.
func (b *rowBuf) ReadRow(values [][]byte) {
	b.starts = append(b.starts, int32(len(b.bounds)/2))
	for _, v := range values {
		if v == nil {
			b.bounds = append(b.bounds, -1, -1)
			continue
		}
		start := len(b.data)
		b.data = append(b.data, v...)
		b.bounds = append(b.bounds, int32(start), int32(len(b.data)))
	}
}

// next sets *values to the next row, false when there is none.
func (b *rowBuf) next(values *[][]byte) bool {
	if b.read >= len(b.starts) {
		return false
	}
	from, to := int(b.starts[b.read]), len(b.bounds)/2
	if b.read+1 < len(b.starts) {
		to = int(b.starts[b.read+1])
	}
	b.read++
	b.cur = b.cur[:0]
	for k := from; k < to; k++ {
		s, e := b.bounds[2*k], b.bounds[2*k+1]
		if s < 0 {
			b.cur = append(b.cur, nil)
		} else {
			b.cur = append(b.cur, b.data[s:e:e])
		}
	}
	*values = b.cur
	return true
}
