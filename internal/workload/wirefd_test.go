package workload

import (
	"encoding/binary"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// msg frames a protocol message: type, int32 length (itself included), body.
func msg(typ byte, body []byte) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(4+len(body)))
	return append(b, body...)
}

type rowsSeen [][]string

func (r *rowsSeen) ReadRow(values [][]byte) {
	var row []string
	for _, v := range values {
		if v == nil {
			row = append(row, "NULL")
		} else {
			row = append(row, string(v))
		}
	}
	*r = append(*r, row)
}

// TestFdWireParse feeds a reply split at every byte boundary: rows, an
// error and the transaction status come out whole, and nothing is left.
func TestFdWireParse(t *testing.T) {
	row := []byte{0, 2, 0, 0, 0, 3, 'a', 'b', 'c', 0xff, 0xff, 0xff, 0xff}
	big := make([]byte, 20000) // longer than the initial buffer
	bigRow := append([]byte{0, 1, 0, 0, 0, 0}, big...)
	binary.BigEndian.PutUint32(bigRow[2:], uint32(len(big)))
	errBody := []byte("SERROR\x00C22012\x00Mdivision by zero\x00\x00")
	var reply []byte
	reply = append(reply, msg('2', nil)...)
	reply = append(reply, msg('D', row)...)
	reply = append(reply, msg('D', bigRow)...)
	reply = append(reply, msg('E', errBody)...)
	reply = append(reply, msg('Z', []byte{'E'})...)
	for _, chunk := range []int{1, 7, 4096, len(reply)} {
		var seen rowsSeen
		w := &Wire{}
		f := newFdWire(nil)
		f.wire, f.rows = w, &seen
		done := false
		for i := 0; i < len(reply); i += chunk {
			if done {
				t.Fatalf("chunk %d: ReadyForQuery before the end", chunk)
			}
			end := min(i+chunk, len(reply))
			if len(f.in)+end-i > cap(f.in) {
				f.grow(len(f.in) + end - i)
			}
			f.in = append(f.in, reply[i:end]...)
			done = f.parse()
		}
		if !done || f.err != nil || f.pending() {
			t.Fatalf("chunk %d: done %v, err %v, pending %v", chunk, done, f.err, f.pending())
		}
		if len(seen) != 2 || seen[0][0] != "abc" || seen[0][1] != "NULL" || len(seen[1][0]) != len(big) {
			t.Fatalf("chunk %d: rows %.40q", chunk, seen)
		}
		pe, ok := f.pgErr.(*pgconn.PgError)
		if !ok || pe.Code != "22012" {
			t.Fatalf("chunk %d: error %v", chunk, f.pgErr)
		}
		if w.txStatus != 'E' {
			t.Fatalf("chunk %d: status %q", chunk, w.txStatus)
		}
	}
}

// TestFdWireBadLength: a length below 4 is a broken stream, not a hang.
func TestFdWireBadLength(t *testing.T) {
	f := newFdWire(nil)
	f.wire = &Wire{}
	f.in = append(f.in, 'D', 0, 0, 0, 2)
	if !f.parse() || f.err == nil {
		t.Fatalf("err %v", f.err)
	}
}
