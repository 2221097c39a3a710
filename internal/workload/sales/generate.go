package sales

import (
	"math/bits"
	"strconv"
)

// generator makes the loaded rows. Every value is a pure function of the
// data seed and the row's id (any batch of rows is
// computable on its own, so the same seed and scale give the same rows in
// any order, on any connection).
//
//	customer  c_id 1..N, c_name 'Customer#' || c_id on 9 digits,
//	          c_credit 0.00..10000.00, c_updateddate the data's epoch
//	orders    o_id 1..N, o_c_id a customer 1..N, o_date epoch + (o_id-1) x step
//	          (so the newest orders have the highest ids), o_status 'UNPAID',
//	          o_totalamount the sum of its lines' amounts, o_updateddate o_date
//	orderline ol_id 1..10 N, ol_o_id (ol_id-1)/10+1, ol_p_id a product
//	          1..100000, ol_quantity 1..10, ol_amount ol_quantity x the
//	          product's price (1.00..100.00)
type generator struct {
	keys              [numStreams]uint64
	customers, orders int64
	step              int64 // microseconds between two orders' dates
}

// The independent random streams of the generator, one per value.
const (
	streamCredit = iota
	streamOrderCustomer
	streamProduct
	streamQuantity
	streamPrice
	numStreams
)

// Ranges of the generated values.
const (
	products    = 100000
	maxQuantity = 10
	minPrice    = 100   // cents: 1.00
	maxPrice    = 10000 // cents: 100.00
	maxCredit   = 1000000
	// epoch is when the data begin, 2024-01-01 00:00:00 UTC, in
	// PostgreSQL's microseconds since 2000-01-01; orders are dated over
	// the 366 days of 2024 that follow.
	epoch     = 757382400 * 1000000
	dateRange = 366 * 86400 * 1000000
)

func newGenerator(seed int64, customers, orders int64) generator {
	g := generator{customers: customers, orders: orders, step: dateRange / orders}
	for s := range g.keys {
		g.keys[s] = mix64(uint64(seed)*0xbf58476d1ce4e5b9 + uint64(s+1)*0x9e3779b97f4a7c15)
	}
	return g
}

// mix64 is SplitMix64's finalizer: a bijection that scatters every input
// bit over the output.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform is the value of stream s for id, uniform in 0..n-1.
func (g *generator) uniform(s int, id, n int64) int64 {
	h := mix64(g.keys[s] + uint64(id)*0x9e3779b97f4a7c15)
	hi, _ := bits.Mul64(h, uint64(n))
	return int64(hi)
}

// credit is customer c's loaded c_credit in cents.
func (g *generator) credit(c int64) int64 { return g.uniform(streamCredit, c, maxCredit+1) }

// orderCustomer is order o's o_c_id.
func (g *generator) orderCustomer(o int64) int64 {
	return 1 + g.uniform(streamOrderCustomer, o, g.customers)
}

// orderDate is order o's o_date: the higher the id, the newer the order.
func (g *generator) orderDate(o int64) int64 { return epoch + (o-1)*g.step }

// product is line l's ol_p_id.
func (g *generator) product(l int64) int64 { return 1 + g.uniform(streamProduct, l, products) }

// quantity is line l's ol_quantity.
func (g *generator) quantity(l int64) int64 { return 1 + g.uniform(streamQuantity, l, maxQuantity) }

// price is product p's unit price in cents. T1 prices its lines with it
// too, so new lines cost what loaded ones do.
func (g *generator) price(p int64) int64 {
	return minPrice + g.uniform(streamPrice, p, maxPrice-minPrice+1)
}

// lineAmount is line l's ol_amount in cents.
func (g *generator) lineAmount(l int64) int64 { return g.quantity(l) * g.price(g.product(l)) }

// orderTotal is order o's o_totalamount in cents: the sum of its loaded
// lines.
func (g *generator) orderTotal(o int64) int64 {
	total := int64(0)
	for l := (o-1)*linesPerOrder + 1; l <= o*linesPerOrder; l++ {
		total += g.lineAmount(l)
	}
	return total
}

// appendCustomerName appends c_name: "Customer#" and c on at least 9
// digits, as TPC-H names its customers.
func appendCustomerName(buf []byte, c int64) []byte {
	buf = append(buf, "Customer#"...)
	for d := int64(100000000); d > 1 && c < d; d /= 10 {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, c, 10)
}
