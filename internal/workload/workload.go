// Package workload defines what a workload is and keeps the registry of the
// workloads tenantbench knows. Each workload lives in its own package.
package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// Conn is a tenant's connection: the engine's own client connection
// (PostgreSQL: a *pgx.Conn; MariaDB: a *mariadb.Conn), which a workload's
// form for that engine asserts (PG, for PostgreSQL). A workload without a
// form for the connection's engine returns NoForm's error.
type Conn = server.Client

// Connect opens a new connection as the tenant (its role, its database, its
// search_path). Workloads open as many as they need for parallel loading.
type Connect func(ctx context.Context) (Conn, error)

// PG is conn as a PostgreSQL connection, for a workload's PostgreSQL
// form; ok is false for another engine's connection.
func PG(conn Conn) (pg *pgx.Conn, ok bool) {
	pg, ok = conn.(*pgx.Conn)
	return pg, ok
}

// ConnectPG opens a connection with connect for a workload's PostgreSQL
// form: an error naming the workload when the tenant's engine is another.
func ConnectPG(ctx context.Context, name string, connect Connect) (*pgx.Conn, error) {
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	pg, ok := PG(c)
	if !ok {
		_ = c.Close(context.Background())
		return nil, NoForm(name, c)
	}
	return pg, nil
}

// NoForm is the error of a workload that has no form for conn's engine.
func NoForm(name string, conn Conn) error {
	return fmt.Errorf("%s: no form for this engine's connections (%T)", name, conn)
}

// Workload is one tenant's instance of a workload at a given scale. Every
// method is called with connections of the tenant's own role, so the objects
// it creates land in the tenant's schema or database and belong to it.
type Workload interface {
	// TxnNames are the transaction (or query) types, indexed by Client.Pick.
	TxnNames() []string
	// Setup creates the tables (DDL only).
	Setup(ctx context.Context, conn Conn) error
	// Rows is how many rows Ingest loads, for progress.
	Rows() int64
	// Ingest loads the data; progress is called with rows loaded so far
	// (from any goroutine).
	Ingest(ctx context.Context, connect Connect, progress func(rows int64)) error
	// PostIngest adds keys and indexes and refreshes statistics.
	PostIngest(ctx context.Context, conn Conn) error
	// NewClient prepares one terminal on conn.
	NewClient(ctx context.Context, conn Conn, c ClientInfo) (Client, error)
}

// Client is one terminal of a workload. It is used by one goroutine only.
type Client interface {
	// Pick chooses the next transaction type (an index into TxnNames).
	Pick() int
	// Run executes one transaction of type typ. It must not allocate more
	// than the driver needs: it is the hot path.
	Run(ctx context.Context, typ int) error
}

// ClientInfo says which terminal of its tenant a client is. Workloads
// that bind terminals to data (TPC-C's home warehouse and district) use
// Index and Clients; Seed makes its choices reproducible, distinct clients
// get distinct seeds.
type ClientInfo struct {
	Index   int // 0-based, within the tenant
	Clients int // the tenant's number of clients
	Seed    uint64
	// Replicas are the client's connections to the replicas of its
	// tenant's server (replicas.go), nil when its reads stay on conn.
	// They are the driver's to close, with conn.
	Replicas []Conn
}

// ErrRollback is what Client.Run returns for a transaction the workload
// rolls back on purpose (TPC-C New-Order's 1 %, clause 2.4.2.3). The driver
// counts it apart: it is neither committed nor failed.
var ErrRollback = errors.New("expected rollback")

// Retrier is implemented by clients that retry serialization failures and
// deadlocks themselves; the driver reads the counts when the client stops.
type Retrier interface {
	// Retries is the number of retries per transaction type so far.
	Retries() []int64
}

// Looped is implemented by clients that can say whether their every
// wait in Run is for a reply on one of their connection's
// rawsock.Sockets (Wire, MariaDB's statements): the driver may then run
// them as coroutines on a rawsock.Loop, a few threads each waiting for
// many clients' replies at once, as pgbench's threads do. A client that
// waits otherwise (Go's netpoller, a lock) would hold up the other
// clients on its Loop while it waits.
type Looped interface {
	Looped() bool
}

