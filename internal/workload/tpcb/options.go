package tpcb

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Options are the tpcb keys of workload.options.
type Options struct {
	// Scripts maps a built-in script name to its weight, as pgbench's
	// "-b name@weight". Scripts of weight 0 are not run.
	Scripts map[string]int
	// Fillfactor is pgbench's -F: the fillfactor of pgbench_accounts,
	// pgbench_branches and pgbench_tellers.
	Fillfactor int
	// ForeignKeys adds the foreign keys of pgbench's init step "f"
	// (pgbench -I dtgvpf).
	ForeignKeys bool
}

// DefaultOptions are pgbench's defaults: the tpcb-like script alone,
// fillfactor 100, no foreign keys.
func DefaultOptions() Options {
	return Options{Scripts: map[string]int{TPCBLike: 1}, Fillfactor: 100}
}

const (
	optionsPath = "workload.options"
	// pgbench -F accepts 10..100 (option_parse_int(optarg, "-F/--fillfactor", 10, 100, ...)).
	minFillfactor = 10
	maxFillfactor = 100
	// pgbench refuses a script weight outside 0..INT_MAX (parseScriptWeight).
	maxWeight = math.MaxInt32
)

// Parse decodes workload.options strictly and reports every problem at once.
// A missing or empty node gives DefaultOptions. Parse only reads node.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	d := spec.NewDecoder()
	fillfactor := spec.Where(spec.ReadInt, spec.Within(minFillfactor, maxFillfactor),
		fmt.Sprintf("must be an integer from %d to %d (pgbench -F)", minFillfactor, maxFillfactor))
	d.Mapping(node, optionsPath, []spec.Field{
		{Key: "scripts", Read: func(n *yaml.Node, p string) { readScripts(d, n, p, &opts.Scripts) }},
		{Key: "fillfactor", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, fillfactor, &opts.Fillfactor) }},
		{Key: "foreign_keys", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadBool, &opts.ForeignKeys) }},
	})
	if problems := d.Problems(); problems != nil {
		return nil, problems
	}
	return opts, nil
}

// readScripts reads the scripts mapping: built-in name -> weight, like
// pgbench's "-b name@weight" (weights 0..INT_MAX, their sum > 0). null
// keeps dst.
func readScripts(d *spec.Decoder, n *yaml.Node, path string, dst *map[string]int) {
	if spec.IsNull(n) {
		return
	}
	weight := spec.Where(spec.ReadInt64, spec.Within[int64](0, maxWeight),
		fmt.Sprintf("must be an integer weight from 0 to %d (pgbench -b name@weight)", maxWeight))
	scripts := map[string]int{}
	var total int64
	var fields []spec.Field
	for _, name := range scriptNames() {
		fields = append(fields, spec.Field{Key: name, Read: func(n *yaml.Node, p string) {
			var w int64
			if spec.Scalar(d, n, p, weight, &w) {
				scripts[name] = int(w)
				total += w
			}
		}})
	}
	before := len(d.Problems())
	d.Mapping(n, path, fields)
	if len(d.Problems()) > before {
		return
	}
	if total == 0 {
		d.Refuse(n, path, "at least one weight must be greater than 0; the scripts are "+strings.Join(scriptNames(), ", "))
		return
	}
	*dst = scripts
}
