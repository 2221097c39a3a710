package tpcb

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wire speaks the extended query protocol on an idle pgconn.PgConn through
// its pgproto3.Frontend, as libpq's PQexecPrepared does for pgbench: Bind,
// Execute and Sync in one write, then the replies up to ReadyForQuery. It
// skips what pgconn adds per statement (a timer against write deadlocks,
// a context watch, a Describe, a command tag string), so that a statement
// costs the driver its two system calls and no allocation.
type wire struct {
	pg       *pgconn.PgConn
	fe       *pgproto3.Frontend
	bind     pgproto3.Bind
	execute  pgproto3.Execute
	sync     pgproto3.Sync
	txStatus byte // of the last ReadyForQuery
}

func newWire(pg *pgconn.PgConn, binaryFormat []int16) wire {
	return wire{
		pg:       pg,
		fe:       pg.Frontend(),
		bind:     pgproto3.Bind{ParameterFormatCodes: binaryFormat, ResultFormatCodes: binaryFormat},
		txStatus: pg.TxStatus(),
	}
}

// roundTrip executes s with its current parameters in one round trip. When
// the statement returns a row of one int4 column, its value goes to *dst
// (if dst is not nil). It returns the statement's *pgconn.PgError, or an
// I/O error after which the connection is closed.
func (w *wire) roundTrip(s *statement, dst *int32) error {
	w.bind.PreparedStatement = s.sd.Name
	w.bind.Parameters = s.params
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
			if dst != nil && len(m.Values) == 1 && len(m.Values[0]) == 4 {
				*dst = int32(binary.BigEndian.Uint32(m.Values[0]))
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

// broken closes a connection whose protocol state is lost.
func (w *wire) broken(err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = w.pg.Close(ctx)
	return err
}