// Pacer is implemented by clients whose terminal waits a keying time
// before each transaction and a think time after it (TPC-C clause 5.2.5).
// The closed-loop driver sleeps both outside the measured response time.
// A client returns zeros when its pacing is off.
type Pacer interface {
	Pace(typ int) (keying, think time.Duration)
}

// EngineRunner is implemented by workloads that say which engines they
// have a form for (their SQL and load in the engine's dialect, over its
// connection). The plan asks it; a workload without it is taken to run on
// every engine.
type EngineRunner interface {
	RunsOn(e engine.Engine) bool
}

// RunsOn says whether w has a form for engine e.
func RunsOn(w Workload, e engine.Engine) bool {
	if r, ok := w.(EngineRunner); ok && e != nil {
		return r.RunsOn(e)
	}
	return true
}

// EngineOptions is implemented by workloads with an option whose value
// has a form on some engines only (tpcc's interaction batched is
// PostgreSQL's). The plan asks it of the workload built with each case's
// options, after RunsOn.
type EngineOptions interface {
	// CheckEngine names the option (its key below workload.options) and
	// value that have no form on e, and says what is allowed; key is ""
	// when every option has one.
	CheckEngine(e engine.Engine) (key, value, allowed string)
}

// CheckEngineOptions checks, for a workload of reg that has a form for e,
// the options of w and of each of its cases (merged with w's, as the runs
// use them) against e (EngineOptions). A problem names the option's path
// below workload.options or the case's options.
func (r Registry) CheckEngineOptions(w *spec.Workload, e engine.Engine) []spec.Problem {
	f, ok := r[w.Name]
	if !ok || e == nil {
		return nil
	}
	check := func(node *yaml.Node, path string) []spec.Problem {
		opts, problems := f.Parse(node)
		if len(problems) > 0 {
			return nil // the options' own check reports them
		}
		built, err := f.New(1, opts)
		if err != nil {
			return nil
		}
		eo, ok := built.(EngineOptions)
		if !ok {
			return nil
		}
		if key, value, allowed := eo.CheckEngine(e); key != "" {
			return []spec.Problem{{Path: path + "." + key, Value: value, Allowed: allowed}}
		}
		return nil
	}
	if len(w.Cases) == 0 {
		return check(&w.Options, "workload.options")
	}
	// With cases, the runs are the cases: a case without options runs
	// workload.options (reported once), one with options the merge.
	var out []spec.Problem
	base := false
	for i, c := range w.Cases {
		if c.Options.Kind == 0 {
			if !base {
				out = append(out, check(&w.Options, "workload.options")...)
				base = true
			}
			continue
		}
		out = append(out, check(spec.MergeOptions(&w.Options, &c.Options), fmt.Sprintf("workload.cases[%d].options", i))...)
	}
	return out
}

// Interactor is implemented by workloads that can send their transactions
// to the server in more than one way (tpcc's interaction modes: batched,
// statements, procedures). The modes do the same work but load the server
// differently, so the plan and the results record the one a run used.
type Interactor interface {
	// Interaction names the mode this workload uses.
	Interaction() string
}

// Checker is implemented by workloads with consistency conditions.
type Checker interface {
	// Check returns one line per violated condition; none means consistent.
	Check(ctx context.Context, conn Conn) ([]string, error)
}

// Auditor is implemented by workloads that audit the input their clients
// drew against the rates their specification sets (TPC-C: rollbacks,
// remote lines and payments, customers by name, the mix). The run calls
// Audit after the workload phase, when no client runs any more.
type Auditor interface {
	// Audit is every audited rate over all clients the workload made.
	Audit() []Rate
}

// Rate is one audited rate: Observed (Count of Of, or a mean over Of)
// against Expected; a value from Low to High is accepted.
type Rate struct {
	Name, Clause       string
	Count, Of          int64
	Observed, Expected float64
	Low, High          float64
	OK                 bool
}

