package tpcb

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// decodeCopy parses COPY binary data into rows of fields (nil for NULL).
func decodeCopy(t *testing.T, data []byte) [][][]byte {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(workload.CopyHeader)) {
		t.Fatalf("no COPY binary header: % x", data[:min(len(data), 19)])
	}
	data = data[len(workload.CopyHeader):]
	var rows [][][]byte
	for {
		if len(data) < 2 {
			t.Fatal("data ends without trailer")
		}
		n := int16(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n == -1 {
			if len(data) != 0 {
				t.Fatalf("%d bytes after the trailer", len(data))
			}
			return rows
		}
		row := make([][]byte, n)
		for i := range row {
			l := int32(binary.BigEndian.Uint32(data))
			data = data[4:]
			if l >= 0 {
				row[i], data = data[:l:l], data[l:]
			}
		}
		rows = append(rows, row)
	}
}

func int4(b []byte) int64 { return int64(int32(binary.BigEndian.Uint32(b))) }

// smallReads hands Read buffers of a fixed small size.
func readAll(r io.Reader, size int) ([]byte, error) {
	var out []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestCopyRows(t *testing.T) {
	w := mustNew(t, 2, nil)
	for _, tb := range w.tables() {
		var reported, calls int64
		r := tb.Reader(func(n int64) { reported += n; calls++ })
		data, err := readAll(r, 65536)
		if err != nil {
			t.Fatal(err)
		}
		rows := decodeCopy(t, data)
		if int64(len(rows)) != tb.Last {
			t.Fatalf("%s: %d rows, want %d", tb.Name, len(rows), tb.Last)
		}
		if reported != tb.Last || calls != (tb.Last+workload.CopyProgressEvery-1)/workload.CopyProgressEvery {
			t.Errorf("%s: progress reported %d rows in %d calls", tb.Name, reported, calls)
		}
		for i, row := range rows {
			id := int64(i + 1)
			switch tb.Name {
			case "pgbench_branches":
				if len(row) != 3 || int4(row[0]) != id || int4(row[1]) != 0 || row[2] != nil {
					t.Fatalf("branch %d = %v", id, row)
				}
			case "pgbench_tellers":
				if len(row) != 4 || int4(row[0]) != id || int4(row[1]) != (id-1)/10+1 || int4(row[2]) != 0 || row[3] != nil {
					t.Fatalf("teller %d = %v", id, row)
				}
			case "pgbench_accounts":
				if len(row) != 4 || int4(row[0]) != id || int4(row[1]) != (id-1)/100000+1 || int4(row[2]) != 0 || row[3] == nil || len(row[3]) != 0 {
					t.Fatalf("account %d = %v", id, row)
				}
			}
		}
	}
}

// TestCopyReadSizes checks that any Read size gives the same bytes.
func TestCopyReadSizes(t *testing.T) {
	w := mustNew(t, 1, nil)
	tb := w.tables()[2]
	var want []byte
	for _, size := range []int{65536, 1, 7, 63, 64, 65, 1000} {
		tb.First = 99990
		got, err := readAll(tb.Reader(nil), size)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			if rows := decodeCopy(t, got); len(rows) != 11 {
				t.Fatalf("%d rows, want 11", len(rows))
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("read size %d gives other bytes", size)
		}
	}
}

func TestCopyBigAccounts(t *testing.T) {
	w := &Workload{scale: scale32BitThreshold, opts: DefaultOptions()}
	tb := w.tables()[2]
	tb.First, tb.Last = 2000000000, 2000000001
	data, err := readAll(tb.Reader(nil), 4096)
	if err != nil {
		t.Fatal(err)
	}
	rows := decodeCopy(t, data)
	if len(rows) != 2 || len(rows[0][0]) != 8 || binary.BigEndian.Uint64(rows[1][0]) != 2000000001 || int4(rows[1][1]) != 20001 {
		t.Fatalf("rows %v", rows)
	}
}
