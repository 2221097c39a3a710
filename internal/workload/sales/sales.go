// Package sales is CloudyBench's sales workload (Zhang et al. 2025,
// "CloudyBench", section II-A, II-B.1 and Table II): the customer, orders
// and orderline tables of a SaaS sales microservice, scaled by a factor SF
// (SF 1: 300,000 customers, 300,000 orders and ten times as many order
// lines), loaded with binary COPY, and the four transactions of Table II,
// T1 New Orderline, T2 Order Payment, T3 Order Status and T4 Orderline
// Deletion, picked by ratio, over orders chosen uniformly or among the
// latest k.
//
// The paper names the columns its statements use; the other columns, the
// types and the generated values are this package's and are documented in
// docs/workloads.md.
package sales

import (
	"fmt"
	"math"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Name is the workload's name in a spec (workload.name).
const Name = "sales"

// The scale model of section II-A: "the ORDERLINE table being an order of
// magnitude larger than the CUSTOMER table and ORDER table, with a same
// size of 300,000" at SF 1. Ten lines per order make it exactly ten times.
const (
	rowsPerSF     = 300000 // customers, and orders, per unit of SF
	linesPerOrder = 10
	// maxSF keeps o_id and c_id, int columns, within int4.
	maxSF = math.MaxInt32 / rowsPerSF
)

// Factory registers sales in a workload.Registry.
func Factory() workload.Factory {
	return workload.Factory{Name: Name, Parse: Parse, New: New, Scale: CheckScale}
}

// rowsAt is the number of customers (and of orders) at scale sf: SF x
// 300,000, rounded down. The small epsilon keeps products such as
// 0.07 x 300000 = 20999.999... from losing a row to binary fractions.
func rowsAt(sf float64) int64 {
	return int64(math.Floor(sf*rowsPerSF + 1e-6))
}

// CheckScale says what a scale must be, or "" when sf is fine. Fractional
// scales are allowed (0.01 is 3,000 customers and orders); a scale that
// gives less than one customer is refused rather than rounded up.
func CheckScale(sf float64) string {
	if math.IsNaN(sf) || sf > maxSF || rowsAt(sf) < 1 {
		return fmt.Sprintf("must be from %.7f (1 customer, 1 order, %d order lines) to %d for sales (SF 1 is %d customers and orders)",
			1.0/rowsPerSF, linesPerOrder, maxSF, rowsPerSF)
	}
	return ""
}

// Workload is one tenant's sales at one scale.
type Workload struct {
	sf                       float64
	customers, orders, lines int64
	opts                     Options
	// txns are the transactions of weight > 0 in Table II's order;
	// weights are theirs. Client.Pick indexes both.
	txns    []txn
	weights []float64
	// latest is the k of the latest-k distribution (at most orders), 0
	// for uniform.
	latest int64
}

var _ workload.Workload = (*Workload)(nil)

// New makes the workload at scale sf, which CheckScale must accept. opts is
// what Parse returned; nil means DefaultOptions.
func New(sf float64, opts any) (workload.Workload, error) {
	if allowed := CheckScale(sf); allowed != "" {
		return nil, fmt.Errorf("sales: scale %v: %s", sf, allowed)
	}
	o, err := workload.OptionsAs("sales", opts, DefaultOptions())
	if err != nil {
		return nil, err
	}
	mix, err := o.weights()
	if err != nil {
		return nil, fmt.Errorf("sales: %w", err)
	}
	n := rowsAt(sf)
	w := &Workload{sf: sf, customers: n, orders: n, lines: n * linesPerOrder, opts: o}
	for _, t := range allTxns() {
		if mix[t] > 0 {
			w.txns = append(w.txns, t)
			w.weights = append(w.weights, mix[t])
		}
	}
	switch o.Distribution {
	case "", Uniform:
	case Latest:
		k := o.K
		if k == 0 {
			k = DefaultK
		}
		if k < 0 {
			return nil, fmt.Errorf("sales: distribution latest needs k >= 1, not %d", k)
		}
		// More than all orders is all orders: uniform, said in the docs.
		w.latest = min(k, w.orders)
	default:
		return nil, fmt.Errorf("sales: unknown distribution %q", o.Distribution)
	}
	return w, nil
}

// TxnNames are the names of the transactions of weight > 0, in Table II's
// order (new_orderline, order_payment, order_status, orderline_deletion).
// They name the transaction types in results.
func (w *Workload) TxnNames() []string {
	names := make([]string, len(w.txns))
	for i, t := range w.txns {
		names[i] = t.String()
	}
	return names
}

// Rows is the number of rows Ingest loads: customers, orders and lines.
func (w *Workload) Rows() int64 { return w.customers + w.orders + w.lines }
