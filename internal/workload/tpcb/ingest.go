package tpcb

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// progressEvery is how many rows pass between two progress reports.
const progressEvery = 10000

// Ingest loads the rows of pgbench's client-side generation (init step "g",
// initGenerateDataClientSide) in one transaction on one connection: truncate
// the four tables, then COPY ... FREEZE pgbench_branches, pgbench_tellers and
// pgbench_accounts, in that order, and commit. As in pgbench (since 14), the
// truncate in the same transaction allows FREEZE, which writes the rows
// frozen and all-visible, so the VACUUM of PostIngest has little to do.
// Splitting the accounts over several connections rules out FREEZE and was
// no faster in total on 2 cores (see docs/workloads.md).
//
// The data are a pure function of the scale: branch (bid, 0, NULL); teller
// (tid, (tid-1)/10+1, 0, NULL); account (aid, (aid-1)/100000+1, 0, the empty
// string, which char(84) blank-pads).
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	conn, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcb: ingest: connect: %w", err)
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
		return fmt.Errorf("tpcb: ingest: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"); err != nil {
		return fmt.Errorf("tpcb: ingest: truncate: %w", err)
	}
	for _, t := range w.tables() {
		if err := copyTable(ctx, conn, t, report); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("tpcb: ingest: commit: %w", err)
	}
	return nil
}

// table is one generated table: its name, rows and row encoder.
type table struct {
	name string
	rows int64
	// encode appends row id (1-based) in COPY binary format.
	encode func(buf []byte, id int64) []byte
}

// tables are the generated tables in pgbench's load order (branches,
// tellers, accounts: the referenced ones first, in case foreign keys exist).
func (w *Workload) tables() []table {
	big := w.bigAccounts()
	return []table{
		{"pgbench_branches", w.scale * branchesPerScale, encodeBranch},
		{"pgbench_tellers", w.scale * tellersPerScale, encodeTeller},
		{"pgbench_accounts", w.scale * accountsPerScale, func(buf []byte, id int64) []byte { return encodeAccount(buf, id, big) }},
	}
}

// copyTable copies all rows of t with COPY FROM STDIN in binary format and
// FREEZE; the caller truncated t in the same transaction.
func copyTable(ctx context.Context, conn *pgx.Conn, t table, report func(int64)) error {
	src := &rowReader{t: t, next: 1, last: t.rows, report: report}
	sql := "copy " + t.name + " from stdin with (format binary, freeze on)"
	if _, err := conn.PgConn().CopyFrom(ctx, src, sql); err != nil {
		return fmt.Errorf("tpcb: ingest %s: %w", t.name, err)
	}
	return nil
}

// rowReader produces a table's rows in COPY binary format, encoding them
// straight into the buffer each Read is given.
type rowReader struct {
	t               table
	next, last      int64 // next row to encode; last row (inclusive)
	header, trailer bool  // written
	sinceReport     int64
	report          func(int64)
	pending         []byte // an encoded piece that did not fit in p
	scratch         [maxRowSize]byte
}

// maxRowSize bounds an encoded row (and the header).
const maxRowSize = 64

// copyHeader is the COPY binary signature, then flags and header extension
// length, both 0.
const copyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

func (r *rowReader) Read(p []byte) (int, error) {
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
			r.pending = append(r.scratch[:0], copyHeader...)
		case r.next <= r.last:
			if len(p)-n >= maxRowSize {
				n += len(r.t.encode(p[n:n:len(p)], r.next))
			} else {
				r.pending = r.t.encode(r.scratch[:0], r.next)
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

func (r *rowReader) advance() {
	r.next++
	r.sinceReport++
	if r.sinceReport == progressEvery {
		r.flushReport()
	}
}

func (r *rowReader) flushReport() {
	if r.sinceReport > 0 && r.report != nil {
		r.report(r.sinceReport)
	}
	r.sinceReport = 0
}

// COPY binary field encoders: a field is its length (int32, -1 for NULL)
// followed by its bytes, big-endian for integers.

func appendInt4(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 4)
	return binary.BigEndian.AppendUint32(buf, uint32(int32(v)))
}

func appendInt8(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(v))
}

func appendNull(buf []byte) []byte { return binary.BigEndian.AppendUint32(buf, 0xffffffff) }

func appendFieldCount(buf []byte, n int) []byte { return binary.BigEndian.AppendUint16(buf, uint16(n)) }

// encodeBranch is pgbench's initBranch: bid, bbalance 0, filler NULL.
func encodeBranch(buf []byte, bid int64) []byte {
	buf = appendFieldCount(buf, 3)
	buf = appendInt4(buf, bid)
	buf = appendInt4(buf, 0)
	return appendNull(buf)
}

// encodeTeller is pgbench's initTeller: tid, bid = (tid-1)/10+1, tbalance 0,
// filler NULL.
func encodeTeller(buf []byte, tid int64) []byte {
	buf = appendFieldCount(buf, 4)
	buf = appendInt4(buf, tid)
	buf = appendInt4(buf, (tid-1)/tellersPerScale+1)
	buf = appendInt4(buf, 0)
	return appendNull(buf)
}

// encodeAccount is pgbench's initAccount: aid, bid = (aid-1)/100000+1,
// abalance 0, filler ” which char(84) blank-pads.
func encodeAccount(buf []byte, aid int64, big bool) []byte {
	buf = appendFieldCount(buf, 4)
	if big {
		buf = appendInt8(buf, aid)
	} else {
		buf = appendInt4(buf, aid)
	}
	buf = appendInt4(buf, (aid-1)/accountsPerScale+1)
	buf = appendInt4(buf, 0)
	return binary.BigEndian.AppendUint32(buf, 0) // empty string
}
