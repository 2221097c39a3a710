package sales

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Options are the sales keys of workload.options.
type Options struct {
	// Mix maps a transaction name (NewOrderline, OrderPayment, OrderStatus,
	// OrderlineDeletion) to its weight: a transaction of weight w is picked
	// with probability w / (sum of the weights); one of weight 0, or
	// absent, is not run. When Mix is nil, Preset gives the weights.
	Mix map[string]float64
	// Preset is one of the paper's three mixes: ReadOnly, ReadWrite or
	// WriteOnly.
	Preset string
	// Distribution is how T2 and T3 choose their order: Uniform or Latest.
	Distribution string
	// K is the k of the latest-k distribution: T2 and T3 choose among the
	// K newest orders. 0 means DefaultK.
	K int64
	// Seed drives the generated data. Tenants with the same seed and scale
	// hold the same rows; the transactions' values come from the run's
	// seed, per client.
	Seed int64
}

// The presets: the transaction ratios of the paper's throughput evaluation
// (section III-A, "Benchmark Configuration": (t1 : t2 : t3) in
// {(0 : 0 : 100), (15 : 5 : 80), (100 : 0 : 0)} for read-only, read-write
// and write-only). None runs T4, which the paper uses for lag time only;
// Options.Mix can.
const (
	ReadOnly  = "read-only"
	ReadWrite = "read-write"
	WriteOnly = "write-only"
)

// presetMix is the weight of each transaction in preset p, nil if p is
// unknown.
func presetMix(p string) map[string]float64 {
	switch p {
	case ReadOnly:
		return map[string]float64{OrderStatus: 100}
	case ReadWrite:
		return map[string]float64{NewOrderline: 15, OrderPayment: 5, OrderStatus: 80}
	case WriteOnly:
		return map[string]float64{NewOrderline: 100}
	}
	return nil
}

func presetNames() []string { return []string{ReadOnly, ReadWrite, WriteOnly} }

// The access distributions of section II-B.1.
const (
	// Uniform chooses the order of T2 and T3 uniformly over all orders.
	Uniform = "uniform"
	// Latest chooses it uniformly among the k newest orders ("concerning
	// the latest-10 distribution, T2 will update 10 specific items, and T3
	// will read these items randomly").
	Latest = "latest"
	// DefaultK is the paper's example, latest-10.
	DefaultK = 10
	// maxK is the most orders there can be (o_id is an int).
	maxK = math.MaxInt32
)

// DefaultOptions are the paper's read-write mix over uniformly chosen
// orders, data seed 0.
func DefaultOptions() Options {
	return Options{Preset: ReadWrite, Distribution: Uniform}
}

// weights are the weights of Mix, or of Preset when Mix is nil, by
// transaction, checked.
func (o Options) weights() ([numTxns]float64, error) {
	var w [numTxns]float64
	m := o.Mix
	if m == nil {
		p := o.Preset
		if p == "" {
			p = DefaultOptions().Preset
		}
		if m = presetMix(p); m == nil {
			return w, fmt.Errorf("unknown preset %q", p)
		}
	}
	total := 0.0
	for name, v := range m {
		t := txnIndex(name)
		if t < 0 {
			return w, fmt.Errorf("unknown transaction %q", name)
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return w, fmt.Errorf("transaction %s: weight %v is not a finite number >= 0", name, v)
		}
		w[t] = v
		total += v
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return w, errors.New("no transaction has a weight above 0")
	}
	return w, nil
}

const optionsPath = "workload.options"

