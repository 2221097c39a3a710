package tpcc

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Options are the tpcc keys of workload.options.
type Options struct {
	// Mix is the percentage of each transaction type, indexed like
	// TxnNames; the five sum to 100. Terminals deal them from a shuffled
	// deck (clause 5.2.4.2).
	Mix [numTxns]int
	// AllWarehouses makes every terminal move to the next warehouse for
	// each transaction instead of keeping one home warehouse (HammerDB's
	// "use all warehouses", Matos and Pedreira 2025).
	AllWarehouses bool
	// Retries is how many times a transaction that failed with a
	// serialization failure (40001) or a deadlock (40P01) is run again
	// with the same input before its error is returned.
	Retries int
	// Check is how much Check verifies: CheckBasic (conditions 3.3.2.1 to
	// 3.3.2.4) or CheckFull (3.3.2.1 to 3.3.2.12).
	Check string
	// Isolation is the isolation level of every transaction: IsolationReadCommitted,
	// IsolationRepeatableRead or IsolationSerializable.
	Isolation string
	// Seed drives the generated data and the run-time constants C of
	// clause 2.1.6. Tenants with the same seed and scale hold the same data.
	Seed int64
	// LoadConnections is how many connections Ingest loads over; 0
	// chooses one more than the number of CPUs, at most 4.
	LoadConnections int
	// Freeze loads each table in one transaction that truncates it first,
	// with COPY FREEZE, tables in parallel; without, each table of each
	// warehouse is a COPY of its own, warehouses in parallel, and nothing
	// is truncated (for tables other tenants share).
	Freeze bool
	// KeyingAndThinkTime makes Client.Pace return the keying and think
	// times of clause 5.2.5 (see Pacer); off, terminals run transactions
	// back to back, as Erdelt and Rabl (2026) and Matos and Pedreira (2025)
	// did.
	KeyingAndThinkTime bool
	// Interaction is how a transaction travels to the server (see
	// Interactions): InteractionBatched, InteractionStatements or
	// InteractionProcedures. The work the transactions do is the same.
	Interaction string
}

// The values of Options.Interaction: how each transaction is sent, which
// decides the round trips, statements parsed and planned, context switches
// and lock hold times a transaction costs the server (docs/workloads.md).
const (
	// InteractionBatched sends each transaction as one or two round trips
	// of pipelined statements (arrays and CTEs batch the order lines).
	InteractionBatched = "batched"
	// InteractionStatements sends one statement per round trip, in the
	// order of the profiles of clauses 2.4.2, 2.5.2, 2.6.2, 2.7.4 and
	// 2.8.2, as BenchBase (Erdelt and Rabl 2026) and go-tpc do.
	InteractionStatements = "statements"
	// InteractionProcedures calls one PL/pgSQL function per transaction,
	// created in Setup, in one round trip, as HammerDB does on PostgreSQL
	// (Matos and Pedreira 2025).
	InteractionProcedures = "procedures"
)

// Interactions are the values of Options.Interaction.
var Interactions = []string{InteractionBatched, InteractionStatements, InteractionProcedures}

// The values of Options.Check.
const (
	CheckBasic = "basic"
	CheckFull  = "full"
)

// The values of Options.Isolation.
const (
	IsolationReadCommitted  = "read_committed"
	IsolationRepeatableRead = "repeatable_read"
	IsolationSerializable   = "serializable"
)

// DefaultOptions are the specification's mix (45/43/4/4/4, clause 5.2.3
// with New-Order taking the rest), home warehouses, 3 retries, the basic
// check, read committed, seed 0, automatic load connections, a frozen
// load and batched interaction.
func DefaultOptions() Options {
	return Options{
		Freeze:    true,
		Mix:       [numTxns]int{NewOrder: 45, Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4},
		Retries:   3,
		Check:     CheckBasic,
		Isolation: IsolationReadCommitted,

		Interaction: InteractionBatched,
	}
}

const (
	optionsPath        = "workload.options"
	maxRetries         = 100
	maxLoadConnections = 64
)

