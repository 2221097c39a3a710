package tpch

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Options are the tpch keys of workload.options.
type Options struct {
	// RepeatQueries is how many times a stream runs each query in a row,
	// with the same parameters (Erdelt and Rabl's (2026) n, 10 there). 0
	// means 1.
	RepeatQueries int
	// Queries are the query numbers a stream runs (1..22), in the
	// stream's order; nil means all 22.
	Queries []int
	// QueryTimeout cancels a query that runs longer (the session's
	// statement_timeout); 0 means none.
	QueryTimeout time.Duration
	// Seed is qgen's -r seed of stream 0: stream s draws its parameters
	// as qgen -r Seed+s does. 0 means 1.
	Seed int64
	// FirstStream is the stream number of the first tenant's first client;
	// the others follow (clause 5.3.5.4: 0 is the power test's order,
	// 1..40 the throughput streams').
	FirstStream int
	// LoadConnections is how many connections Ingest uses; 0 picks.
	LoadConnections int
	// Refresh runs the refresh functions: RF1 before a stream's queries,
	// RF2 after them (clause 5.3; refresh.go).
	Refresh bool
}

// DefaultOptions run the 22 queries once each per stream, streams from 1.
func DefaultOptions() Options { return Options{RepeatQueries: 1, Seed: 1, FirstStream: 1} }

// Limits of the options.
const (
	maxStream          = 40 // the permutation table has streams 0..40
	maxRepeat          = 1000000
	maxLoadConnections = 64
	maxTimeout         = 7 * 24 * time.Hour
)

const optionsPath = "workload.options"

func optionKeys() []string {
	return []string{"repeat_queries", "queries", "query_timeout", "seed", "first_stream", "load_connections", "refresh"}
}

// Parse decodes workload.options strictly and reports every problem at
// once, each with its path below workload.options. Parse only reads node.
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
	intIn := func(path string, n *yaml.Node, lo, hi int64, what string) (int64, bool) {
		v, ok := workload.IntValue(n)
		if !ok || v < lo || v > hi {
			bad(path, n, fmt.Sprintf("must be a whole number from %d to %d: %s", lo, hi, what))
			return 0, false
		}
		return v, true
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i].Value, workload.Deref(node.Content[i+1])
		path := optionsPath + "." + key
		if seen[key] {
			bad(path, val, "the key is given twice; give it once")
			continue
		}
		seen[key] = true
		switch key {
		case "repeat_queries":
			if v, ok := intIn(path, val, 1, maxRepeat, "how many times each query runs in a row (Erdelt and Rabl 2026: 10)"); ok {
				opts.RepeatQueries = int(v)
			}
		case "queries":
			qs, ps := parseQueries(path, val)
			problems = append(problems, ps...)
			opts.Queries = qs
		case "query_timeout":
			d, ok := durationValue(val)
			if !ok || d <= 0 || d > maxTimeout {
				bad(path, val, "must be a duration above 0 and at most 168h, such as 90s or 10m: how long one query may run")
				continue
			}
			opts.QueryTimeout = d
		case "seed":
			if v, ok := intIn(path, val, 1, rngM-1-maxStream, "qgen's -r seed of stream 0; stream s uses seed + s"); ok {
				opts.Seed = v
			}
		case "first_stream":
			if v, ok := intIn(path, val, 0, maxStream, "the stream number of the first tenant (0 is the power test's query order, 1 to 40 the throughput streams')"); ok {
				opts.FirstStream = int(v)
			}
		case "load_connections":
			if v, ok := intIn(path, val, 1, maxLoadConnections, "how many connections load the tables"); ok {
				opts.LoadConnections = int(v)
			}
		case "refresh":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
				bad(path, val, "must be true or false: whether each stream runs RF1 before its queries and RF2 after them")
				continue
			}
			opts.Refresh = val.Value == "true"
		default:
			bad(path, val, "unknown key; the tpch options are "+strings.Join(optionKeys(), ", "))
		}
	}
	if problems != nil {
		return nil, problems
	}
	return opts, nil
}

// parseQueries reads a list of distinct query numbers 1..22.
func parseQueries(path string, node *yaml.Node) ([]int, []spec.Problem) {
	if node.Kind != yaml.SequenceNode || len(node.Content) == 0 {
		return nil, []spec.Problem{{Path: path, Value: workload.Describe(node),
			Allowed: "must be a list of query numbers from 1 to 22, such as [1, 3, 6]"}}
	}
	var problems []spec.Problem
	var qs []int
	seen := map[int64]bool{}
	for i, n := range node.Content {
		n = workload.Deref(n)
		p := fmt.Sprintf("%s[%d]", path, i)
		v, ok := workload.IntValue(n)
		switch {
		case !ok || v < 1 || v > numQueries:
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(n),
				Allowed: "must be a TPC-H query number from 1 to 22"})
		case seen[v]:
			problems = append(problems, spec.Problem{Path: p, Value: workload.Describe(n),
				Allowed: "the query is listed twice; list it once (repeat_queries repeats)"})
		default:
			seen[v] = true
			qs = append(qs, int(v))
		}
	}
	if problems != nil {
		return nil, problems
	}
	return qs, nil
}

// durationValue is node's value when it is a duration such as "90s".
func durationValue(node *yaml.Node) (time.Duration, bool) {
	if node.Kind != yaml.ScalarNode || node.Tag != "!!str" {
		return 0, false
	}
	d, err := time.ParseDuration(node.Value)
	return d, err == nil
}

// CheckStreams says whether tenants x clients streams, numbered from
// opts' first stream, fit: their qgen seeds, seed + stream, must stay
// below 2^31 - 1, the generator's modulus. (The permutation table of
// clause 5.3.5.4 has streams 0 to 40; its comment has later streams wrap
// around to 0, so any number of streams fits it.) The orchestrator, which
// knows both counts, calls it when it checks a spec.
//
// With refresh on, stream n uses refresh set n + 1, and the sets stop at
// 999 (refresh.go): the last stream must be at most 998.
func CheckStreams(opts Options, tenants, clients int) []spec.Problem {
	n := int64(tenants) * int64(max(clients, 1))
	seed := max(opts.Seed, 1)
	var out []spec.Problem
	if last := seed + int64(opts.FirstStream) + n - 1; last >= rngM {
		out = append(out, spec.Problem{Path: optionsPath + ".seed", Value: fmt.Sprint(opts.Seed),
			Allowed: fmt.Sprintf("seed + first_stream + tenants x clients - 1 (%d + %d + %d x %d - 1) must stay below 2147483647: a smaller seed",
				seed, opts.FirstStream, tenants, max(clients, 1))})
	}
	if last := int64(opts.FirstStream) + n - 1; opts.Refresh && last+1 > maxRefreshSet {
		out = append(out, spec.Problem{Path: optionsPath + ".refresh", Value: "true",
			Allowed: fmt.Sprintf("refresh sets go up to %d, one per stream: first_stream + tenants x clients - 1 (%d + %d x %d - 1) must be at most %d; fewer streams or refresh: false",
				maxRefreshSet, opts.FirstStream, tenants, max(clients, 1), maxRefreshSet-1)})
	}
	return out
}

// CheckWarmup refuses a warmup above 0 (workload.WarmupChecker): a stream
// runs its sequence once from its start, and a query that ends within the
// warmup is not counted, so every stream would be incomplete.
func (o Options) CheckWarmup(d time.Duration) []spec.Problem {
	if d <= 0 {
		return nil
	}
	return []spec.Problem{{Path: "workload.warmup", Value: d.String(),
		Allowed: "tpch runs each stream once from its start; warmup must be 0"}}
}
