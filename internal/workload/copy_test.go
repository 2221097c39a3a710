package workload

import (
	"bytes"
	"io"
	"testing"
)

// TestCopyReader reads a small table at several read sizes and checks the
// header, rows, trailer and progress; a row longer than MaxRow is still
// sent whole.
func TestCopyReader(t *testing.T) {
	encode := func(buf []byte, id int64) []byte { return AppendInt8(AppendFieldCount(buf, 1), id) } // 14 bytes
	tb := CopyTable{Name: "t", First: 3, Last: 25002, Encode: encode, MaxRow: 14}
	var want []byte
	for _, size := range []int{1, 13, 14, 15, 65536} {
		var reported int64
		r := tb.Reader(func(n int64) { reported += n })
		var got []byte
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if want == nil {
			want = got
			if !bytes.HasPrefix(got, []byte(CopyHeader)) || len(got) != len(CopyHeader)+14*25000+2 || !bytes.HasSuffix(got, []byte{0xff, 0xff}) {
				t.Fatalf("%d bytes, want header, 25000 rows of 14 bytes, trailer", len(got))
			}
		} else if !bytes.Equal(got, want) {
			t.Fatalf("read size %d gives other bytes", size)
		}
		if reported != tb.Rows() {
			t.Errorf("read size %d: progress reported %d of %d rows", size, reported, tb.Rows())
		}
	}
	tb.MaxRow = 4
	got, err := io.ReadAll(tb.Reader(nil))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("rows longer than MaxRow: %d bytes, %v; want the %d bytes of the others", len(got), err, len(want))
	}
}
