package tpch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// dbgenSHA256 are the SHA-256 sums of the .tbl files TPC's dbgen 2.17.3
// writes (dbgen -s SF, lines without the trailing '|' some builds add),
// computed from dbgen's own output: the generator matches them byte for
// byte, every column of every table, comments included.
var dbgenSHA256 = map[string]map[string]string{
	"0.01": {
		"customer": "22156f2770387f5adadbc72774f2282d353aedd5092bd8fc54871b3bf5e74cba",
		"lineitem": "517b566190fbeadc638602554d109a463631e19788936ccb97196ebd407b51f1",
		"nation":   "7d47bc9397da331054fa92b8fb92e4c074004bad72dcbb893012093218dccf6c",
		"orders":   "a444603dfba6c47e902e24b517608a5eb3b117127e99dff16a40f4eaa47b812c",
		"part":     "604232ee10e95dca875c196f759c07babf34293dfac8c99b9f1f0c2708f0561b",
		"partsupp": "906f58419af6ad5d62489a7e2105257654bb6d8458a7fd8fe19b76655aac50c7",
		"region":   "5a7c2fe9718db00ff5e5bc82a9ebfa8abc492cc75260d3c0ffb411974f235ab0",
		"supplier": "b199bef3350840676cfe4be096091851bc47b6a57cd8a71b3f559d42b7d9dacd",
	},
	"0.1": {
		"customer": "16ece524c820347cb1dead9c905b65156c755529a5a53bb13672c9358daade49",
		"lineitem": "ee0a96ffebe62c1d8297b0ad389881330a425425efe8051263d63908f4eed48a",
		"nation":   "7d47bc9397da331054fa92b8fb92e4c074004bad72dcbb893012093218dccf6c",
		"orders":   "8a4d2e3be83b68e45f29bb3bb9c42dacabec61819f8695e6b045a0c6a4cbb67b",
		"part":     "7beb0cf5013f9066bdbd4ddba886bce2bfc08a156c786de3cda1204cb4332e7b",
		"partsupp": "0a3026c320ddbdf62ac5d0cf9ca6541bd82f0225aa3be6f9cd0f1dffe3857fc4",
		"region":   "5a7c2fe9718db00ff5e5bc82a9ebfa8abc492cc75260d3c0ffb411974f235ab0",
		"supplier": "3a83adcdf515ca1b15bfa60b5808b03d7432b19e8b778572a97f3d0d86e1ae39",
	},
	"1": {
		"customer": "a035a33a703d3a043ecf97746b4e3a7988316c1c04923fda63231a59d5e46092",
		"lineitem": "4feb529dfa255799bbf0243d2f2c5028375dfb684e592eb94775345602aa2728",
		"nation":   "7d47bc9397da331054fa92b8fb92e4c074004bad72dcbb893012093218dccf6c",
		"orders":   "3f111871419ea6f319fcc51c235d199b3edf16754c5e100be92927527e5f6c97",
		"part":     "cecd01146ae002aebe47e6b58bd81644df1d51d9c14da3425aea2b4976e02d60",
		"partsupp": "3a68b7b7757cd3aacccb39c4bc092dc3edf3b7e0e7609a259c39238cae0be41e",
		"region":   "5a7c2fe9718db00ff5e5bc82a9ebfa8abc492cc75260d3c0ffb411974f235ab0",
		"supplier": "f5699b5df22724f41bee9b8521798d8fc0cecd5beb0bd3bca96547ac58095547",
	},
}

// TestDbgenEquality generates SF 0.01 and 0.1 (SF 1 too with
// TPCH_SF1=1, 30 s) and compares every table with dbgen's output.
func TestDbgenEquality(t *testing.T) {
	sfs := []string{"0.01", "0.1"}
	if testing.Short() {
		sfs = sfs[:1]
	}
	if os.Getenv("TPCH_SF1") != "" {
		sfs = append(sfs, "1")
	}
	for _, sf := range sfs {
		t.Run(sf, func(t *testing.T) {
			w := mustNew(t, mustFloat(t, sf), DefaultOptions())
			for _, name := range TableNames() {
				h := sha256.New()
				if err := w.WriteTable(h, name); err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != dbgenSHA256[sf][name] {
					t.Errorf("%s at SF %s: sha256 %s, dbgen's is %s", name, sf, got, dbgenSHA256[sf][name])
				}
			}
		})
	}
}

