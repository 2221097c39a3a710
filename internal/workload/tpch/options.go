package tpch

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
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

// Parse decodes workload.options strictly and reports every problem at
// once, each with its path below workload.options. Parse only reads node.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	d := spec.NewDecoder()
	intIn := func(lo, hi int, what string) spec.Reader[int] {
		return spec.Where(spec.ReadInt, spec.Within(lo, hi), fmt.Sprintf("must be a whole number from %d to %d: %s", lo, hi, what))
	}
	repeat := intIn(1, maxRepeat, "how many times each query runs in a row (Erdelt and Rabl 2026: 10)")
	seed := spec.Where(spec.ReadInt64, spec.Within[int64](1, rngM-1-maxStream),
		fmt.Sprintf("must be a whole number from 1 to %d: qgen's -r seed of stream 0; stream s uses seed + s", rngM-1-maxStream))
	firstStream := intIn(0, maxStream, "the stream number of the first tenant (0 is the power test's query order, 1 to 40 the throughput streams')")
	loadConnections := intIn(1, maxLoadConnections, "how many connections load the tables")
	timeout := spec.Where(spec.ReadDuration, spec.Within[spec.Duration](1, spec.Duration(maxTimeout)),
		"must be a duration above 0 and at most 168h, such as 90s or 10m: how long one query may run")
	refresh := spec.Where(spec.ReadBool, nil, "must be true or false: whether each stream runs RF1 before its queries and RF2 after them")
	d.Mapping(node, optionsPath, []spec.Field{
		{Key: "repeat_queries", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, repeat, &opts.RepeatQueries) }},
		{Key: "queries", Read: func(n *yaml.Node, p string) { readQueries(d, n, p, &opts.Queries) }},
		{Key: "query_timeout", Read: func(n *yaml.Node, p string) {
			var t spec.Duration
			if spec.Scalar(d, n, p, timeout, &t) {
				opts.QueryTimeout = t.D()
			}
		}},
		{Key: "seed", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, seed, &opts.Seed) }},
		{Key: "first_stream", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, firstStream, &opts.FirstStream) }},
		{Key: "load_connections", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, loadConnections, &opts.LoadConnections) }},
		{Key: "refresh", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, refresh, &opts.Refresh) }},
	})
	if problems := d.Problems(); problems != nil {
		return nil, problems
	}
	return opts, nil
}

// readQueries reads a list of distinct query numbers 1..22. null keeps
// dst.
func readQueries(d *spec.Decoder, n *yaml.Node, path string, dst *[]int) {
	if spec.IsNull(n) {
		return
	}
	const what = "query numbers from 1 to 22, such as [1, 3, 6]"
	query := spec.Where(spec.ReadInt, spec.Within(1, numQueries), "must be a TPC-H query number from 1 to 22")
	before := len(d.Problems())
	var qs []int
	seen := map[int]bool{}
	d.Seq(n, path, what, func(e *yaml.Node, p string) {
		var q int
		switch {
		case spec.IsNull(e):
			d.Refuse(e, p, "must be a TPC-H query number from 1 to 22")
		case !spec.Scalar(d, e, p, query, &q):
		case seen[q]:
			d.Refuse(e, p, "the query is listed twice; list it once (repeat_queries repeats)")
		default:
			seen[q] = true
			qs = append(qs, q)
		}
	})
	if len(d.Problems()) > before {
		return
	}
	if len(qs) == 0 {
		d.Refuse(n, path, "must be a list of "+what+"; leave the key out for all 22")
		return
	}
	*dst = qs
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
