package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// fdWire is Wire's exchange on the socket itself: one write of Bind,
// Execute and Sync, a wait for readability, reads until ReadyForQuery, as
// libpq does for pgbench. It runs inside syscall.RawConn.Read, which
// forgets any earlier readiness before its callback writes, so the
// reply's readiness cannot be missed, and which parks the goroutine on
// Go's poller between reads, or on the driver's rawsock.Loop when its
// client runs on one (rawsock.Socket). The replies are parsed in place (protocol
// messages: PostgreSQL docs, 55.7 "Message Formats"); nothing is
// allocated but on an error.
type fdWire struct {
	sock   *rawsock.Socket
	step   func(uintptr) bool // w.run, bound once
	out    []byte             // the request
	sent   int                // bytes of out written
	in     []byte             // bytes read, from off on not yet parsed
	off    int
	values [][]byte // a DataRow's columns
	rows   RowReader
	wire   *Wire
	err    error // I/O or protocol error: the connection is lost
	pgErr  error // the statement's ErrorResponse
}

func newFdWire(sock *rawsock.Socket) *fdWire {
	f := &fdWire{sock: sock, in: make([]byte, 0, 8192)}
	f.step = f.run
	return f
}

// exchange sends w's Bind, Execute and Sync and reads the replies up to
// ReadyForQuery; rows is given every DataRow. It returns an error after
// which the connection is unusable; the statement's own error is in pgErr.
func (f *fdWire) exchange(w *Wire, rows RowReader) error {
	out := f.out[:0]
	var err error
	if w.parse != nil {
		if out, err = w.parse.Encode(out); err != nil {
			return err
		}
	}
	out, err = w.bind.Encode(out)
	if err != nil {
		return err
	}
	out, _ = w.execute.Encode(out)
	out, _ = w.sync.Encode(out)
	f.out, f.sent = out, 0
	f.wire, f.rows, f.err, f.pgErr = w, rows, nil, nil
	defer func() { f.wire, f.rows = nil, nil }()
	for {
		if err := f.sock.Exchange(f.step); err != nil {
			return err
		}
		if f.err != rawsock.ErrShortWrite {
			return f.err
		}
		// The socket's send buffer was full (never, for requests this
		// small): write the rest the ordinary way, then read.
		if _, err := w.pg.Conn().Write(f.out[f.sent:]); err != nil {
			return err
		}
		f.sent, f.err = len(f.out), nil
	}
}

// run is the RawConn.Read callback; false asks to wait for readability.
func (f *fdWire) run(fd uintptr) bool {
	if f.sent < len(f.out) {
		if err := rawsock.SendRest(fd, f.out, &f.sent); err != nil {
			f.err = err
			return true
		}
		return false // the reply cannot be there yet: wait for it
	}
	for {
		if f.parse() {
			return true
		}
		if len(f.in) == cap(f.in) {
			f.in = append(f.in, 0)[:len(f.in)]
		}
		n, err := rawsock.Read(fd, f.in[len(f.in):cap(f.in)])
		switch {
		case err == syscall.EAGAIN:
			return false
		case err == syscall.EINTR:
			continue
		case err != nil:
			f.err = err
			return true
		case n == 0:
			f.err = io.ErrUnexpectedEOF
			return true
		}
		f.in = f.in[:len(f.in)+n]
	}
}

// parse consumes the whole messages read so far; true once ReadyForQuery
// was read or the stream is broken.
func (f *fdWire) parse() bool {
	defer f.compact()
	for {
		b := f.in[f.off:]
		if len(b) < 5 {
			return false
		}
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || n > maxMessage {
			f.err = fmt.Errorf("invalid message length %d", n)
			return true
		}
		if len(b) < 1+n {
			if need := f.off + 1 + n; need > cap(f.in) {
				f.grow(1 + n)
			}
			return false
		}
		body := b[5 : 1+n]
		f.off += 1 + n
		switch b[0] {
		case 'D':
			if f.rows != nil {
				if !f.row(body) {
					f.err = errors.New("malformed DataRow")
					return true
				}
				f.rows.ReadRow(f.values)
			}
		case 'E':
			if f.pgErr == nil {
				var m pgproto3.ErrorResponse
				if err := m.Decode(body); err != nil {
					f.err = err
					return true
				}
				f.pgErr = pgconn.ErrorResponseToPgError(&m)
			}
		case 'Z':
			if len(body) > 0 {
				f.wire.txStatus = body[0]
			}
			return true
		}
	}
}

// maxMessage bounds a message's length (pgconn's default limit is none;
// a statement of these workloads returns a few rows).
const maxMessage = 1 << 30

// row splits a DataRow's body into f.values; false if malformed.
func (f *fdWire) row(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	cols := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	f.values = f.values[:0]
	for range cols {
		if len(b) < 4 {
			return false
		}
		n := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if n < 0 {
			f.values = append(f.values, nil)
			continue
		}
		if len(b) < n {
			return false
		}
		f.values = append(f.values, b[:n:n])
		b = b[n:]
	}
	return true
}

// compact moves the unparsed bytes to the front of the buffer.
func (f *fdWire) compact() {
	if f.off == 0 {
		return
	}
	f.in = f.in[:copy(f.in, f.in[f.off:])]
	f.off = 0
}

// grow makes room for a message of n bytes.
func (f *fdWire) grow(n int) {
	f.compact()
	if n > cap(f.in) {
		b := make([]byte, len(f.in), n)
		copy(b, f.in)
		f.in = b
	}
}

// pending tells whether bytes were read that are not yet parsed.
func (f *fdWire) pending() bool { return len(f.in) > f.off }
