package tpcc

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
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
}

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
// check, read committed, seed 0, automatic load connections and a frozen
// load.
func DefaultOptions() Options {
	return Options{
		Freeze:    true,
		Mix:       [numTxns]int{NewOrder: 45, Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4},
		Retries:   3,
		Check:     CheckBasic,
		Isolation: IsolationReadCommitted,
	}
}

const (
	optionsPath        = "workload.options"
	maxRetries         = 100
	maxLoadConnections = 64
)

// optionKeys are the keys tpcc accepts in workload.options.
func optionKeys() []string {
	return []string{"mix", "all_warehouses", "retries", "check", "isolation", "seed", "load_connections", "freeze", "keying_and_think_time"}
}

// Parse decodes workload.options strictly and reports every problem at
// once, each with its path below workload.options. A missing or empty node
// gives DefaultOptions. Parse only reads node.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	m, problems := workload.OptionsMapping(node, optionsPath, optionKeys())
	if m == nil {
		if problems != nil {
			return nil, problems
		}
		return opts, nil
	}
	node = m
	bad := func(path string, n *yaml.Node, allowed string) {
		problems = append(problems, workload.Problem(path, n, allowed))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		keyNode, val := node.Content[i], workload.Deref(node.Content[i+1])
		key := keyNode.Value
		path := optionsPath + "." + key
		if seen[key] {
			bad(path, keyNode, "the key is given twice; give it once")
			continue
		}
		seen[key] = true
		switch key {
		case "mix":
			mix, ps := parseMix(path, val)
			problems = append(problems, ps...)
			if ps == nil {
				opts.Mix = mix
			}
		case "all_warehouses":
			b, ok := boolValue(val)
			if !ok {
				bad(path, val, "must be true or false")
				continue
			}
			opts.AllWarehouses = b
		case "retries":
			n, ok := workload.IntValue(val)
			if !ok || n < 0 || n > maxRetries {
				bad(path, val, fmt.Sprintf("must be an integer from 0 to %d", maxRetries))
				continue
			}
			opts.Retries = int(n)
		case "check":
			s, ok := oneOf(val, CheckBasic, CheckFull)
			if !ok {
				bad(path, val, "must be basic (conditions 3.3.2.1-3.3.2.4) or full (3.3.2.1-3.3.2.12)")
				continue
			}
			opts.Check = s
		case "isolation":
			s, ok := oneOf(val, IsolationReadCommitted, IsolationRepeatableRead, IsolationSerializable)
			if !ok {
				bad(path, val, "must be one of read_committed, repeatable_read, serializable")
				continue
			}
			opts.Isolation = s
		case "seed":
			n, ok := workload.IntValue(val)
			if !ok {
				bad(path, val, "must be a whole number")
				continue
			}
			opts.Seed = n
		case "load_connections":
			n, ok := workload.IntValue(val)
			if !ok || n < 0 || n > maxLoadConnections {
				bad(path, val, fmt.Sprintf("must be an integer from 0 (automatic) to %d", maxLoadConnections))
				continue
			}
			opts.LoadConnections = int(n)
		case "freeze":
			b, ok := boolValue(val)
			if !ok {
				bad(path, val, "must be true or false")
				continue
			}
			opts.Freeze = b
		case "keying_and_think_time":
			b, ok := boolValue(val)
			if !ok {
				bad(path, val, "must be true or false")
				continue
			}
			opts.KeyingAndThinkTime = b
		default:
			bad(path, keyNode, "unknown key; the tpcc options are "+strings.Join(optionKeys(), ", "))
		}
	}
	if problems != nil {
		return nil, problems
	}
	return opts, nil
}

// parseMix reads the mix: transaction name -> percentage, each from 0 to
// 100, summing to 100. Names not given are 0.
func parseMix(path string, node *yaml.Node) ([numTxns]int, []spec.Problem) {
	var mix [numTxns]int
	names := strings.Join(txnNames[:], ", ")
	if node.Kind != yaml.MappingNode || len(node.Content) == 0 {
		return mix, []spec.Problem{workload.Problem(path, node,
			"must be a mapping of transaction name to percentage, summing to 100; the names are "+names)}
	}
	var problems []spec.Problem
	seen := map[string]bool{}
	sum := 0
	for i := 0; i+1 < len(node.Content); i += 2 {
		keyNode, val := node.Content[i], workload.Deref(node.Content[i+1])
		name := keyNode.Value
		p := path + "." + name
		t := txnIndex(name)
		switch {
		case t < 0:
			problems = append(problems, workload.Problem(p, keyNode, "unknown transaction; the names are "+names))
			continue
		case seen[name]:
			problems = append(problems, workload.Problem(p, keyNode, "the transaction is given twice; give it once"))
			continue
		}
		seen[name] = true
		n, ok := workload.IntValue(val)
		if !ok || n < 0 || n > 100 {
			problems = append(problems, workload.Problem(p, val, "must be a whole percentage from 0 to 100"))
			continue
		}
		mix[t] = int(n)
		sum += int(n)
	}
	if problems == nil && sum != 100 {
		problems = append(problems, workload.Problem(path, node,
			fmt.Sprintf("the percentages sum to %d; they must sum to 100", sum)))
	}
	return mix, problems
}

// boolValue is node's value when it is a YAML boolean.
func boolValue(node *yaml.Node) (bool, bool) {
	var b bool
	if node.Kind != yaml.ScalarNode || node.Tag != "!!bool" || node.Decode(&b) != nil {
		return false, false
	}
	return b, true
}

// oneOf is node's value when it is a string among allowed.
func oneOf(node *yaml.Node, allowed ...string) (string, bool) {
	if node.Kind != yaml.ScalarNode || node.Tag != "!!str" {
		return "", false
	}
	for _, a := range allowed {
		if node.Value == a {
			return a, true
		}
	}
	return "", false
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
	return nil
}
