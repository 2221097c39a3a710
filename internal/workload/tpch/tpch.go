// Package tpch is TPC-H (TPC Benchmark H, revision 2.17/2.18) as
// Erdelt and Rabl 2026 (section 5.2) run it per tenant: the
// eight tables of clause 1.4 generated as TPC's dbgen generates them, row for
// row and byte for byte, at any scale factor dbgen supports from 0.01 up,
// loaded with binary COPY over several connections; a post-ingestion phase of
// primary keys, foreign keys, indexes and ANALYZE; and the 22 queries of
// clause 2.4, each tenant a query stream with its own substitution parameters
// (drawn as qgen draws them) and its own query order (clause 5.3.5.4), each
// query run repeat_queries times.
//
// Each client of a tenant is one stream: Pick walks the stream's sequence
// of queries and Run executes one. The query names in results are q01 to
// q22.
package tpch

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Name is the workload's name in a spec (workload.name).
const Name = "tpch"

// Factory registers tpch in a workload.Registry.
func Factory() workload.Factory {
	return workload.Factory{Name: Name, Parse: Parse, New: New, Scale: CheckScale}
}

// Workload is one tenant's TPC-H at one scale.
type Workload struct {
	z    sizes
	opts Options
	// queries are the query numbers run, ascending: TxnNames and the
	// clients' types index them.
	queries []int
	// tenant is the tenant's index among the run's tenants, set by
	// SetTenant; -1 until then.
	tenant, tenants int

	linesOnce sync.Once
	lines     int64

	mu      sync.Mutex
	streams map[int]*streamState // by stream number, once SetTenant was called
}

var (
	_ workload.Workload    = (*Workload)(nil)
	_ workload.TenantAware = (*Workload)(nil)
	_ workload.Streamer    = (*Workload)(nil)
)

// New makes the workload at scale sf, which CheckScale must accept. opts is
// what Parse returned; nil means DefaultOptions.
func New(sf float64, opts any) (workload.Workload, error) {
	z, err := sizesAt(sf)
	if err != nil {
		return nil, fmt.Errorf("tpch: %s", CheckScale(sf))
	}
	o, err := workload.OptionsAs("tpch", opts, DefaultOptions())
	if err != nil {
		return nil, err
	}
	if o.RepeatQueries == 0 {
		o.RepeatQueries = 1
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.RepeatQueries < 0 || o.FirstStream < 0 || o.FirstStream > maxStream || o.QueryTimeout < 0 || o.LoadConnections < 0 {
		return nil, fmt.Errorf("tpch: options out of range: %+v", o)
	}
	w := &Workload{z: z, opts: o, tenant: -1}
	if o.Queries == nil {
		for q := 1; q <= numQueries; q++ {
			w.queries = append(w.queries, q)
		}
	} else {
		seen := map[int]bool{}
		for _, q := range o.Queries {
			if q < 1 || q > numQueries || seen[q] {
				return nil, fmt.Errorf("tpch: query %d unknown or repeated in %v", q, o.Queries)
			}
			seen[q] = true
		}
		for q := 1; q <= numQueries; q++ {
			if seen[q] {
				w.queries = append(w.queries, q)
			}
		}
	}
	return w, nil
}

// SetTenant tells the workload which of the run's tenants it serves, so
// that its clients run streams first_stream + index x clients + client
// (Erdelt and Rabl 2026: every tenant a stream of its own). The orchestrator
// calls it (workload.TenantAware) before NewClient; without it a client picks
// its stream from its seed (see NewClient).
func (w *Workload) SetTenant(index, tenants int) error {
	if index < 0 || index >= tenants {
		return fmt.Errorf("tpch: tenant %d of %d", index, tenants)
	}
	w.tenant, w.tenants = index, tenants
	return nil
}

// queryName is query q's name in results: q01 .. q22.
func queryName(q int) string { return fmt.Sprintf("q%02d", q) }

// TxnNames are the names of the queries run, q01 .. q22, by number, then
// rf1 and rf2 when refresh is on.
func (w *Workload) TxnNames() []string {
	names := make([]string, len(w.queries))
	for i, q := range w.queries {
		names[i] = queryName(q)
	}
	if w.opts.Refresh {
		names = append(names, rf1Name, rf2Name)
	}
	return names
}

// planned is how many executions make a stream's sequence: its queries,
// each repeat_queries times, and the refresh pair.
func (w *Workload) planned() int {
	n := len(w.queries) * w.opts.RepeatQueries
	if w.opts.Refresh {
		n += 2
	}
	return n
}

// Rows is the number of rows Ingest loads. LINEITEM's count is exact: one
// draw per order (computed once, about 3 ns an order).
func (w *Workload) Rows() int64 {
	z := w.z
	return numRegions + numNations + z.parts*(1+suppsPerPart) + z.suppliers + z.customers + z.orders + w.lineitems()
}

// lineitems is the number of LINEITEM rows: the orders' line counts.
func (w *Workload) lineitems() int64 {
	w.linesOnce.Do(func() {
		s := newStream(seeds[sOLcnt].seed, seeds[sOLcnt].boundary)
		for range w.z.orders {
			w.lines += s.unifInt(1, maxLines)
			s.nextRow()
		}
	})
	return w.lines
}

// Counts are the row counts of the eight tables at the workload's scale,
// by table name (clause 4.2.5; LINEITEM's as generated).
func (w *Workload) Counts() map[string]int64 {
	z := w.z
	return map[string]int64{
		"region": numRegions, "nation": numNations, "part": z.parts, "partsupp": z.parts * suppsPerPart,
		"supplier": z.suppliers, "customer": z.customers, "orders": z.orders, "lineitem": w.lineitems(),
	}
}

// state is stream n's state, made on first use; size is the length of
// its sequence.
func (w *Workload) state(n, size int) *streamState {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.streams == nil {
		w.streams = map[int]*streamState{}
	}
	st := w.streams[n]
	if st == nil {
		st = &streamState{execs: make([]workload.Exec, 0, size)}
		w.streams[n] = st
	}
	return st
}

// Streams are the executions of the tenant's streams, by stream number
// (workload.Streamer); none before SetTenant. Call it when no client runs.
func (w *Workload) Streams() []workload.Stream {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []workload.Stream
	for n, st := range w.streams {
		out = append(out, workload.Stream{Number: n, Queries: w.planned(), Execs: st.execs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// Repeat is repeat_queries, Erdelt and Rabl's (2026) n.
func (w *Workload) Repeat() int { return w.opts.RepeatQueries }

// CheckRun is CheckStreams for a run of tenants x clients streams
// (workload.OptionsChecker: checked with the plan, before anything starts).
func (o Options) CheckRun(tenants, clients int) []spec.Problem {
	return CheckStreams(o, tenants, clients)
}

// RunsUnnamed: its queries go as the unnamed statement already
// (pgconn's ExecParams), on every connection.
func (w *Workload) RunsUnnamed() bool { return true }

// SessionState: the query timeout is the session's statement_timeout,
// set once when the client connects.
func (w *Workload) SessionState() (option, value, why string) {
	if w.opts.QueryTimeout > 0 {
		return "query_timeout", w.opts.QueryTimeout.String(), "the timeout is the session's statement_timeout, set once per client, which a pooler that moves the client between server connections does not keep; leave query_timeout out, or use sut.pooler.mode session"
	}
	return "", "", ""
}

var (
	_ workload.UnnamedRunner = (*Workload)(nil)
	_ workload.SessionBound  = (*Workload)(nil)
)