// optionKeys are the keys sales accepts in workload.options.
func optionKeys() []string { return []string{"preset", "mix", "distribution", "k", "seed"} }

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
		problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(n), Allowed: allowed})
	}
	vals := map[string]*yaml.Node{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i].Value, workload.Deref(node.Content[i+1])
		path := optionsPath + "." + key
		if _, dup := vals[key]; dup {
			bad(path, val, "the key is given twice; give it once")
			continue
		}
		vals[key] = val
		switch key {
		case "preset":
			if val.Kind != yaml.ScalarNode || presetMix(val.Value) == nil {
				bad(path, val, "must be one of "+strings.Join(presetNames(), ", "))
				continue
			}
			opts.Preset = val.Value
		case "mix":
			mix, ps := parseMix(path, val)
			problems = append(problems, ps...)
			opts.Mix = mix
		case "distribution":
			if val.Kind != yaml.ScalarNode || (val.Value != Uniform && val.Value != Latest) {
				bad(path, val, "must be "+Uniform+" or "+Latest+" (with k)")
				continue
			}
			opts.Distribution = val.Value
		case "k":
			n, ok := workload.IntValue(val)
			if !ok || n < 1 || n > maxK {
				bad(path, val, fmt.Sprintf("must be an integer from 1 to %d: the newest orders T2 and T3 choose from", maxK))
				continue
			}
			opts.K = n
		case "seed":
			n, ok := workload.IntValue(val)
			if !ok {
				bad(path, val, "must be an integer: the seed of the generated data")
				continue
			}
			opts.Seed = n
		default:
			bad(path, val, "unknown key; the sales options are "+strings.Join(optionKeys(), ", "))
		}
	}
	if vals["mix"] != nil && vals["preset"] != nil {
		bad(optionsPath+".preset", vals["preset"], "give either mix or preset, not both")
	}
	if vals["k"] != nil && opts.Distribution != Latest {
		bad(optionsPath+".k", vals["k"], "applies to distribution: "+Latest+" only")
	}
	if problems != nil {
		return nil, problems
	}
	if opts.Mix != nil {
		opts.Preset = ""
	}
	if opts.Distribution == Latest && opts.K == 0 {
		opts.K = DefaultK
	}
	return opts, nil
}

// parseMix reads the mix mapping: transaction name -> non-negative weight,
// at least one above 0.
func parseMix(path string, node *yaml.Node) (map[string]float64, []spec.Problem) {
	if node.Kind != yaml.MappingNode || len(node.Content) == 0 {
		return nil, []spec.Problem{{Path: path, Value: workload.Describe(node),
			Allowed: "must be a mapping of transaction name to weight, e.g. {new_orderline: 15, order_payment: 5, order_status: 80}; transactions are " +
				strings.Join(txnNames(), ", ")}}
	}
	var problems []spec.Problem
	mix := map[string]float64{}
	total := 0.0
	for i := 0; i+1 < len(node.Content); i += 2 {
		name, val := node.Content[i].Value, workload.Deref(node.Content[i+1])
		p := path + "." + name
		if txnIndex(name) < 0 {
			problems = append(problems, spec.Problem{Path: p, Value: fmt.Sprintf("%q", name),
				Allowed: "must be one of the transactions " + strings.Join(txnNames(), ", ")})
			continue
		}
		if _, dup := mix[name]; dup {
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(val), Allowed: "the transaction is given twice; give it once"})
			continue
		}
		mix[name] = 0
		f, ok := weightValue(val)
		if !ok {
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(val),
				Allowed: "must be a number >= 0 (a weight: ratios such as 15 : 5 : 80 or percentages)"})
			continue
		}
		mix[name] = f
		total += f
	}
	if problems == nil && !(total > 0 && !math.IsInf(total, 0)) {
		problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(node),
			Allowed: "at least one weight must be greater than 0 (and their sum finite)"})
	}
	if problems != nil {
		return nil, problems
	}
	return mix, nil
}

// weightValue is node's value when it is a finite number >= 0.
func weightValue(node *yaml.Node) (float64, bool) {
	if node.Kind != yaml.ScalarNode || !slices.Contains([]string{"!!int", "!!float"}, node.Tag) {
		return 0, false
	}
	var f float64
	if node.Decode(&f) != nil || !(f >= 0) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
