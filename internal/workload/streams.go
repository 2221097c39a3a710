package workload

import (
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TenantAware is implemented by workloads whose clients depend on which
// of the run's tenants they serve (TPC-H: tenant i runs query stream
// first_stream + i, Erdelt and Rabl 2026, section 5.2). The run calls
// SetTenant on each tenant's workload before the workload phase.
type TenantAware interface {
	SetTenant(index, tenants int) error
}

// Finisher is implemented by clients whose work has an end (a TPC-H query
// stream: its queries, each repeat_queries times). The closed loop stops a
// client once Done is true after a transaction, or at the phase's end,
// whichever comes first.
type Finisher interface {
	Done() bool
}

// Streamer is implemented by workloads whose clients run query streams
// and time each query themselves (TPC-H). The run reads Streams after the
// workload phase, when no client runs any more.
type Streamer interface {
	// Streams are the tenant's streams, by stream number.
	Streams() []Stream
	// Repeat is how many times a stream runs each query
	// (Erdelt and Rabl's (2026) n).
	Repeat() int
}

// Stream is one query stream's executions.
type Stream struct {
	Number int
	// Queries is how many query executions make the stream (the queries
	// times Repeat).
	Queries int
	Execs   []Exec
}

// Exec is one execution of a query of a stream. Err is "" when it
// returned its rows.
type Exec struct {
	Query      string // the transaction type's name, e.g. q07
	Start, End time.Time
	Err        string
	// Refresh marks a refresh function (TPC-H RF1, RF2): timed with the
	// stream's queries (Power@Size), not counted among them (Throughput@Size).
	Refresh bool
}

// OptionsChecker is implemented by parsed workload options (what
// Factory.Parse returns) that limit what a run may ask, given its tenants
// and their clients (TPC-H: the streams' qgen seeds must stay below
// 2^31 - 1).
type OptionsChecker interface {
	CheckRun(tenants, clients int) []spec.Problem
}

// WarmupChecker is implemented by parsed workload options that refuse a
// warmup (TPC-H: a stream runs once from its start, so a warmup would
// leave every stream incomplete).
type WarmupChecker interface {
	CheckWarmup(time.Duration) []spec.Problem
}

// CheckPlan checks every run of the plan against its workload options
// (workload.OptionsChecker), so that a run that cannot start is bad input
// before anything starts. Each problem is reported once.
func (r Registry) CheckPlan(p *spec.Plan) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for i := range p.Runs {
		run := &p.Runs[i]
		// The run's workload: a case may pick its own.
		f, ok := r[p.Spec.WorkloadOf(run).Name]
		if !ok {
			continue // Check reports it
		}
		node := &p.Spec.Workload.Options
		if run.Options != nil {
			node = run.Options
		}
		opts, problems := f.Parse(node)
		if len(problems) > 0 {
			continue // Check reports them
		}
		if wc, ok := opts.(WarmupChecker); ok && !seen["warmup"] {
			seen["warmup"] = true
			out = append(out, wc.CheckWarmup(p.Spec.Workload.Warmup.D())...)
		}
		c, ok := opts.(OptionsChecker)
		if !ok {
			continue
		}
		for _, pr := range c.CheckRun(run.Tenants, run.Clients) {
			if key := pr.Path + "\x00" + pr.Value + "\x00" + pr.Allowed; !seen[key] {
				seen[key] = true
				pr.Allowed += fmt.Sprintf(" (run %s: %d tenants x %d clients)", run.ID, run.Tenants, run.Clients)
				out = append(out, pr)
			}
		}
	}
	return out
}
