package tpcc

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// loadTime is the "current date and time" of the generator in tests.
var loadTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// copyBytes is everything a COPY of table t of warehouse w sends.
func copyBytes(t testing.TB, g *generator, tb table, w int) []byte {
	t.Helper()
	var rows int64
	data, err := io.ReadAll(workload.NewCopyReader(g.source(tb, w), maxRow, func(n int64) { rows += n }))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(rowsOf(tb, g.seed, w)); rows != want {
		t.Fatalf("%s of warehouse %d: progress says %d rows, want %d", tb, w, rows, want)
	}
	return data
}

// decodeCopy parses COPY binary data into rows of fields (nil for NULL).
func decodeCopy(t testing.TB, data []byte) [][][]byte {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(workload.CopyHeader)) {
		t.Fatal("no COPY binary header")
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

func i4(b []byte) int { return int(int32(binary.BigEndian.Uint32(b))) }

// num decodes a binary numeric into units of 10^-scale.
func num(t testing.TB, b []byte, scale int) int64 {
	t.Helper()
	nd := int(binary.BigEndian.Uint16(b))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	if int(binary.BigEndian.Uint16(b[6:])) != scale {
		t.Fatalf("numeric dscale %d, want %d", binary.BigEndian.Uint16(b[6:]), scale)
	}
	// value = sum digit[i] * 10000^(weight-i); in units of 10^-scale.
	var v float64
	for i := range nd {
		d := float64(binary.BigEndian.Uint16(b[8+2*i:]))
		e := weight - i
		f := d
		for ; e > 0; e-- {
			f *= 10000
		}
		for ; e < 0; e++ {
			f /= 10000
		}
		v += f
	}
	for range scale {
		v *= 10
	}
	n := int64(v + 0.5)
	if sign == 0x4000 {
		n = -n
	}
	return n
}

func TestPutNumeric(t *testing.T) {
	for _, tc := range []struct {
		v     int64
		scale int
	}{{0, 2}, {1, 2}, {99, 2}, {100, 2}, {-1000, 2}, {30000000, 2}, {999999, 2}, {123456789012, 2}, {0, 4}, {1, 4}, {2000, 4}, {5000, 4}, {10000, 4}} {
		b := workload.AppendNumericField(nil, tc.v, tc.scale)
		if l := int(binary.BigEndian.Uint32(b)); l != len(b)-4 {
			t.Fatalf("%d: length %d, field %d", tc.v, l, len(b)-4)
		}
		if got := num(t, b[4:], tc.scale); got != tc.v {
			t.Errorf("numeric %d (scale %d) decodes to %d", tc.v, tc.scale, got)
		}
	}
}

// TestRowCounts checks the cardinalities of clause 4.3.1 for one warehouse
// and that Rows adds them up.
func TestRowCounts(t *testing.T) {
	w := mustWorkload(t, 1, DefaultOptions())
	g := newGenerator(w.seed, w.k, loadTime)
	want := map[table]int{tItem: 100000, tWarehouse: 1, tDistrict: 10, tCustomer: 30000, tHistory: 30000,
		tOrders: 30000, tNewOrder: 9000, tStock: 100000}
	total := int64(0)
	for _, p := range loadParts(w) {
		rows := decodeCopy(t, copyBytes(t, g, p.t, p.w))
		total += int64(len(rows))
		if p.t == tOrderLine {
			// 5 to 15 lines per order, 10 on average (clause 4.3.3.1).
			if len(rows) < 30000*5 || len(rows) > 30000*15 || len(rows) < 295000 || len(rows) > 305000 {
				t.Errorf("order_line: %d rows", len(rows))
			}
			continue
		}
		if len(rows) != want[p.t] {
			t.Errorf("%s: %d rows, want %d", p.t, len(rows), want[p.t])
		}
	}
	if w.Rows() != total {
		t.Errorf("Rows() = %d, generated %d", w.Rows(), total)
	}
}

// TestPopulation checks the values clause 4.3.3.1 prescribes.
func TestPopulation(t *testing.T) {
	w := mustWorkload(t, 1, DefaultOptions())
	g := newGenerator(w.seed, w.k, loadTime)
	rows := func(tb table) [][][]byte { return decodeCopy(t, copyBytes(t, g, tb, 1)) }

	// ITEM and STOCK: exactly 10 % hold ORIGINAL; lengths and ranges.
	for _, tc := range []struct {
		tb        table
		dataField int
	}{{tItem, 4}, {tStock, 16}} {
		orig := 0
		for _, r := range rows(tc.tb) {
			d := r[tc.dataField]
			if len(d) < 26 || len(d) > 50 {
				t.Fatalf("%s data of length %d", tc.tb, len(d))
			}
			if bytes.Contains(d, []byte(original)) {
				orig++
			}
		}
		if orig < 10000 || orig > 10010 { // a random string may hold ORIGINAL by chance (rarely)
			t.Errorf("%s: %d rows hold ORIGINAL, want 10000", tc.tb, orig)
		}
	}
	for _, r := range rows(tItem) {
		if p := num(t, r[3], 2); p < 100 || p > 10000 {
			t.Fatalf("i_price %d", p)
		}
		if im := i4(r[1]); im < 1 || im > 10000 {
			t.Fatalf("i_im_id %d", im)
		}
	}
	for _, r := range rows(tStock) {
		if q := i4(r[2]); q < 10 || q > 100 {
			t.Fatalf("s_quantity %d", q)
		}
		for i := 3; i < 13; i++ {
			if len(r[i]) != 24 {
				t.Fatalf("s_dist of length %d", len(r[i]))
			}
		}
	}

	// CUSTOMER: last names, credit, constants.
	bad := map[int]int{}
	for _, r := range rows(tCustomer) {
		c, d := i4(r[0]), i4(r[1])
		last := string(r[5])
		if c <= 1000 && last != lastName(c-1) {
			t.Fatalf("customer %d of district %d: last name %q, want %q", c, d, last, lastName(c-1))
		}
		if !isLastName(last) {
			t.Fatalf("customer %d: last name %q", c, last)
		}
		if string(r[4]) != "OE" || len(r[3]) < 8 || len(r[3]) > 16 || len(r[11]) != 16 || !strings.HasSuffix(string(r[10]), "11111") {
			t.Fatalf("customer %d: %q %q %q %q", c, r[3], r[4], r[10], r[11])
		}
		switch string(r[13]) {
		case "BC":
			bad[d]++
		case "GC":
		default:
			t.Fatalf("c_credit %q", r[13])
		}
		if num(t, r[16], 2) != -1000 || num(t, r[17], 2) != 1000 || i4(r[18]) != 1 || i4(r[19]) != 0 {
			t.Fatalf("customer %d: balance, payment, counts", c)
		}
		if l := len(r[20]); l < 300 || l > 500 {
			t.Fatalf("c_data of length %d", l)
		}
	}
	for d := 1; d <= 10; d++ {
		if bad[d] != 300 {
			t.Errorf("district %d: %d customers of bad credit, want 300", d, bad[d])
		}
	}

	// ORDER, ORDER-LINE, NEW-ORDER agree.
	lines := map[[2]int]int{}
	for _, r := range rows(tOrderLine) {
		o, d := i4(r[0]), i4(r[1])
		lines[[2]int{d, o}]++
		delivered := o < 2101
		if (r[6] != nil) != delivered || (num(t, r[8], 2) == 0) != delivered || i4(r[7]) != 5 {
			t.Fatalf("order line of order %d: %v", o, r)
		}
	}
	customers := map[[2]int]bool{}
	for _, r := range rows(tOrders) {
		o, d := i4(r[0]), i4(r[1])
		if n := i4(r[6]); n != lines[[2]int{d, o}] || n < 5 || n > 15 {
			t.Fatalf("order %d of district %d: o_ol_cnt %d, %d lines", o, d, n, lines[[2]int{d, o}])
		}
		if (r[5] == nil) != (o >= 2101) {
			t.Fatalf("order %d: carrier %v", o, r[5])
		}
		customers[[2]int{d, i4(r[3])}] = true
	}
	if len(customers) != 30000 {
		t.Errorf("o_c_id: %d distinct (district, customer), want 30000 (a permutation per district)", len(customers))
	}
	no := rows(tNewOrder)
	if i4(no[0][0]) != 2101 || i4(no[899][0]) != 3000 || i4(no[900][1]) != 2 {
		t.Errorf("new_order rows %v %v %v", no[0], no[899], no[900])
	}
}

func isLastName(s string) bool {
	for n := range 1000 {
		if lastNames[n] == s {
			return true
		}
	}
	return false
}

// TestDeterministic checks that one seed gives the same bytes, another
// seed other bytes.
func TestDeterministic(t *testing.T) {
	gen := func(seed int64) *generator {
		o := DefaultOptions()
		o.Seed = seed
		w := mustWorkload(t, 2, o)
		return newGenerator(w.seed, w.k, loadTime)
	}
	a, b, c := gen(7), gen(7), gen(8)
	for _, tb := range []table{tCustomer, tOrderLine, tStock, tItem} {
		x, y, z := copyBytes(t, a, tb, 2), copyBytes(t, b, tb, 2), copyBytes(t, c, tb, 2)
		if !bytes.Equal(x, y) {
			t.Errorf("%s: seed 7 gives two different tables", tb)
		}
		if bytes.Equal(x, z) {
			t.Errorf("%s: seeds 7 and 8 give the same table", tb)
		}
	}
}

// loadParts are the COPYs of a load in the order Ingest makes them on
// one connection: table t of warehouse w (0 for ITEM).
func loadParts(w *Workload) []unit {
	var parts []unit
	for _, u := range w.units() {
		first, last := u.span(w.warehouses)
		for wid := first; wid <= last; wid++ {
			parts = append(parts, unit{u.t, wid})
		}
	}
	return parts
}

// TestWarehouseAlone checks that a warehouse generated on its own equals
// the same warehouse of a full generation (every COPY of a 3-warehouse
// load, in the load's order, from one generator), in both load modes.
func TestWarehouseAlone(t *testing.T) {
	o := DefaultOptions()
	o.Freeze = false
	for _, full := range []*Workload{mustWorkload(t, 3, DefaultOptions()), mustWorkload(t, 3, o)} {
		checkWarehouseAlone(t, full)
	}
}

func checkWarehouseAlone(t *testing.T, full *Workload) {
	g := newGenerator(full.seed, full.k, loadTime)
	inFull := map[table][]byte{}
	for _, p := range loadParts(full) {
		b := copyBytes(t, g, p.t, p.w)
		if p.w == 2 {
			inFull[p.t] = b
		}
	}
	if len(inFull) != len(warehouseTables) {
		t.Fatalf("the full load copies %d tables of warehouse 2", len(inFull))
	}
	alone := mustWorkload(t, 1, DefaultOptions())
	ga := newGenerator(alone.seed, alone.k, loadTime)
	for _, tb := range warehouseTables {
		if !bytes.Equal(copyBytes(t, ga, tb, 2), inFull[tb]) {
			t.Errorf("%s of warehouse 2 generated alone differs from the full generation", tb)
		}
	}
}

// TestCopyReadSizes checks that any read size gives the same bytes.
func TestCopyReadSizes(t *testing.T) {
	w := mustWorkload(t, 1, DefaultOptions())
	g := newGenerator(w.seed, w.k, loadTime)
	want := copyBytes(t, g, tCustomer, 1)
	for _, size := range []int{1, 7, 1023, 1024, 1025, 4096, 65536} {
		r := workload.NewCopyReader(g.source(tCustomer, 1), maxRow, nil)
		buf := make([]byte, size)
		var got []byte
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
		if !bytes.Equal(got, want) {
			t.Fatalf("read size %d gives other bytes", size)
		}
	}
}

func mustWorkload(t testing.TB, warehouses int, o Options) *Workload {
	t.Helper()
	w, err := newWorkload(float64(warehouses), o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func BenchmarkGenerateWarehouse(b *testing.B) {
	w := mustWorkload(b, 1, DefaultOptions())
	g := newGenerator(w.seed, w.k, loadTime)
	buf := make([]byte, 65536)
	var bytes int64
	for b.Loop() {
		for _, tb := range warehouseTables {
			r := workload.NewCopyReader(g.source(tb, 1), maxRow, nil)
			for {
				n, err := r.Read(buf)
				bytes += int64(n)
				if err == io.EOF {
					break
				}
			}
		}
	}
	b.ReportMetric(float64(bytes)/float64(b.N)/1e6, "MB/warehouse")
}