// Parse decodes workload.options strictly and reports every problem at
// once, each with its path below workload.options. A missing or empty node
// gives DefaultOptions. Parse only reads node.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	d := spec.NewDecoder()
	boolean := func(dst *bool) func(*yaml.Node, string) {
		return func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadBool, dst) }
	}
	retries := spec.Where(spec.ReadInt, spec.Within(0, maxRetries),
		fmt.Sprintf("must be an integer from 0 to %d", maxRetries))
	loadConnections := spec.Where(spec.ReadInt, spec.Within(0, maxLoadConnections),
		fmt.Sprintf("must be an integer from 0 (automatic) to %d", maxLoadConnections))
	check := spec.Where(spec.ReadText, func(s string) bool { return s == CheckBasic || s == CheckFull },
		"must be basic (conditions 3.3.2.1-3.3.2.4) or full (3.3.2.1-3.3.2.12)")
	isolation := spec.ReadOneOf(IsolationReadCommitted, IsolationRepeatableRead, IsolationSerializable)
	interaction := spec.ReadOneOf(Interactions...)
	d.Mapping(node, optionsPath, []spec.Field{
		{Key: "mix", Read: func(n *yaml.Node, p string) { readMix(d, n, p, &opts.Mix) }},
		{Key: "all_warehouses", Read: boolean(&opts.AllWarehouses)},
		{Key: "retries", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, retries, &opts.Retries) }},
		{Key: "check", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, check, &opts.Check) }},
		{Key: "isolation", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, isolation, &opts.Isolation) }},
		{Key: "seed", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadInt64, &opts.Seed) }},
		{Key: "load_connections", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, loadConnections, &opts.LoadConnections) }},
		{Key: "freeze", Read: boolean(&opts.Freeze)},
		{Key: "keying_and_think_time", Read: boolean(&opts.KeyingAndThinkTime)},
		{Key: "interaction", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, interaction, &opts.Interaction) }},
	})
	if problems := d.Problems(); problems != nil {
		return nil, problems
	}
	return opts, nil
}

// readMix reads the mix: transaction name -> percentage, each from 0 to
// 100, summing to 100. Names not given are 0; null keeps dst.
func readMix(d *spec.Decoder, n *yaml.Node, path string, dst *[numTxns]int) {
	if spec.IsNull(n) {
		return
	}
	percentage := spec.Where(spec.ReadInt, spec.Within(0, 100), "must be a whole percentage from 0 to 100")
	var mix [numTxns]int
	fields := make([]spec.Field, numTxns)
	for t := range fields {
		fields[t] = spec.Field{Key: txnNames[t], Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, percentage, &mix[t]) }}
	}
	before := len(d.Problems())
	d.Mapping(n, path, fields)
	if len(d.Problems()) > before {
		return
	}
	sum := 0
	for _, p := range mix {
		sum += p
	}
	if sum != 100 {
		d.Refuse(n, path, fmt.Sprintf("the percentages sum to %d; they must sum to 100", sum))
		return
	}
	*dst = mix
}

// validate checks options that did not come through Parse (a caller that
// builds Options itself).
func (o *Options) validate() error {
	sum := 0
	for t, p := range o.Mix {
		if p < 0 || p > 100 {
			return fmt.Errorf("tpcc: mix %s: %d is not a percentage from 0 to 100", txnNames[t], p)
		}
		sum += p
	}
	if sum != 100 {
		return fmt.Errorf("tpcc: the mix sums to %d, not 100", sum)
	}
	if o.Retries < 0 || o.Retries > maxRetries {
		return fmt.Errorf("tpcc: retries %d: must be from 0 to %d", o.Retries, maxRetries)
	}
	if o.LoadConnections < 0 || o.LoadConnections > maxLoadConnections {
		return fmt.Errorf("tpcc: load_connections %d: must be from 0 to %d", o.LoadConnections, maxLoadConnections)
	}
	switch o.Check {
	case CheckBasic, CheckFull:
	default:
		return fmt.Errorf("tpcc: check %q: must be basic or full", o.Check)
	}
	switch o.Isolation {
	case IsolationReadCommitted, IsolationRepeatableRead, IsolationSerializable:
	default:
		return fmt.Errorf("tpcc: isolation %q: must be read_committed, repeatable_read or serializable", o.Isolation)
	}
	switch o.Interaction {
	case "":
		o.Interaction = InteractionBatched
	case InteractionBatched, InteractionStatements, InteractionProcedures:
	default:
		return fmt.Errorf("tpcc: interaction %q: must be batched, statements or procedures", o.Interaction)
	}
	return nil
}