func (r Rate) String() string {
	return fmt.Sprintf("%s (clause %s): observed %.4f (%d of %d), expected %.4f, accepted %.4f to %.4f",
		r.Name, r.Clause, r.Observed, r.Count, r.Of, r.Expected, r.Low, r.High)
}

// Factory makes a workload from its spec.
type Factory struct {
	Name string
	// Parse decodes and checks workload.options strictly. node may be zero
	// (no options given). Problems name their path below "workload.options".
	Parse func(node *yaml.Node) (any, []spec.Problem)
	// New builds one tenant's workload; opts is what Parse returned.
	New func(scale float64, opts any) (Workload, error)
	// Scale, if set, checks one value of workload.scale (already > 0) for
	// the workload, e.g. a whole number; it returns what is allowed, or ""
	// when the value is fine.
	Scale func(scale float64) (allowed string)
	// Spec, if set, checks options (what Parse returned for the options
	// at path: workload.options, or a case's merged with them) against the
	// rest of w, e.g. the load shape or the duration they need.
	Spec func(opts any, w *spec.Workload, path string) []spec.Problem
}

// Registry is the set of known workloads. It is an explicit value, not a
// package global, so tests and callers can hold their own.
type Registry map[string]Factory

// Add registers f, refusing a duplicate name.
func (r Registry) Add(f Factory) {
	if _, dup := r[f.Name]; dup {
		panic("workload registered twice: " + f.Name)
	}
	r[f.Name] = f
}

// Names are the registered workload names, sorted.
func (r Registry) Names() []string {
	return slices.Sorted(maps.Keys(r))
}