// TestDbgenFirstRows checks first rows of SF 1 against dbgen's published
// output (the same in every dbgen since 2.x), field by field, so that a
// failure says which column differs.
func TestDbgenFirstRows(t *testing.T) {
	z, _ := sizesAt(1)
	for _, tc := range []struct {
		name, got, want string
	}{
		{"customer 1", string(tblCustomer(nil, newCustomerGen().gen(1))),
			"1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e\n"},
		{"supplier 1", string(tblSupplier(nil, newSupplierGen().gen(1))),
			"1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above the careful\n"},
		{"nation 0", string(tblNation(nil, newNationGen(), 0)),
			"0|ALGERIA|0| haggle. carefully final deposits detect slyly agai\n"},
		{"region 0", string(tblRegion(nil, newNationGen(), 0)),
			"0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to \n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
	o, l := tblOrder(nil, nil, newOrderGen(z).gen(1))
	if want := "1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among \n"; string(o) != want {
		t.Errorf("order 1:\n got %q\nwant %q", o, want)
	}
	if want := "1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the\n"; !bytes.HasPrefix(l, []byte(want)) {
		t.Errorf("lineitem of order 1:\n got %q\nwant prefix %q", l, want)
	}
}

// TestPartition generates ranges of every table on their own, in a
// shuffled order, and compares them with the same rows of a generation
// from row 1: data is partitionable.
func TestPartition(t *testing.T) {
	z, _ := sizesAt(0.01)
	whole := tblTables(z)
	lines := func(b []byte) [][]byte { return bytes.SplitAfter(b, []byte("\n")) }
	ranges := [][2]int64{{1001, 1500}, {1, 1}, {700, 1000}, {2, 699}}
	// orders (and lineitem): ranges of orders, generated alone, out of order
	og := newOrderGen(z)
	wantOrders := lines(whole["orders"])
	for _, r := range [][2]int64{{14000, 15000}, {5, 9}, {1, 4}, {7777, 7800}} {
		var got []byte
		for i := r[0]; i <= r[1]; i++ {
			got, _ = tblOrder(got, nil, og.gen(i))
		}
		if want := bytes.Join(wantOrders[r[0]-1:r[1]], nil); !bytes.Equal(got, want) {
			t.Errorf("orders %d..%d alone differ from the whole generation", r[0], r[1])
		}
	}
	cg := newCustomerGen()
	wantCust := lines(whole["customer"])
	pg := newPartGen(z)
	wantPart := lines(whole["part"])
	for _, r := range ranges {
		var gc, gp []byte
		for i := r[0]; i <= r[1]; i++ {
			gc = tblCustomer(gc, cg.gen(i))
			gp, _ = tblPart(gp, nil, pg.gen(i))
		}
		if want := bytes.Join(wantCust[r[0]-1:r[1]], nil); !bytes.Equal(gc, want) {
			t.Errorf("customers %d..%d alone differ", r[0], r[1])
		}
		if want := bytes.Join(wantPart[r[0]-1:r[1]], nil); !bytes.Equal(gp, want) {
			t.Errorf("parts %d..%d alone differ", r[0], r[1])
		}
	}
	sg := newSupplierGen()
	wantSupp := lines(whole["supplier"])
	for _, k := range []int64{100, 50, 51, 1} {
		if got := tblSupplier(nil, sg.gen(k)); !bytes.Equal(got, wantSupp[k-1]) {
			t.Errorf("supplier %d alone differs", k)
		}
	}
	// lineitem counts per order, drawn alone, add up to the table's rows.
	w, _ := New(0.01, nil)
	n := int64(0)
	for i := int64(1); i <= z.orders; i++ {
		n += lineCount(i)
	}
	if got := int64(bytes.Count(whole["lineitem"], []byte("\n"))); got != n || n != w.(*Workload).lineitems() {
		t.Errorf("lineitem rows %d, line counts %d, Workload %d", got, n, w.(*Workload).lineitems())
	}
}

// TestDeterministic generates SF 0.01 twice and compares.
func TestDeterministic(t *testing.T) {
	z, _ := sizesAt(0.01)
	a, b := tblTables(z), tblTables(z)
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
}

// TestRowCounts checks clause 4.2.5's cardinalities at SF 0.01 and 0.1,
// LINEITEM's as dbgen generates them.
func TestRowCounts(t *testing.T) {
	for _, tc := range []struct {
		sf   float64
		want map[string]int64
	}{
		{0.01, map[string]int64{"region": 5, "nation": 25, "part": 2000, "partsupp": 8000, "supplier": 100,
			"customer": 1500, "orders": 15000, "lineitem": 60175}},
		{0.1, map[string]int64{"region": 5, "nation": 25, "part": 20000, "partsupp": 80000, "supplier": 1000,
			"customer": 15000, "orders": 150000, "lineitem": 600572}},
		{1, map[string]int64{"region": 5, "nation": 25, "part": 200000, "partsupp": 800000, "supplier": 10000,
			"customer": 150000, "orders": 1500000, "lineitem": 6001215}},
	} {
		w, err := New(tc.sf, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := w.(*Workload).Counts()
		total := int64(0)
		for name, n := range tc.want {
			if got[name] != n {
				t.Errorf("SF %v %s: %d rows, want %d", tc.sf, name, got[name], n)
			}
			total += n
		}
		if w.Rows() != total {
			t.Errorf("SF %v: Rows %d, want %d", tc.sf, w.Rows(), total)
		}
	}
}

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		sf     float64
		ok     bool
		orders int64
	}{
		{0.01, true, 15000},
		{0.015, true, 22500},
		{0.29, true, 435000}, // dbgen -s 0.29 makes 43500 customers
		{0.5, true, 750000},
		{1, true, 1500000},
		{10, true, 15000000},
		{1000, true, 1500000000},
		{0.009, false, 0},
		{0.001, false, 0},
		{0, false, 0},
		{-1, false, 0},
		{0.0105, false, 0},
		{1.5, false, 0},
		{1001, false, 0},
	} {
		allowed := CheckScale(tc.sf)
		if (allowed == "") != tc.ok {
			t.Errorf("CheckScale(%v) = %q, want ok %v", tc.sf, allowed, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		z, _ := sizesAt(tc.sf)
		if z.orders != tc.orders {
			t.Errorf("SF %v: %d orders, want %d", tc.sf, z.orders, tc.orders)
		}
	}
	if z, _ := sizesAt(1000); !z.orderKeyIsBig() {
		t.Error("SF 1000's order keys fit int4?")
	}
	if z, _ := sizesAt(100); z.orderKeyIsBig() {
		t.Error("SF 100's order keys need bigint?")
	}
}

func BenchmarkLineitem(b *testing.B) {
	z, _ := sizesAt(1)
	g := newOrderGen(z)
	buf := make([]byte, 0, 4096)
	lines := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := g.gen(int64(i%int(z.orders)) + 1)
		lines += len(r.lines)
		buf = encodeLines(buf[:0], r, false)
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}
