// Package tpcc is the TPC-C workload, following the TPC Benchmark C
// Standard Specification, revision 5.11 (February 2010). Comments cite its
// clauses.
//
// The nine tables of clause 1.3 are populated by a deterministic generator
// (clause 4.3) in which every warehouse is generated on its own from the
// workload's seed, and loaded with binary COPY over several connections.
// The five transactions of clauses 2.4 to 2.8 run from terminals bound to a
// home warehouse and district, dealt from a shuffled deck (clause 5.2.4.2).
// Check verifies the consistency conditions of clause 3.3.2.
//
// What differs from the specification is listed in docs/workloads-tpcc.md.
package tpcc

import (
	"fmt"
	"math"
	"sync"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Name is the workload's name in a spec (workload.name).
const Name = "tpcc"

// The transaction types, indexes into TxnNames, in the order of clause 2.
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	numTxns
)

// txnNames name the transaction types in specs and results.
var txnNames = [numTxns]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// txnIndex is the transaction type called name, or -1.
func txnIndex(name string) int {
	for i, n := range txnNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Cardinalities of clause 1.2.1 and the population of clause 4.3.3.1.
const (
	items                = 100000 // ITEM rows, whatever the scale
	districtsPerW        = 10
	customersPerD        = 3000
	ordersPerD           = 3000
	newOrdersPerD        = 900 // the orders 2101 .. 3000 are undelivered
	firstNewOrder        = ordersPerD - newOrdersPerD + 1
	stockPerW            = items
	initialNextOrderID   = ordersPerD + 1
	minOrderLines        = 5
	maxOrderLines        = 15
	maxWarehouses        = 100000    // about 10 TB: a bound against typing errors
	unusedItem           = items + 1 // an item id the ITEM table does not hold (clause 2.4.1.5)
	customersPerW        = districtsPerW * customersPerD
	ordersPerW           = districtsPerW * ordersPerD
	newOrdersPerW        = districtsPerW * newOrdersPerD
	fixedRowsPerW        = 1 + districtsPerW + 3*customersPerW + newOrdersPerW + stockPerW // all but ORDER-LINE
	deliveredBelowOrder  = firstNewOrder                                                   // O_ID < 2101: delivered at load
	initialHistoryAmount = 1000                                                            // H_AMOUNT 10.00, in cents
)

var _ workload.Workload = (*Workload)(nil)

// Workload is one tenant's TPC-C at one number of warehouses.
type Workload struct {
	warehouses int
	opts       Options
	k          constants
	seed       uint64
	// deck is the transaction types of one deck, before shuffling.
	deck []int
	// keyed: the workload of one tenant of tables that every tenant of
	// the run shares (ForTenant); its warehouses are first+1 ..
	// first+warehouses.
	keyed bool
	key   workload.TenantKey
	first int

	rowsOnce sync.Once
	rows     int64

	// clients are every client NewClient made, for Audit.
	clientsMu sync.Mutex
	clients   []*Client
}

// Factory registers tpcc in a workload.Registry.
func Factory() workload.Factory {
	return workload.Factory{Name: Name, Parse: Parse, New: New, Scale: checkScale, Spec: checkSpec}
}

// checkScale refuses a scale that is no number of warehouses before
// anything starts (New would refuse it only once the run is under way).
func checkScale(scale float64) string {
	if scale != math.Trunc(scale) || scale < 1 || scale > maxWarehouses {
		return fmt.Sprintf("the tpcc scale is the number of warehouses: a whole number from 1 to %d", maxWarehouses)
	}
	return ""
}

// New makes the workload. scale is the number of warehouses: a whole
// number from 1. opts is what Parse returned; nil means DefaultOptions.
func New(scale float64, opts any) (workload.Workload, error) {
	w, err := newWorkload(scale, opts)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func newWorkload(scale float64, opts any) (*Workload, error) {
	if math.IsNaN(scale) || scale != math.Trunc(scale) || scale < 1 || scale > maxWarehouses {
		return nil, fmt.Errorf("tpcc: scale %v: the scale is the number of warehouses, a whole number from 1 to %d", scale, maxWarehouses)
	}
	o, err := workload.OptionsAs("tpcc", opts, DefaultOptions())
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	w := &Workload{warehouses: int(scale), opts: o, seed: uint64(o.Seed)}
	w.k = newConstants(w.seed)
	w.deck = buildDeck(o.Mix)
	return w, nil
}

// Warehouses is the number of warehouses (the scale).
func (w *Workload) Warehouses() int { return w.warehouses }

// Interaction is the interaction mode (Options.Interaction): how each
// transaction travels to the server.
func (w *Workload) Interaction() string { return w.opts.Interaction }

var _ workload.Interactor = (*Workload)(nil)

// Options are the options the workload was made with.
func (w *Workload) Options() Options { return w.opts }

// TxnNames are new_order, payment, order_status, delivery and stock_level,
// always all five (a type of mix 0 is never picked), so a type's index is
// the same in every tpcc run.
func (w *Workload) TxnNames() []string { return append([]string(nil), txnNames[:]...) }

// Rows is the number of rows Ingest loads: the 100,000 items (but for a
// tenant of shared tables, whose items the owner loads) and, per
// warehouse, the rows of clause 4.3.1 (ORDER-LINE counted exactly, from the
// generated O_OL_CNT values).
func (w *Workload) Rows() int64 {
	w.rowsOnce.Do(func() {
		n := int64(items)
		if w.keyed {
			n = 0
		}
		for wid := 1; wid <= w.warehouses; wid++ {
			n += fixedRowsPerW + int64(orderLinesOf(w.seed, wid))
		}
		w.rows = n
	})
	return w.rows
}

// buildDeck is one deck of the mix: each type as many times as its
// percentage, divided by the greatest common divisor of the percentages
// (45/43/4/4/4 gives a deck of 100 cards; 50/50/0/0/0 a deck of 2).
func buildDeck(mix [numTxns]int) []int {
	g := 0
	for _, p := range mix {
		g = gcd(g, p)
	}
	var deck []int
	for t, p := range mix {
		for range p / g {
			deck = append(deck, t)
		}
	}
	return deck
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// RunsUnnamed: its statements go through workload.Prepare, and its
// clients send them unnamed (stmt.parse) behind a pooler that cannot
// keep named ones.
func (w *Workload) RunsUnnamed() bool { return true }

// SessionState: a procedure's call has no BEGIN to carry the isolation
// level, so it runs in the session's (SET SESSION CHARACTERISTICS);
// read committed is the server's own default.
func (w *Workload) SessionState() (option, value, why string) {
	if w.opts.Interaction == InteractionProcedures && w.opts.Isolation != IsolationReadCommitted {
		return "isolation", w.opts.Isolation, "in interaction procedures each call runs in the session's isolation level, which a pooler that moves the client between server connections does not keep; use interaction batched or statements (BEGIN carries the level), or sut.pooler.mode session"
	}
	return "", "", ""
}

var (
	_ workload.UnnamedRunner = (*Workload)(nil)
	_ workload.SessionBound  = (*Workload)(nil)

	_ workload.NamedReplicaReads = (*Workload)(nil)
)