// Check validates the workload name, its options and, for workloads that
// check it, each value of its scale. Options with sections per engine
// (spec.Workload.OptionEngines) are checked as each engine's runs take
// them too, a problem of a section's key at its path there.
func (r Registry) Check(w *spec.Workload) []spec.Problem {
	out := r.check(w)
	seen := map[string]bool{}
	for _, p := range out {
		seen[p.Error()] = true
	}
	for _, e := range w.OptionEngines() {
		for _, p := range r.check(w.ForEngine(e)) {
			p.Path = w.EngineOptionPath(e, p.Path)
			if !seen[p.Error()] {
				seen[p.Error()] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// check is Check of one engine's view of the options.
func (r Registry) check(w *spec.Workload) []spec.Problem {
	f, ok := r[w.Name]
	if !ok {
		return []spec.Problem{{Path: "workload.name", Value: spec.Shown(w.Name), Allowed: spec.OneOf(w.Name, r.Names())}}
	}
	opts, problems := f.Parse(&w.Options)
	if len(problems) == 0 && f.Spec != nil {
		problems = f.Spec(opts, w, "workload.options")
	}
	problems = append(problems, caseProblems(f, w, len(problems) == 0)...)
	for i, scale := range w.Scale {
		if f.Scale == nil || !(scale > 0) {
			continue // no check, or the spec's own rule reports it
		}
		if allowed := f.Scale(scale); allowed != "" {
			path := "workload.scale"
			if len(w.Scale) > 1 {
				path = fmt.Sprintf("workload.scale[%d]", i)
			}
			problems = append(problems, spec.Problem{Path: path, Value: fmt.Sprint(scale), Allowed: allowed})
		}
	}
	for i, c := range w.Cases {
		if f.Scale == nil || c.Scale == nil || !(*c.Scale > 0) || c.OwnWorkload(w) {
			continue // a case's own workload: the plan checks it
		}
		if allowed := f.Scale(*c.Scale); allowed != "" {
			problems = append(problems, spec.Problem{Path: fmt.Sprintf("workload.cases[%d].scale", i),
				Value: fmt.Sprint(*c.Scale), Allowed: allowed})
		}
	}
	return problems
}

// caseProblems checks the options of every case of workload.cases: each
// case's options alone, then merged with workload.options, as its runs
// will use them (when workload.options alone has no problem: baseOK). A
// problem of its own keys is named by its path below the case
// ("workload.cases[1].options.mix").
func caseProblems(f Factory, w *spec.Workload, baseOK bool) []spec.Problem {
	var out []spec.Problem
	for i, c := range w.Cases {
		if c.Options.Kind == 0 || c.OwnWorkload(w) {
			continue // another workload's options: the plan checks them
		}
		prefix := fmt.Sprintf("workload.cases[%d].options", i)
		_, own := f.Parse(&c.Options)
		for _, p := range own {
			if rest, ok := strings.CutPrefix(p.Path, "workload.options"); ok {
				p.Path = prefix + rest
			}
			out = append(out, p)
		}
		if len(own) > 0 || !baseOK {
			continue
		}
		opts, merged := f.Parse(spec.MergeOptions(&w.Options, &c.Options))
		if len(merged) == 0 && f.Spec != nil {
			merged = f.Spec(opts, w, "workload.options")
		}
		for _, p := range merged {
			p.Path = prefix + " with workload.options: " + p.Path
			out = append(out, p)
		}
	}
	return out
}

// Build makes one tenant's workload from the spec.
func (r Registry) Build(w *spec.Workload, scale float64) (Workload, error) {
	f, ok := r[w.Name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", w.Name)
	}
	opts, problems := f.Parse(&w.Options)
	if len(problems) > 0 {
		return nil, problems[0]
	}
	return f.New(scale, opts)
}

// OptionsAs is the options a workload's constructor was given: def for
// nil, else a T or a *T (what the workload's Parse returns); anything else
// is an error naming the workload.
func OptionsAs[T any](workload string, opts any, def T) (T, error) {
	switch v := opts.(type) {
	case nil:
		return def, nil
	case T:
		return v, nil
	case *T:
		return *v, nil
	}
	return def, fmt.Errorf("%s: options of type %T, want %s.Options", workload, opts, workload)
}

// Rand is the generator workloads draw from; PCG is small, fast and
// seedable per client.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// TenantKey places one tenant in tables that every tenant of a run shares
// (the shared-table tenancy model): tenant Index (from 0) of Tenants owns
// its own range of values of each keyed table's key column, and sees and
// changes only those rows.
type TenantKey struct {
	Index, Tenants int
}

// KeyColumn is a table whose rows belong to tenants and the column that
// holds the tenant key (TPC-C's warehouse numbers: w_id, d_w_id, ...).
type KeyColumn struct{ Table, Column string }

// Shared is implemented by workloads that can keep every tenant of a run
// in the same tables, each row carrying its tenant's key (the shared-table
// model). The run uses the workload built without a key as the tables'
// owner: its Setup creates the tables once, IngestShared loads once the
// tables no tenant owns (read-only for every tenant), and its PostIngest
// adds the keys and indexes of all tables once. Each tenant's workload,
// from ForTenant, generates, loads, runs and checks only its own rows,
// over connections of the tenant's role, through row-level security.
type Shared interface {
	// KeyColumns are the tables that hold tenants' rows, with their key
	// column. Every other table of the workload is shared read-only.
	KeyColumns() []KeyColumn
	// KeyRange is the key values the tenant of key owns, both ends
	// included. The ranges of distinct tenants do not overlap.
	KeyRange(key TenantKey) (lo, hi int64)
	// SharedRows is how many rows IngestShared loads, for progress.
	SharedRows() int64
	// IngestShared loads the tables no tenant owns.
	IngestShared(ctx context.Context, connect Connect, progress func(rows int64)) error
	// ForTenant is the workload of one tenant of the shared tables. Its
	// Setup and PostIngest do nothing (the owner's did it for all); its
	// Ingest adds the tenant's rows, truncating nothing; its clients and
	// Check use the tenant's rows only.
	ForTenant(key TenantKey) (Workload, error)
}

// PGConnect is a Connect of PostgreSQL connections (tests, benchmark
// tools that dial pgx themselves).
func PGConnect(f func(ctx context.Context) (*pgx.Conn, error)) Connect {
	return func(ctx context.Context) (Conn, error) {
		c, err := f(ctx)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}
