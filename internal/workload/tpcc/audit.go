package tpcc

import (
	"math"

	"github.com/tenantbench/tenantbench/internal/workload"
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

// auditAlpha is the chance that the audit rejects one rate of a run that
// drew its input exactly as specified. The bounds of a proportion are the
// exact two-sided binomial acceptance interval at this level (no normal
// approximation, which is too narrow when n x p is small: a 1 % rate over
// a short run), so they widen as the run shortens and a short run does not
// fail spuriously; a long run still catches a rate off by a fraction of a
// point. 1e-6 is about 5 standard deviations of a normal; with about a
// dozen rates per tenant, one faithful run in some 80,000 is rejected.
const auditAlpha = 1e-6

// meanSigmas bounds the mean number of lines per New-Order, whose central
// limit (of a uniform draw) is reached fast: 5 standard errors, about the
// same level as auditAlpha.
const meanSigmas = 5

// Audit is the audit of every client the workload made so far (their
// transactions since they were made, warmup included): see AuditCounts.
// The run calls it after the workload phase, when no client runs.
func (w *Workload) Audit() []workload.Rate {
	var c Counts
	w.clientsMu.Lock()
	for _, cl := range w.clients {
		c.Add(cl.counts)
	}
	w.clientsMu.Unlock()
	return AuditCounts(c, w.warehouses, w.opts)
}

// AuditCounts compares the rates observed over a run (the sum of its
// terminals' Counts) with those the specification sets for a tenant of
// the given number of warehouses and options: the mix as configured
// (clause 5.2.3 with the deck of 5.2.4.2), the 1 % rollbacks of clause
// 2.4.1.4, the 1 % remote order lines of 2.4.1.5.2, the 15 % remote and
// 60 % by-name Payments of 2.5.1.2, the 60 % by-name Order-Status of
// 2.6.1.2 (nothing remote with one warehouse), the mean of 10 lines per
// New-Order of 2.4.1.3, and Deliveries that skipped a district in at most
// 1 % of the Deliveries, or one if that is more (clause 2.7.4.2 asks for
// them to be reported). A rate with nothing observed (no Order-Status in
// the mix) is left out.
func AuditCounts(c Counts, warehouses int, o Options) []workload.Rate {
	var out []workload.Rate
	total := int64(0)
	for _, n := range c.Txns {
		total += n
	}
	for t, n := range c.Txns {
		out = appendRate(out, "mix "+txnNames[t], "5.2.3", n, total, float64(o.Mix[t])/100)
	}
	remote := func(p float64) float64 {
		if warehouses > 1 {
			return p
		}
		return 0
	}
	out = appendRate(out, "new_order rollbacks", "2.4.1.4", c.Rollbacks, c.Txns[NewOrder], 0.01)
	out = appendRate(out, "remote order lines", "2.4.1.5.2", c.RemoteLines, c.OrderLines, remote(0.01))
	out = appendRate(out, "remote payments", "2.5.1.2", c.RemotePayments, c.Txns[Payment], remote(0.15))
	out = appendRate(out, "payments by last name", "2.5.1.2", c.PaymentsByName, c.Txns[Payment], 0.60)
	out = appendRate(out, "order_status by last name", "2.6.1.2", c.OrderStatusByName, c.Txns[OrderStatus], 0.60)
	if n := c.Txns[NewOrder]; n > 0 {
		// O_OL_CNT is random [5 .. 15]: mean 10, variance (11^2 - 1) / 12 = 10.
		mean := float64(c.OrderLines) / float64(n)
		tol := meanSigmas * math.Sqrt(10/float64(n))
		out = append(out, workload.Rate{Name: "order lines per new_order", Clause: "2.4.1.3",
			Count: c.OrderLines, Of: n, Observed: mean, Expected: 10, Low: 10 - tol, High: 10 + tol,
			OK: math.Abs(mean-10) <= tol})
	}
	if n := c.Txns[Delivery]; n > 0 {
		most := max(1, n/100)
		out = append(out, workload.Rate{Name: "deliveries skipping a district", Clause: "2.7.4.2",
			Count: c.SkippingDeliveries, Of: n, Observed: float64(c.SkippingDeliveries) / float64(n),
			High: float64(most) / float64(n), OK: c.SkippingDeliveries <= most})
	}
	return out
}

// appendRate adds the rate of k in n against the proportion p, accepted
// within the binomial interval of binomialBounds.
func appendRate(out []workload.Rate, name, clause string, k, n int64, p float64) []workload.Rate {
	if n == 0 {
		return out
	}
	lo, hi := binomialBounds(n, p, auditAlpha)
	fn := float64(n)
	return append(out, workload.Rate{Name: name, Clause: clause, Count: k, Of: n,
		Observed: float64(k) / fn, Expected: p, Low: float64(lo) / fn, High: float64(hi) / fn,
		OK: lo <= k && k <= hi})
}

// binomialBounds is the acceptance interval [lo, hi] of K ~ Binomial(n, p)
// at two-sided level alpha: lo is the least k with P(K <= k) >= alpha/2,
// hi the greatest with P(K >= k) >= alpha/2. Each tail is summed exactly
// from where its terms fall below alpha x e^-40 (what is left out is
// negligible) inward; that takes some 10 standard deviations of terms.
func binomialBounds(n int64, p, alpha float64) (lo, hi int64) {
	switch {
	case p <= 0:
		return 0, 0
	case p >= 1:
		return n, n
	}
	lgN, _ := math.Lgamma(float64(n) + 1)
	lp, lq := math.Log(p), math.Log1p(-p)
	logPMF := func(k int64) float64 {
		a, _ := math.Lgamma(float64(k) + 1)
		b, _ := math.Lgamma(float64(n-k) + 1)
		return lgN - a - b + float64(k)*lp + float64(n-k)*lq
	}
	mode := min(n, int64(float64(n+1)*p))
	negligible := math.Log(alpha) - 40
	tail := func(step int64) int64 {
		k := mode
		for k+step >= 0 && k+step <= n && logPMF(k) > negligible {
			k += step
		}
		sum := 0.0
		for ; k != mode; k -= step {
			if sum += math.Exp(logPMF(k)); sum >= alpha/2 {
				return k
			}
		}
		return mode
	}
	return tail(-1), tail(+1)
}
