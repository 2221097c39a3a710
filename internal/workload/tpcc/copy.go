package tpcc

import (
	"encoding/binary"
	"io"
	"slices"
	"time"
)

// Rows are sent with COPY ... FROM STDIN (FORMAT binary): a header, then per
// row a field count and each field as its length (-1 for NULL) and its bytes
// in the type's binary format, then a trailer.

// copyHeader is the COPY binary signature, then flags and header extension
// length, both 0.
const copyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// maxRow bounds an encoded row (a CUSTOMER row, the widest, is under 900
// bytes).
const maxRow = 1024

// source produces a table's rows in COPY binary format.
type source interface {
	// row appends the next row to b; false when there are no more rows.
	row(b []byte) ([]byte, bool)
}

// copyReader is the io.Reader that pgconn's CopyFrom reads: the header,
// the rows of src encoded straight into the buffer it is given, the
// trailer.
type copyReader struct {
	src                  source
	header, rows, closed bool // header written; rows exhausted; trailer written
	pending              []byte
	scratch              []byte
	sinceReport          int64
	report               func(int64)
}

// progressEvery is how many rows pass between two progress reports.
const progressEvery = 10000

func newCopyReader(src source, report func(int64)) *copyReader {
	return &copyReader{src: src, report: report, scratch: make([]byte, 0, maxRow)}
}

func (r *copyReader) Read(p []byte) (int, error) {
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
		case !r.rows:
			var out []byte
			var ok bool
			if len(p)-n >= maxRow {
				out, ok = r.src.row(p[n:n:len(p)])
				if ok && len(out) > 0 && &out[0] != &p[n] {
					r.pending = out // did not fit after all: send it from its own buffer
					ok = false
					r.count()
					continue
				}
				if ok {
					n += len(out)
				}
			} else {
				out, ok = r.src.row(r.scratch[:0])
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

func (r *copyReader) count() {
	r.sinceReport++
	if r.sinceReport == progressEvery {
		r.flush()
	}
}

func (r *copyReader) flush() {
	if r.sinceReport > 0 && r.report != nil {
		r.report(r.sinceReport)
	}
	r.sinceReport = 0
}

// grow extends b by n bytes and returns b and the new bytes.
func grow(b []byte, n int) ([]byte, []byte) {
	b = slices.Grow(b, n)
	l := len(b)
	return b[:l+n], b[l : l+n]
}

// pgEpoch is the origin of PostgreSQL's binary timestamps.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pgTimestamp is t as a timestamp without time zone: microseconds from
// 2000-01-01 00:00 of t's wall clock in UTC.
func pgTimestamp(t time.Time) int64 { return t.Sub(pgEpoch).Microseconds() }

func putTimestamp(b []byte, us int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(us))
}

// putAlnum appends a random a-string of random length in [lo .. hi]
// (clause 4.3.2.2).
func (r *rng) putAlnum(b []byte, lo, hi int) []byte {
	n := r.rand(lo, hi)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillAlnum(s)
	return b
}

// putData appends an a-string of length [26 .. 50]; when orig, "ORIGINAL"
// at a random position in it (I_DATA and S_DATA, clause 4.3.3.1).
func (r *rng) putData(b []byte, orig bool) []byte {
	n := r.rand(26, 50)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillAlnum(s)
	if orig {
		copy(s[r.rand(0, n-len(original)):], original)
	}
	return b
}

// putDigits appends a random n-string of n digits.
func (r *rng) putDigits(b []byte, n int) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillDigits(s)
	return b
}

// putState appends two random letters.
func (r *rng) putState(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 2)
	b, s := grow(b, 2)
	r.fillLetters(s)
	return b
}

// putZip appends a zip code: a random n-string of 4 digits and "11111"
// (clause 4.3.2.7).
func (r *rng) putZip(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 9)
	b, s := grow(b, 9)
	r.fillDigits(s[:4])
	copy(s[4:], "11111")
	return b
}

// putAddress appends street 1, street 2, city, state and zip (clause
// 4.3.3.1: a-strings [10 .. 20], 2 letters, a zip of clause 4.3.2.7).
func (r *rng) putAddress(b []byte) []byte {
	b = r.putAlnum(b, 10, 20)
	b = r.putAlnum(b, 10, 20)
	b = r.putAlnum(b, 10, 20)
	b = r.putState(b)
	return r.putZip(b)
}
