package tpcc

import (
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// table names a generated part of the data: a table, or the stream of
// O_OL_CNT values that ORDER and ORDER-LINE share.
type table int

const (
	tItem table = iota + 1
	tWarehouse
	tDistrict
	tCustomer
	tHistory
	tOrders
	tNewOrder
	tOrderLine
	tStock
	tLineCounts
)

func (t table) String() string {
	switch t {
	case tItem:
		return "item"
	case tWarehouse:
		return "warehouse"
	case tDistrict:
		return "district"
	case tCustomer:
		return "customer"
	case tHistory:
		return "history"
	case tOrders:
		return "orders"
	case tNewOrder:
		return "new_order"
	case tOrderLine:
		return "order_line"
	case tStock:
		return "stock"
	}
	return fmt.Sprintf("table(%d)", int(t))
}

// warehouseTables are the tables generated per warehouse, the largest
// first so that parallel loading finishes together.
var warehouseTables = []table{tStock, tOrderLine, tCustomer, tHistory, tOrders, tNewOrder, tDistrict, tWarehouse}

// generator makes the rows of clause 4.3.3.1. Each table of each warehouse
// is a pure function of (seed, table, warehouse) and the load time.
type generator struct {
	seed  uint64
	cLoad int   // C of NURand for C_LAST at load (clause 2.1.6, 4.3.3.1)
	now   int64 // "current date and time", as a PostgreSQL timestamp
	// first is added to every warehouse number written: a tenant of
	// shared tables numbers its warehouses first+1 .. first+W. The rows
	// are drawn from the streams of warehouses 1 .. W all the same, so
	// that its data equal those of a tenant with tables of its own.
	first int
}

func newGenerator(seed uint64, k constants, now time.Time) *generator {
	return &generator{seed: seed, cLoad: k.cLoad, now: workload.PGMicros(now)}
}

// source is the rows of table t of warehouse w (w is ignored for ITEM),
// numbered w + first.
func (g *generator) source(t table, w int) workload.RowSource {
	r := streamRNG(g.seed, t, w)
	id := w + g.first
	switch t {
	case tItem:
		return &itemRows{r: r, orig: r.sample(items, items/10)}
	case tWarehouse:
		return &warehouseRows{r: r, w: id}
	case tDistrict:
		return &districtRows{r: r, w: id}
	case tCustomer:
		return &customerRows{r: r, w: id, cLoad: g.cLoad, now: g.now}
	case tHistory:
		return &historyRows{r: r, w: id, now: g.now}
	case tOrders:
		return &orderRows{r: r, counts: streamRNG(g.seed, tLineCounts, w), w: id, now: g.now}
	case tNewOrder:
		return &newOrderRows{w: id}
	case tOrderLine:
		return &orderLineRows{r: r, counts: streamRNG(g.seed, tLineCounts, w), w: id, now: g.now}
	case tStock:
		return &stockRows{r: r, w: id, orig: r.sample(stockPerW, stockPerW/10)}
	}
	panic("tpcc: no generator for " + t.String())
}

// orderLinesOf is the number of ORDER-LINE rows of warehouse w: the sum of
// its O_OL_CNT values, drawn from the stream ORDER and ORDER-LINE share.
func orderLinesOf(seed uint64, w int) int {
	r := streamRNG(seed, tLineCounts, w)
	n := 0
	for range ordersPerW {
		n += r.rand(minOrderLines, maxOrderLines)
	}
	return n
}

// itemRows: I_ID 1 .. 100,000; I_IM_ID random [1 .. 10,000]; I_NAME
// a-string [14 .. 24]; I_PRICE random [1.00 .. 100.00]; I_DATA a-string
// [26 .. 50], "ORIGINAL" in 10 % of the rows selected at random.
type itemRows struct {
	r    rng
	i    int
	orig bitset
}

func (s *itemRows) AppendRow(b []byte) ([]byte, bool) {
	if s.i == items {
		return b, false
	}
	s.i++
	b = workload.AppendFieldCount(b, 5)
	b = workload.AppendInt4(b, int64(s.i))
	b = workload.AppendInt4(b, int64(s.r.rand(1, 10000)))
	b = s.r.putAlnum(b, 14, 24)
	b = workload.AppendNumericField(b, int64(s.r.rand(100, 10000)), 2)
	b = s.r.putData(b, s.orig.has(s.i-1))
	return b, true
}

// warehouseRows: one row. W_NAME a-string [6 .. 10]; the address; W_TAX
// random [0.0000 .. 0.2000]; W_YTD 300,000.00.
type warehouseRows struct {
	r    rng
	w    int
	done bool
}

func (s *warehouseRows) AppendRow(b []byte) ([]byte, bool) {
	if s.done {
		return b, false
	}
	s.done = true
	b = workload.AppendFieldCount(b, 9)
	b = workload.AppendInt4(b, int64(s.w))
	b = s.r.putAlnum(b, 6, 10)
	b = s.r.putAddress(b)
	b = workload.AppendNumericField(b, int64(s.r.rand(0, 2000)), 4)
	b = workload.AppendNumericField(b, 30000000, 2)
	return b, true
}

// districtRows: D_ID 1 .. 10; D_NAME a-string [6 .. 10]; the address;
// D_TAX random [0.0000 .. 0.2000]; D_YTD 30,000.00; D_NEXT_O_ID 3,001.
type districtRows struct {
	r rng
	w int
	d int
}

func (s *districtRows) AppendRow(b []byte) ([]byte, bool) {
	if s.d == districtsPerW {
		return b, false
	}
	s.d++
	b = workload.AppendFieldCount(b, 11)
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = s.r.putAlnum(b, 6, 10)
	b = s.r.putAddress(b)
	b = workload.AppendNumericField(b, int64(s.r.rand(0, 2000)), 4)
	b = workload.AppendNumericField(b, 3000000, 2)
	b = workload.AppendInt4(b, int64(initialNextOrderID))
	return b, true
}

// customerRows: 3,000 per district. C_LAST from the numbers 0 .. 999 for
// the first 1,000 customers, then from NURand(255, 0, 999) with the load
// C; C_MIDDLE "OE"; C_FIRST a-string [8 .. 16]; the address; C_PHONE
// n-string of 16; C_SINCE now; C_CREDIT "GC", "BC" for 10 % selected at
// random; C_CREDIT_LIM 50,000.00; C_DISCOUNT random [0.0000 .. 0.5000];
// C_BALANCE -10.00; C_YTD_PAYMENT 10.00; C_PAYMENT_CNT 1; C_DELIVERY_CNT
// 0; C_DATA a-string [300 .. 500].
type customerRows struct {
	r     rng
	w     int
	d, c  int // the last row made
	cLoad int
	now   int64
	bad   bitset // the customers of district d with bad credit
}

func (s *customerRows) AppendRow(b []byte) ([]byte, bool) {
	if s.c == customersPerD || s.d == 0 {
		if s.d == districtsPerW {
			return b, false
		}
		s.d, s.c = s.d+1, 0
		s.bad = s.r.sample(customersPerD, customersPerD/10)
	}
	s.c++
	b = workload.AppendFieldCount(b, 21)
	b = workload.AppendInt4(b, int64(s.c))
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = s.r.putAlnum(b, 8, 16)
	b = workload.AppendText(b, "OE")
	name := s.c - 1
	if s.c > 1000 {
		name = s.r.nurand(aLast, s.cLoad, 0, 999)
	}
	b = workload.AppendText(b, lastNames[name])
	b = s.r.putAddress(b)
	b = s.r.putDigits(b, 16)
	b = workload.AppendTimestamp(b, s.now)
	if s.bad.has(s.c - 1) {
		b = workload.AppendText(b, "BC")
	} else {
		b = workload.AppendText(b, "GC")
	}
	b = workload.AppendNumericField(b, 5000000, 2)
	b = workload.AppendNumericField(b, int64(s.r.rand(0, 5000)), 4)
	b = workload.AppendNumericField(b, -1000, 2)
	b = workload.AppendNumericField(b, 1000, 2)
	b = workload.AppendInt4(b, int64(1))
	b = workload.AppendInt4(b, int64(0))
	b = s.r.putAlnum(b, 300, 500)
	return b, true
}

// historyRows: one per customer. H_C_ID = C_ID; H_C_D_ID = H_D_ID = D_ID;
// H_C_W_ID = H_W_ID = W_ID; H_DATE now; H_AMOUNT 10.00; H_DATA a-string
// [12 .. 24].
type historyRows struct {
	r    rng
	w    int
	d, c int
	now  int64
}

func (s *historyRows) AppendRow(b []byte) ([]byte, bool) {
	if s.c == customersPerD || s.d == 0 {
		if s.d == districtsPerW {
			return b, false
		}
		s.d, s.c = s.d+1, 0
	}
	s.c++
	b = workload.AppendFieldCount(b, 8)
	b = workload.AppendInt4(b, int64(s.c))
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = workload.AppendTimestamp(b, s.now)
	b = workload.AppendNumericField(b, initialHistoryAmount, 2)
	b = s.r.putAlnum(b, 12, 24)
	return b, true
}

// orderRows: 3,000 per district. O_C_ID from a random permutation of
// [1 .. 3,000]; O_ENTRY_D now; O_CARRIER_ID random [1 .. 10] below O_ID
// 2,101, else null; O_OL_CNT random [5 .. 15] (from the stream ORDER-LINE
// reads too); O_ALL_LOCAL 1.
type orderRows struct {
	r, counts rng
	w         int
	d, o      int
	now       int64
	perm      [ordersPerD]int32
}

func (s *orderRows) AppendRow(b []byte) ([]byte, bool) {
	if s.o == ordersPerD || s.d == 0 {
		if s.d == districtsPerW {
			return b, false
		}
		s.d, s.o = s.d+1, 0
		s.r.permute(s.perm[:])
	}
	s.o++
	b = workload.AppendFieldCount(b, 8)
	b = workload.AppendInt4(b, int64(s.o))
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = workload.AppendInt4(b, int64(int(s.perm[s.o-1])))
	b = workload.AppendTimestamp(b, s.now)
	if s.o < deliveredBelowOrder {
		b = workload.AppendInt4(b, int64(s.r.rand(1, 10)))
	} else {
		b = workload.AppendNull(b)
	}
	b = workload.AppendInt4(b, int64(s.counts.rand(minOrderLines, maxOrderLines)))
	b = workload.AppendInt4(b, int64(1))
	return b, true
}

// newOrderRows: 900 per district, for the orders 2,101 .. 3,000.
type newOrderRows struct {
	w, d, o int
}

func (s *newOrderRows) AppendRow(b []byte) ([]byte, bool) {
	if s.o == ordersPerD || s.d == 0 {
		if s.d == districtsPerW {
			return b, false
		}
		s.d, s.o = s.d+1, firstNewOrder-1
	}
	s.o++
	b = workload.AppendFieldCount(b, 3)
	b = workload.AppendInt4(b, int64(s.o))
	b = workload.AppendInt4(b, int64(s.d))
	return workload.AppendInt4(b, int64(s.w)), true
}

// orderLineRows: O_OL_CNT per order. OL_NUMBER 1 .. O_OL_CNT; OL_I_ID
// random [1 .. 100,000]; OL_SUPPLY_W_ID = W_ID; OL_DELIVERY_D = O_ENTRY_D
// below order 2,101, else null; OL_QUANTITY 5; OL_AMOUNT 0.00 below order
// 2,101, else random [0.01 .. 9,999.99]; OL_DIST_INFO a-string of 24.
type orderLineRows struct {
	r, counts rng
	w         int
	d, o      int
	n, lines  int // the last line made of order o, and its O_OL_CNT
	now       int64
}

func (s *orderLineRows) AppendRow(b []byte) ([]byte, bool) {
	for s.n == s.lines {
		if s.o == ordersPerD || s.d == 0 {
			if s.d == districtsPerW {
				return b, false
			}
			s.d, s.o = s.d+1, 0
		}
		s.o++
		s.n, s.lines = 0, s.counts.rand(minOrderLines, maxOrderLines)
	}
	s.n++
	delivered := s.o < deliveredBelowOrder
	b = workload.AppendFieldCount(b, 10)
	b = workload.AppendInt4(b, int64(s.o))
	b = workload.AppendInt4(b, int64(s.d))
	b = workload.AppendInt4(b, int64(s.w))
	b = workload.AppendInt4(b, int64(s.n))
	b = workload.AppendInt4(b, int64(s.r.rand(1, items)))
	b = workload.AppendInt4(b, int64(s.w))
	if delivered {
		b = workload.AppendTimestamp(b, s.now)
	} else {
		b = workload.AppendNull(b)
	}
	b = workload.AppendInt4(b, int64(5))
	if delivered {
		b = workload.AppendNumericField(b, 0, 2)
	} else {
		b = workload.AppendNumericField(b, int64(s.r.rand(1, 999999)), 2)
	}
	b = s.r.putAlnum(b, 24, 24)
	return b, true
}

// stockRows: S_I_ID 1 .. 100,000; S_QUANTITY random [10 .. 100];
// S_DIST_01 .. S_DIST_10 a-strings of 24; S_YTD, S_ORDER_CNT,
// S_REMOTE_CNT 0; S_DATA a-string [26 .. 50], "ORIGINAL" in 10 % of the
// rows selected at random.
type stockRows struct {
	r    rng
	w, i int
	orig bitset
}

func (s *stockRows) AppendRow(b []byte) ([]byte, bool) {
	if s.i == stockPerW {
		return b, false
	}
	s.i++
	b = workload.AppendFieldCount(b, 17)
	b = workload.AppendInt4(b, int64(s.i))
	b = workload.AppendInt4(b, int64(s.w))
	b = workload.AppendInt4(b, int64(s.r.rand(10, 100)))
	for range 10 {
		b = s.r.putAlnum(b, 24, 24)
	}
	b = workload.AppendInt4(b, int64(0))
	b = workload.AppendInt4(b, int64(0))
	b = workload.AppendInt4(b, int64(0))
	b = s.r.putData(b, s.orig.has(s.i-1))
	return b, true
}

// rowsOf is the number of rows of table t for one warehouse (all items for
// ITEM), per clause 4.3.1.
func rowsOf(t table, seed uint64, w int) int {
	switch t {
	case tItem:
		return items
	case tWarehouse:
		return 1
	case tDistrict:
		return districtsPerW
	case tCustomer, tHistory, tOrders:
		return customersPerW
	case tNewOrder:
		return newOrdersPerW
	case tOrderLine:
		return orderLinesOf(seed, w)
	case tStock:
		return stockPerW
	}
	return 0
}

// lastNames are the 1,000 last names of clause 4.3.2.3, by number.
var lastNames = func() (names [1000]string) {
	for i := range names {
		names[i] = lastName(i)
	}
	return names
}()
