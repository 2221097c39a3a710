package workload

import (
	"context"
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
	if _, err := pg.CopyFrom(ctx, t.Reader(report), sql); err != nil {
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

// RowSource produces a table's rows in COPY binary format, one per call:
// the field count, then each field (see fields.go).
type RowSource interface {
	// AppendRow appends the next row to buf; false, with buf as it was,
	// when there are no more rows.
	AppendRow(buf []byte) ([]byte, bool)
}

// tableRows is a CopyTable's rows, from First to Last.
type tableRows struct {
	t    *CopyTable
	next int64
}

func (r *tableRows) AppendRow(buf []byte) ([]byte, bool) {
	if r.next > r.t.Last {
		return buf, false
	}
	r.next++
	return r.t.Encode(buf, r.next-1), true
}

// Reader is t's rows as COPY binary data; report is as in CopyFreeze.
func (t CopyTable) Reader(report func(rows int64)) *CopyReader {
	return NewCopyReader(&tableRows{t: &t, next: t.First}, t.MaxRow, report)
}

// CopyReader is the io.Reader that pgconn's CopyFrom reads: the header,
// the rows of its source encoded straight into the buffer each Read is
// given, the trailer.
type CopyReader struct {
	src                  RowSource
	maxRow               int
	header, rows, closed bool // header written; rows exhausted; trailer written
	pending              []byte
	scratch              []byte
	sinceReport          int64
	report               func(int64)
}

// NewCopyReader reads src's rows. maxRow bounds one encoded row: a row is
// encoded straight into Read's buffer when that much room is left in it,
// else into a buffer of its own. report, if not nil, is called with the
// number of rows encoded since its last call, every CopyProgressEvery
// rows and after the last.
func NewCopyReader(src RowSource, maxRow int, report func(rows int64)) *CopyReader {
	return &CopyReader{src: src, maxRow: maxRow, report: report, scratch: make([]byte, 0, max(maxRow, len(CopyHeader)))}
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
		case !r.rows:
			var out []byte
			var ok bool
			if len(p)-n >= r.maxRow {
				out, ok = r.src.AppendRow(p[n:n:len(p)])
				if ok && len(out) > 0 && &out[0] != &p[n] {
					// Longer than maxRow: append moved it out of p. Send
					// it from where it is rather than lose it.
					r.pending = out
					r.count()
					continue
				}
				if ok {
					n += len(out)
				}
			} else {
				out, ok = r.src.AppendRow(r.scratch[:0])
				if ok {
					r.pending = out
				}
			}
			if !ok {
				r.rows = true
				r.flush()
				continue
			}
			r.count()
		case !r.closed:
			r.closed = true
			r.pending = append(r.scratch[:0], 0xff, 0xff) // a field count of -1 ends the data
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

func (r *CopyReader) count() {
	r.sinceReport++
	if r.sinceReport == CopyProgressEvery {
		r.flush()
	}
}

func (r *CopyReader) flush() {
	if r.sinceReport > 0 && r.report != nil {
		r.report(r.sinceReport)
	}
	r.sinceReport = 0
}

// LoadFrozen loads tables in one transaction on one connection: truncate
// (the statement given, naming every table the load fills), then COPY ...
// FREEZE each table in order, and commit. The truncate in the same
// transaction is what allows FREEZE (pgbench does the same since 14).
// progress, if not nil, gets the running total of rows sent.
func LoadFrozen(ctx context.Context, connect Connect, truncate string, tables []CopyTable, progress func(rows int64)) error {
	conn, err := ConnectPG(ctx, "ingest", connect)
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
