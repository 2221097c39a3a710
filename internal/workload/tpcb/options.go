package tpcb

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
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

// optionKeys are the keys tpcb accepts in workload.options.
func optionKeys() []string { return []string{"scripts", "fillfactor", "foreign_keys"} }

// Parse decodes workload.options strictly and reports every problem at once.
// A missing or empty node gives DefaultOptions. Parse only reads node.
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
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i].Value, workload.Deref(node.Content[i+1])
		path := optionsPath + "." + key
		if seen[key] {
			problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(val), Allowed: "the key is given twice; give it once"})
			continue
		}
		seen[key] = true
		switch key {
		case "scripts":
			scripts, ps := parseScripts(path, val)
			problems = append(problems, ps...)
			if ps == nil {
				opts.Scripts = scripts
			}
		case "fillfactor":
			n, ok := workload.IntValue(val)
			if !ok || n < minFillfactor || n > maxFillfactor {
				problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(val),
					Allowed: fmt.Sprintf("must be an integer from %d to %d (pgbench -F)", minFillfactor, maxFillfactor)})
				continue
			}
			opts.Fillfactor = int(n)
		case "foreign_keys":
			var b bool
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" || val.Decode(&b) != nil {
				problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(val), Allowed: "must be true or false"})
				continue
			}
			opts.ForeignKeys = b
		default:
			problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(val),
				Allowed: "unknown key; the tpcb options are " + strings.Join(optionKeys(), ", ")})
		}
	}
	if problems != nil {
		return nil, problems
	}
	return opts, nil
}

// parseScripts reads the scripts mapping: built-in name -> weight, like
// pgbench's "-b name@weight" (weights 0..INT_MAX, their sum > 0).
func parseScripts(path string, node *yaml.Node) (map[string]int, []spec.Problem) {
	node = workload.Deref(node)
	allowedNames := "must be one of the built-in scripts " + strings.Join(scriptNames(), ", ")
	if node.Kind != yaml.MappingNode || len(node.Content) == 0 {
		return nil, []spec.Problem{{Path: path, Value: workload.Describe(node),
			Allowed: "must be a mapping of script name to weight, e.g. {tpcb-like: 1}; scripts are " + strings.Join(scriptNames(), ", ")}}
	}
	var problems []spec.Problem
	scripts := map[string]int{}
	var total int64
	for i := 0; i+1 < len(node.Content); i += 2 {
		name, val := node.Content[i].Value, workload.Deref(node.Content[i+1])
		p := path + "." + name
		if scriptIndex(name) < 0 {
			problems = append(problems, spec.Problem{Path: p, Value: fmt.Sprintf("%q", name), Allowed: allowedNames})
			continue
		}
		if _, dup := scripts[name]; dup {
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(val), Allowed: "the script is given twice; give it once"})
			continue
		}
		w, ok := workload.IntValue(val)
		if !ok || w < 0 || w > maxWeight {
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(val),
				Allowed: fmt.Sprintf("must be an integer weight from 0 to %d (pgbench -b name@weight)", maxWeight)})
			scripts[name] = 0
			continue
		}
		scripts[name] = int(w)
		total += w
	}
	if problems == nil && total == 0 {
		problems = append(problems, spec.Problem{Path: path, Value: workload.Describe(node), Allowed: "at least one weight must be greater than 0"})
	}
	if problems != nil {
		return nil, problems
	}
	return scripts, nil
}
