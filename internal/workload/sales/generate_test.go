package sales

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// copyRows reads a CopyReader of t to the end in reads of size bytes and
// splits the COPY binary data into rows of fields (nil for NULL).
func copyRows(t *testing.T, tb workload.CopyTable, size int) [][][]byte {
	t.Helper()
	r := tb.Reader(nil)
	var data []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		data = append(data, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.HasPrefix(data, []byte(workload.CopyHeader)) {
		t.Fatalf("no COPY header")
	}
	data = data[len(workload.CopyHeader):]
	var rows [][][]byte
	for {
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

func i4(b []byte) int64 { return int64(int32(binary.BigEndian.Uint32(b))) }
func i8(b []byte) int64 { return int64(binary.BigEndian.Uint64(b)) }

// cents decodes a numeric in binary with pgx's own decoder, as cents.
func cents(t *testing.T, b []byte) int64 {
	t.Helper()
	var n pgtype.Numeric
	if err := pgtype.NewMap().Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b, &n); err != nil {
		t.Fatalf("numeric % x: %v", b, err)
	}
	v := new(big.Int).Set(n.Int)
	for e := n.Exp + 2; e > 0; e-- {
		v.Mul(v, big.NewInt(10))
	}
	for e := n.Exp + 2; e < 0; e++ {
		q, r := new(big.Int).QuoRem(v, big.NewInt(10), new(big.Int))
		if r.Sign() != 0 {
			t.Fatalf("numeric % x has more than 2 decimals", b)
		}
		v = q
	}
	return v.Int64()
}

func TestNumeric(t *testing.T) {
	for _, c := range []int64{0, 1, 5, 10, 99, 100, 101, 12345, 999999, 1000000, 1000005, 100000000, 123456789012, -1, -250,
		math.MaxInt64, -math.MaxInt64} {
		b := workload.AppendNumeric(nil, c, 2)
		if len(b) > workload.MaxNumericSize {
			t.Errorf("%d: %d bytes, more than %d", c, len(b), workload.MaxNumericSize)
		}
		if got := cents(t, b); got != c {
			t.Errorf("appendNumeric(%d) decodes as %d: % x", c, got, b)
		}
		if scale := binary.BigEndian.Uint16(b[6:]); scale != 2 {
			t.Errorf("appendNumeric(%d) has dscale %d", c, scale)
		}
		f := workload.AppendNumericField([]byte{9}, c, 2)
		if int(binary.BigEndian.Uint32(f[1:])) != len(b) || !bytes.Equal(f[5:], b) {
			t.Errorf("appendNumericField(%d) = % x", c, f)
		}
	}
	// numeric_send's form for 10000.00: one digit of weight 1, trailing
	// zeros left out.
	if got, want := workload.AppendNumeric(nil, 1000000, 2), []byte{0, 1, 0, 1, 0, 0, 0, 2, 0, 1}; !bytes.Equal(got, want) {
		t.Errorf("10000.00 = % x, want % x", got, want)
	}
}

func TestEpoch(t *testing.T) {
	if got := workload.PGMicros(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)); got != epoch {
		t.Errorf("the data's epoch = %d, want %d", got, epoch)
	}
}

func TestCustomerName(t *testing.T) {
	for c, want := range map[int64]string{1: "Customer#000000001", 300000: "Customer#000300000", 2147483647: "Customer#2147483647"} {
		if got := string(appendCustomerName(nil, c)); got != want {
			t.Errorf("name of %d = %q, want %q", c, got, want)
		}
	}
}

func mustWorkload(t testing.TB, sf float64, o Options) *Workload {
	t.Helper()
	w, err := New(sf, o)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// TestRows checks the generated rows at SF 0.01 against the documented
// rules.
func TestRows(t *testing.T) {
	w := mustWorkload(t, 0.01, DefaultOptions())
	tables := w.tables()
	customers, orders, lines := copyRows(t, tables[0], 65536), copyRows(t, tables[1], 65536), copyRows(t, tables[2], 65536)
	if len(customers) != 3000 || len(orders) != 3000 || len(lines) != 30000 {
		t.Fatalf("%d customers, %d orders, %d lines; want 3000, 3000, 30000", len(customers), len(orders), len(lines))
	}
	for i, r := range customers {
		c := int64(i + 1)
		if len(r) != 4 || i4(r[0]) != c || string(r[1]) != fmt.Sprintf("Customer#%09d", c) || i8(r[3]) != epoch {
			t.Fatalf("customer %d = %q", c, r)
		}
		if cr := cents(t, r[2]); cr < 0 || cr > 1000000 {
			t.Fatalf("customer %d: credit %d cents", c, cr)
		}
	}
	totals := make([]int64, 3001)
	products := map[int64]int64{}
	for i, r := range lines {
		l := int64(i + 1)
		if len(r) != 5 || i8(r[0]) != l || i4(r[1]) != (l-1)/10+1 {
			t.Fatalf("line %d = %q", l, r)
		}
		p, q, a := i4(r[2]), i4(r[3]), cents(t, r[4])
		if p < 1 || p > 100000 || q < 1 || q > 10 || a%q != 0 || a/q < 100 || a/q > 10000 {
			t.Fatalf("line %d: product %d, quantity %d, amount %d", l, p, q, a)
		}
		if price, seen := products[p]; seen && price != a/q {
			t.Fatalf("product %d costs %d and %d", p, price, a/q)
		}
		products[p] = a / q
		totals[i4(r[1])] += a
	}
	last := int64(0)
	custOf := map[int64]bool{}
	for i, r := range orders {
		o := int64(i + 1)
		if len(r) != 6 || i4(r[0]) != o || string(r[3]) != "UNPAID" || i8(r[2]) != i8(r[5]) {
			t.Fatalf("order %d = %q", o, r)
		}
		if c := i4(r[1]); c < 1 || c > 3000 {
			t.Fatalf("order %d of customer %d", o, c)
		} else {
			custOf[c] = true
		}
		if d := i8(r[2]); d <= last || d >= epoch+dateRange {
			t.Fatalf("order %d dated %d after %d", o, d, last)
		} else {
			last = d
		}
		if got := cents(t, r[4]); got != totals[o] {
			t.Fatalf("order %d: total %d, its lines sum to %d", o, got, totals[o])
		}
	}
	// 3000 draws of 3000 customers reach about 1 - 1/e of them.
	if n := len(custOf); n < 1800 || n > 2000 {
		t.Errorf("orders belong to %d distinct customers", n)
	}
}

// TestRowsDeterministic checks that data is partitionable: a range of rows
// encodes the same alone as within the whole table, for any read size, and
// the seed, not the call, decides the rows.
func TestRowsDeterministic(t *testing.T) {
	w := mustWorkload(t, 0.01, DefaultOptions())
	for _, tb := range w.tables() {
		whole := copyRows(t, tb, 65536)
		part := tb
		part.First, part.Last = 1001, 1200
		for _, size := range []int{1, 7, 127, 128, 129, 4096} {
			got := copyRows(t, part, size)
			if fmt.Sprint(got) != fmt.Sprint(whole[1000:1200]) {
				t.Fatalf("%s: rows 1001..1200 read %d bytes at a time differ from the whole table's", tb.Name, size)
			}
		}
	}
	for i := range 3 {
		a := copyRows(t, mustWorkload(t, 0.01, Options{Seed: 7}).tables()[i], 65536)
		b := copyRows(t, mustWorkload(t, 0.01, Options{Seed: 7}).tables()[i], 65536)
		c := copyRows(t, mustWorkload(t, 0.01, Options{Seed: 8}).tables()[i], 65536)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("table %d: seed 7 gave two outcomes", i)
		}
		if fmt.Sprint(a) == fmt.Sprint(c) {
			t.Fatalf("table %d: seeds 7 and 8 gave the same rows", i)
		}
	}
}
