package workload

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// CopyTable is a range of generated rows of one table, loaded with
// COPY FROM STDIN in binary format. Row id's content is a pure function of
// id, so any range can be encoded on its own.
type CopyTable struct {
	Name string
	// First and Last are the ids of the first and last row, both included.
	First, Last int64
	// Encode appends row id in COPY binary format: the field count, then
	// each field (see the Append functions).
	Encode func(buf []byte, id int64) []byte
	// MaxRow bounds what Encode appends for one row.
	MaxRow int
}

// Rows is the number of rows of the range.
func (t CopyTable) Rows() int64 { return max(t.Last-t.First+1, 0) }

// CopyFreeze copies t with COPY ... FREEZE: the caller truncated or created
// the table in the same transaction, so the rows are written frozen and
// all-visible and the VACUUM after the load has little to do. report, if
// not nil, is called with the number of rows sent since its last call.
func CopyFreeze(ctx context.Context, pg *pgconn.PgConn, t CopyTable, report func(rows int64)) error {
	sql := "copy " + t.Name + " from stdin with (format binary, freeze on)"
	if _, err := pg.CopyFrom(ctx, NewCopyReader(t, report), sql); err != nil {
		return fmt.Errorf("copy %s: %w", t.Name, err)
	}
	return nil
}

// CopyProgressEvery is how many rows a CopyReader encodes between two
// progress reports.
const CopyProgressEvery = 10000

// CopyHeader is the COPY binary signature, then flags and header extension
// length, both 0.
const CopyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// CopyReader produces a CopyTable's rows in COPY binary format, header and
// trailer included, encoding them straight into the buffer each Read is
// given.
type CopyReader struct {
	t               CopyTable
	next            int64 // next row to encode
	header, trailer bool  // written
	sinceReport     int64
	report          func(int64)
	pending         []byte // an encoded piece that did not fit in p
	scratch         []byte
}

// NewCopyReader reads t's rows; report is as in CopyFreeze.
func NewCopyReader(t CopyTable, report func(rows int64)) *CopyReader {
	return &CopyReader{t: t, next: t.First, report: report, scratch: make([]byte, 0, max(t.MaxRow, len(CopyHeader)))}
}

func (r *CopyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.pending) > 0 {
			c := copy(p[n:], r.pending)
			r.pending = r.pending[c:]
			n += c
			continue
		}
		switch {
		case !r.header:
			r.header = true
			r.pending = append(r.scratch[:0], CopyHeader...)
		case r.next <= r.t.Last:
			if len(p)-n >= r.t.MaxRow {
				row := r.t.Encode(p[n:n:len(p)], r.next)
				if len(row) > len(p)-n { // append left p: the row was lost
					panic("workload: a row of " + r.t.Name + " is longer than its CopyTable.MaxRow")
				}
				n += len(row)
			} else {
				r.pending = r.t.Encode(r.scratch[:0], r.next)
			}
			r.advance()
		case !r.trailer:
			r.trailer = true
			r.flushReport()
			r.pending = append(r.scratch[:0], 0xff, 0xff) // a tuple of -1 fields ends the data
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

func (r *CopyReader) advance() {
	r.next++
	r.sinceReport++
	if r.sinceReport == CopyProgressEvery {
		r.flushReport()
	}
}

func (r *CopyReader) flushReport() {
	if r.sinceReport > 0 && r.report != nil {
		r.report(r.sinceReport)
	}
	r.sinceReport = 0
}

// COPY binary field encoders: a field is its length (int32, -1 for NULL)
// followed by its bytes, big-endian for integers.

// AppendFieldCount starts a row of n fields.
func AppendFieldCount(buf []byte, n int) []byte { return binary.BigEndian.AppendUint16(buf, uint16(n)) }

// AppendInt4 appends an int (int4) field.
func AppendInt4(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 4)
	return binary.BigEndian.AppendUint32(buf, uint32(int32(v)))
}

// AppendInt8 appends a bigint (int8) field.
func AppendInt8(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(v))
}

// AppendNull appends a NULL field.
func AppendNull(buf []byte) []byte { return binary.BigEndian.AppendUint32(buf, 0xffffffff) }

// AppendText appends a text or varchar field: its UTF-8 bytes.
func AppendText(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

// LoadFrozen loads tables in one transaction on one connection: truncate
// (the statement given, naming every table the load fills), then COPY ...
// FREEZE each table in order, and commit. The truncate in the same
// transaction is what allows FREEZE (pgbench does the same since 14).
// progress, if not nil, gets the running total of rows sent.
func LoadFrozen(ctx context.Context, connect Connect, truncate string, tables []CopyTable, progress func(rows int64)) error {
	conn, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var loaded atomic.Int64
	report := func(n int64) {
		if progress != nil {
			progress(loaded.Add(n))
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, truncate); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	for _, t := range tables {
		if err := CopyFreeze(ctx, conn.PgConn(), t, report); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
