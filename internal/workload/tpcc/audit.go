package tpcc

import (
	"fmt"
	"math"
)

// Counts are what terminals observed of the rates the specification sets.
// A transaction counts once it finished: committed, or rolled back on
// purpose (a New-Order's unused item); retries do not count again.
type Counts struct {
	// Txns are the finished transactions by type (indexed like TxnNames).
	Txns [numTxns]int64
	// Rollbacks are the New-Orders with an unused item (clause 2.4.1.4).
	Rollbacks int64
	// OrderLines are the lines of the New-Orders; RemoteLines those
	// supplied by another warehouse (clause 2.4.1.5.2).
	OrderLines, RemoteLines int64
	// RemotePayments are the Payments of a customer of another warehouse
	// (clause 2.5.1.2); PaymentsByName those selecting the customer by
	// last name.
	RemotePayments, PaymentsByName int64
	// OrderStatusByName are the Order-Status transactions selecting the
	// customer by last name (clause 2.6.1.2).
	OrderStatusByName int64
	// DeliveredOrders and SkippedDistricts split the districts Delivery
	// transactions visited; SkippingDeliveries are the Deliveries that
	// skipped at least one (clause 2.7.4.2).
	DeliveredOrders, SkippedDistricts, SkippingDeliveries int64
}

// Add adds o to c, to sum the counts of several terminals.
func (c *Counts) Add(o Counts) {
	for i := range c.Txns {
		c.Txns[i] += o.Txns[i]
	}
	c.Rollbacks += o.Rollbacks
	c.OrderLines += o.OrderLines
	c.RemoteLines += o.RemoteLines
	c.RemotePayments += o.RemotePayments
	c.PaymentsByName += o.PaymentsByName
	c.OrderStatusByName += o.OrderStatusByName
	c.DeliveredOrders += o.DeliveredOrders
	c.SkippedDistricts += o.SkippedDistricts
	c.SkippingDeliveries += o.SkippingDeliveries
}

// auditSigmas is how many standard errors an observed proportion may stray
// from the specification's before Audit reports it: at 4, a faithful
// terminal is reported about once in 16,000 audits of one rate.
const auditSigmas = 4

// Audit compares the rates observed over a run (the sum of its terminals'
// Counts) with those the specification sets for a tenant of the given
// number of warehouses and options, and returns one line per rate out of
// bounds; none means the run drew its input as specified. Besides, it
// reports a mix below the minimums of clause 5.2.3, and Deliveries that
// skipped a district in more than 1 % of the Deliveries, or more than one
// if that is more (clause 2.7.4.2 asks for them to be reported).
func Audit(c Counts, warehouses int, o Options) []string {
	var out []string
	total := int64(0)
	for _, n := range c.Txns {
		total += n
	}
	for t, n := range c.Txns {
		out = appendRate(out, "mix "+txnNames[t]+" (clause 5.2.3)", n, total, float64(o.Mix[t])/100)
	}
	for t, least := range [numTxns]int{Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4} {
		if o.Mix[t] < least {
			out = append(out, fmt.Sprintf("mix %s: configured %d %%, below the %d %% of clause 5.2.3", txnNames[t], o.Mix[t], least))
		}
	}
	remote := func(p float64) float64 {
		if warehouses > 1 {
			return p
		}
		return 0
	}
	out = appendRate(out, "new_order rollbacks (clause 2.4.1.4)", c.Rollbacks, c.Txns[NewOrder], 0.01)
	out = appendRate(out, "remote order lines (clause 2.4.1.5.2)", c.RemoteLines, c.OrderLines, remote(0.01))
	out = appendRate(out, "remote payments (clause 2.5.1.2)", c.RemotePayments, c.Txns[Payment], remote(0.15))
	out = appendRate(out, "payments by last name (clause 2.5.1.2)", c.PaymentsByName, c.Txns[Payment], 0.60)
	out = appendRate(out, "order_status by last name (clause 2.6.1.2)", c.OrderStatusByName, c.Txns[OrderStatus], 0.60)
	if n := c.Txns[NewOrder]; n > 0 {
		// O_OL_CNT is random [5 .. 15]: mean 10, variance (11^2 - 1) / 12.
		mean := float64(c.OrderLines) / float64(n)
		if se := math.Sqrt(10 / float64(n)); math.Abs(mean-10) > auditSigmas*se {
			out = append(out, fmt.Sprintf("order lines per new_order (clause 2.4.1.3): observed %.3f over %d, expected 10 within %.3f", mean, n, auditSigmas*se))
		}
	}
	if n := c.Txns[Delivery]; c.SkippingDeliveries > max(1, n/100) {
		out = append(out, fmt.Sprintf("deliveries skipping a district (clause 2.7.4.2): %d of %d, above 1 %%", c.SkippingDeliveries, n))
	}
	return out
}

// appendRate reports k of n when k/n strays more than auditSigmas standard
// errors from p (or, where p is 0 or 1, when it differs at all).
func appendRate(out []string, what string, k, n int64, p float64) []string {
	if n == 0 {
		return out
	}
	obs := float64(k) / float64(n)
	tol := auditSigmas * math.Sqrt(p*(1-p)/float64(n))
	if math.Abs(obs-p) <= tol {
		return out
	}
	return append(out, fmt.Sprintf("%s: observed %.4f (%d of %d), expected %.4f within %.4f", what, obs, k, n, p, tol))
}
