package workload

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// Wire speaks the extended query protocol on an idle pgconn.PgConn through
// its pgproto3.Frontend, as libpq's PQexecPrepared does for pgbench: Bind,
// Execute and Sync in one write, then the replies up to ReadyForQuery. It
// skips what pgconn adds per statement (a timer against write deadlocks,
// a context watch, a Describe, a command tag string), so that a statement
// costs the driver its two system calls and no allocation. Parameters and
// results are in binary. Workloads whose clients run one prepared
// statement per round trip share it (tpcb, sales).
//
// On Linux it goes further, as pgbench does (send, poll, receive): it
// writes the request and reads the replies on the socket itself
// (wirefd.go), waiting for the reply before the first read. Go's own
// reads try the socket first, and right after a request that try almost
// always fails: a wasted system call per statement.
type Wire struct {
	pg       *pgconn.PgConn
	fe       *pgproto3.Frontend
	bind     pgproto3.Bind
	execute  pgproto3.Execute
	sync     pgproto3.Sync
	txStatus byte    // of the last ReadyForQuery
	fd       *fdWire // nil: through fe
	// unnamed are the statements sent unnamed, by name (unnamed.go);
	// parse is the current statement's, nil for a named one.
	unnamed map[string]*pgproto3.Parse
	parse   *pgproto3.Parse
}

// RowReader takes the rows a statement returns. values are the row's
// columns in binary, nil for NULL; they point into the connection's read
// buffer and are valid only during the call.
type RowReader interface {
	ReadRow(values [][]byte)
}

// allBinary is the format code list meaning "all binary" (one code applies
// to every parameter or column). It is only read.
var allBinary = []int16{pgx.BinaryFormatCode}

// NewWire prepares a Wire for pg, which must be idle. pgconn may have left
// its background reader waiting in a read of the socket (it starts one
// when a write takes over 15 ms, as on a loaded machine, and stops it only
// after that read returns), or bytes in its buffer: the reads on the
// socket itself would then wait for that read, or miss those bytes.
// PgConn.SyncConn ends both, with a ping when needed; no pgconn call
// follows on the connection while the Wire is in use.
func NewWire(ctx context.Context, pg *pgconn.PgConn) (Wire, error) {
	if err := pg.SyncConn(ctx); err != nil {
		return Wire{}, err
	}
	w := Wire{
		pg:       pg,
		fe:       pg.Frontend(),
		bind:     pgproto3.Bind{ParameterFormatCodes: allBinary, ResultFormatCodes: allBinary},
		txStatus: pg.TxStatus(),
	}
	sock := rawsock.SocketOf(pg.Conn())
	if sock == nil {
		sock = rawsock.NewSocket(pg.Conn())
	}
	if sock != nil {
		w.fd = newFdWire(sock)
	}
	return w, nil
}

// RoundTrip executes the prepared statement stmt with params (each in the
// binary format of its parameter's type) in one round trip; rows, if not
// nil, is given every row returned. It returns the statement's
// *pgconn.PgError, or an I/O error after which the connection is closed.
func (w *Wire) RoundTrip(stmt string, params [][]byte, rows RowReader) error {
	w.bind.PreparedStatement = stmt
	w.parse = nil
	if w.unnamed != nil {
		if p := w.unnamed[stmt]; p != nil {
			w.parse, w.bind.PreparedStatement = p, ""
		}
	}
	w.bind.Parameters = params
	if w.fd != nil {
		if err := w.fd.exchange(w, rows); err != nil {
			return w.broken(err)
		}
		return w.fd.pgErr
	}
	if w.parse != nil {
		w.fe.SendParse(w.parse)
	}
	w.fe.SendBind(&w.bind)
	w.fe.SendExecute(&w.execute)
	w.fe.SendSync(&w.sync)
	if err := w.fe.Flush(); err != nil {
		return w.broken(err)
	}
	var pgErr error
	for {
		msg, err := w.fe.Receive()
		if err != nil {
			return w.broken(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if rows != nil {
				rows.ReadRow(m.Values)
			}
		case *pgproto3.ErrorResponse:
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			w.txStatus = m.TxStatus
			return pgErr
		}
	}
}

// TxStatus is the transaction status of the last ReadyForQuery: 'I' idle,
// 'T' in a transaction block, 'E' in a failed one.
func (w *Wire) TxStatus() byte { return w.txStatus }

// Fail ends a transaction left open by a failed statement with a ROLLBACK,
// if the connection is still usable, and returns err unchanged, joined
// with the context's error when the context ended the transaction.
func (w *Wire) Fail(ctx context.Context, err error) error {
	if w.fd != nil && w.fd.pending() {
		// Bytes of a message the server sent unasked are in our buffer,
		// where pgconn would not find them: the protocol state is lost.
		_ = w.broken(errors.New("unfinished message"))
	}
	if !w.pg.IsClosed() && w.txStatus != 'I' {
		if w.fd != nil {
			// On the socket itself, as the statements went: a client on a
			// rawsock.Loop then waits for the reply on the Loop, not on
			// Go's netpoller, which would hold up the Loop's other
			// clients. The driver's watchdog bounds it, as any statement.
			w.parse, w.bind.PreparedStatement, w.bind.Parameters = &rollbackParse, "", nil
			if ferr := w.fd.exchange(w, nil); ferr != nil {
				_ = w.broken(ferr)
			}
		} else {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
			_ = w.pg.Exec(rctx, "ROLLBACK").Close()
			cancel()
			w.txStatus = w.pg.TxStatus()
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return errors.Join(ctxErr, err)
	}
	return err
}

// rollbackTimeout bounds the ROLLBACK after a failure, sent through pgx.
const rollbackTimeout = 10 * time.Second

// rollbackParse is ROLLBACK as the unnamed statement; only read.
var rollbackParse = pgproto3.Parse{Query: "ROLLBACK"}

// broken closes a connection whose protocol state is lost.
func (w *Wire) broken(err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = w.pg.Close(ctx)
	return err
}
