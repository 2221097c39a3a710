package sales

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
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

// Parse decodes workload.options strictly and reports every problem at
// once, each with its path below workload.options. A missing or empty node
// gives DefaultOptions. Parse only reads node.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	d := spec.NewDecoder()
	preset := spec.ReadOneOf(presetNames()...)
	distribution := spec.Where(spec.ReadText, func(s string) bool { return s == Uniform || s == Latest },
		"must be "+Uniform+" or "+Latest+" (with k)")
	k := spec.Where(spec.ReadInt64, spec.Within[int64](1, maxK),
		fmt.Sprintf("must be an integer from 1 to %d: the newest orders T2 and T3 choose from", maxK))
	seed := spec.Where(spec.ReadInt64, nil, "must be an integer: the seed of the generated data")
	var presetNode, mixNode, kNode *yaml.Node // the keys written, for the checks across keys
	d.Mapping(node, optionsPath, []spec.Field{
		{Key: "preset", Read: func(n *yaml.Node, p string) { presetNode = n; spec.Scalar(d, n, p, preset, &opts.Preset) }},
		{Key: "mix", Read: func(n *yaml.Node, p string) { mixNode = n; readMix(d, n, p, &opts.Mix) }},
		{Key: "distribution", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, distribution, &opts.Distribution) }},
		{Key: "k", Read: func(n *yaml.Node, p string) { kNode = n; spec.Scalar(d, n, p, k, &opts.K) }},
		{Key: "seed", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, seed, &opts.Seed) }},
	})
	if !spec.IsNull(mixNode) && !spec.IsNull(presetNode) {
		d.Refuse(presetNode, optionsPath+".preset", "give either mix or preset, not both")
	}
	if !spec.IsNull(kNode) && opts.Distribution != Latest {
		d.Refuse(kNode, optionsPath+".k", "applies to distribution: "+Latest+" only")
	}
	if problems := d.Problems(); problems != nil {
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

// readMix reads the mix mapping: transaction name -> weight, a finite
// number >= 0, at least one above 0. null keeps dst.
func readMix(d *spec.Decoder, n *yaml.Node, path string, dst *map[string]float64) {
	if spec.IsNull(n) {
		return
	}
	weight := spec.Where(spec.ReadFloat, func(f float64) bool { return f >= 0 && !math.IsInf(f, 0) },
		"must be a number >= 0 (a weight: ratios such as 15 : 5 : 80 or percentages)")
	mix := map[string]float64{}
	total := 0.0
	var fields []spec.Field
	for _, name := range txnNames() {
		fields = append(fields, spec.Field{Key: name, Read: func(n *yaml.Node, p string) {
			var w float64
			if spec.Scalar(d, n, p, weight, &w) {
				mix[name] = w
				total += w
			}
		}})
	}
	before := len(d.Problems())
	d.Mapping(n, path, fields)
	if len(d.Problems()) > before {
		return
	}
	if !(total > 0 && !math.IsInf(total, 0)) {
		d.Refuse(n, path, "at least one weight must be greater than 0 (and their sum finite); the transactions are "+strings.Join(txnNames(), ", "))
		return
	}
	*dst = mix
}
