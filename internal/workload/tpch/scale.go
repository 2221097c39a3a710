package tpch

import (
	"fmt"
	"math"
)

// Table cardinalities (clause 4.2.5, Table 3; dbgen's tdefs): rows per
// unit of scale factor.
const (
	basePart     = 200000
	baseSupplier = 10000
	baseCustomer = 150000
	baseOrders   = 1500000 // 10 per customer (ORDERS_PER_CUST)
	numNations   = 25
	numRegions   = 5
	clerksPerSF  = 1000 // O_CLRK_SCL
)

// Limits of the scale factor. Below 1, dbgen scales every table by
// thousandths (int(1000 x SF) / 1000 of its SF 1 size, rounded down) and
// keeps SF 1's clerks and key ranges otherwise; from 1 on it takes the
// whole part of SF. The workload accepts exactly the scales dbgen
// generates, so that none is silently rounded: 0.01 to 1 in steps of
// 0.001, and whole numbers up to maxScale.
const (
	minScale = 0.01
	// maxScale keeps every key but the order key within int4 and below
	// dbgen's switch to its 64-bit generator for o_custkey and l_partkey
	// (SF 30000).
	maxScale = 1000
)

// sizes are the row counts and the dbgen parameters that depend on SF.
type sizes struct {
	sf float64
	// scale is dbgen's integral "scale": SF from 1 on, 1 below.
	scale                               int64
	parts, suppliers, customers, orders int64
	clerks                              int64
}

// CheckScale says what a scale must be, or "" when sf is fine.
func CheckScale(sf float64) string {
	if _, err := sizesAt(sf); err != nil {
		return fmt.Sprintf("must be from %v to 1 in steps of 0.001 (dbgen's fractional scale factors), or a whole number up to %d, for tpch (SF 1 is %d orders)",
			minScale, maxScale, baseOrders)
	}
	return ""
}

// sizesAt is the cardinalities at scale factor sf, as dbgen computes them
// (driver.c: int_scale = (int)(1000 x SF) for SF < 1).
func sizesAt(sf float64) (sizes, error) {
	if math.IsNaN(sf) || sf < minScale-1e-12 || sf > maxScale {
		return sizes{}, fmt.Errorf("scale %v out of range", sf)
	}
	if sf >= 1 {
		if sf != math.Trunc(sf) {
			return sizes{}, fmt.Errorf("scale %v: above 1 only whole numbers", sf)
		}
		k := int64(sf)
		return sizes{sf: sf, scale: k, parts: basePart * k, suppliers: baseSupplier * k,
			customers: baseCustomer * k, orders: baseOrders * k, clerks: clerksPerSF * k}, nil
	}
	if math.Abs(math.Round(1000*sf)-1000*sf) > 1e-6 {
		return sizes{}, fmt.Errorf("scale %v: below 1 in steps of 0.001", sf)
	}
	// Truncated as dbgen truncates it ((int)(1000 x SF)); for every
	// decimal 0.010 .. 0.999 the product is the whole number written.
	thousandths := int64(1000 * sf)
	f := func(base int64) int64 { return max(1, thousandths*base/1000) }
	return sizes{sf: sf, scale: 1, parts: f(basePart), suppliers: f(baseSupplier),
		customers: f(baseCustomer), orders: f(baseOrders), clerks: clerksPerSF}, nil
}

// maxOrderKey is the largest o_orderkey: the sparse key of the last order.
func (z sizes) maxOrderKey() int64 { return sparseKey(z.orders) }

// orderKeyIsBig says whether order keys need bigint.
func (z sizes) orderKeyIsBig() bool { return z.maxOrderKey() > math.MaxInt32 }
