package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
)

// ErrNotResults marks a directory that is not a tenantbench results
// directory (no spec.yaml): the CLI exits 2 on it.
var ErrNotResults = errors.New("not a tenantbench results directory")

// experiment is a results directory read whole, the report's only input.
type experiment struct {
	dir      *results.Dir
	name     string
	specText string
	// plan is the plan the run wrote (plan.json), nil when it could not
	// be read: the report draws results with the rules they were made
	// with, never by reading the spec again.
	plan *plan.Plan
	env  map[string]any
	runs []*run // every row of results.csv, in plan order
	// probes are the speed probe's measurements (probe.csv), in order;
	// none without a probe.
	probes []results.ProbeRow
	points []*point // matrix points, in plan order
	// vary says which dimensions besides the model and the tenants take
	// more than one value; only those go into labels.
	vary vary
	// warnings are files that could not be read (the report goes on
	// without them) and runs whose driver may have competed with the
	// servers.
	warnings []string
}

// run is one run: its results.csv row and what its directory holds.
type run struct {
	row     results.ResultRow
	summary *results.Summary
	// tenants are the tenants.csv rows of txn "all", in tenant order.
	tenants []results.TenantRow
	// perSecond is the committed transactions of each second since the
	// workload phase started, summed over tenants (timeseries.csv, "all").
	perSecond []float64
	// byTenant is perSecond for each tenant alone.
	byTenant map[string][]float64
	// warmup is how many of those seconds are warmup.
	warmup int
	// queries are the query times of a run of query streams (TPC-H:
	// queries.csv), nil otherwise.
	queries []results.QueryFigures
}

func (r *run) ok() bool { return r.row.Status == results.StatusOK }

// interrupted: a signal cut the run short.
func (r *run) interrupted() bool { return r.row.Status == results.StatusInterrupted }

// vary records which dimensions vary across the experiment's runs.
type vary struct {
	scale, clients bool
	// engine: the runs differ in sut.engine; cases: they have cases of
	// workload.cases, which name their points.
	engine, cases bool
	// byCase are the dimensions ("scale", "clients", a setting's key)
	// whose value the case and engine of a run decide: the case's name
	// says them, so the label leaves them out.
	byCase map[string]bool
	// storage, volume and cpuPolicy: the runs differ in sut.storage's
	// kind or volume or in sut.resources.cpu_policy.
	storage, volume, cpuPolicy bool
	// placement: the runs differ in the clients' placement
	// (sut.placement).
	placement bool
	settings  []string // sorted
	// interference are the list-valued interference params
	// ("interference[0].load"), sorted.
	interference []string
}

// own says dimension dim ("scale", "clients", or "set_" and a
// setting's key) is not decided by the workload case (byCase): it
// varies, if at all, apart from the case, and so is a dimension, a label
// part or a factor of its own.
func (v vary) own(dim string) bool { return !v.byCase[dim] }

// load reads dir. Only a missing spec.yaml or an unreadable results.csv is
// an error; a run whose own files are missing or broken is reported as a
// warning and drawn from what remains, so that one bad file does not cost
// the whole report.
func load(path string) (*experiment, error) {
	dir, err := results.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (no spec.yaml)", ErrNotResults, path)
	}
	e := &experiment{dir: dir, name: filepath.Base(filepath.Clean(path))}
	e.readPlan()
	if e.env, err = dir.ReadEnv(); err != nil {
		e.warn("env.json: %v", err)
	}
	rows, err := dir.ReadResults()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No run has ended yet: the report shows the plan and nothing else.
	case err != nil:
		return nil, err
	}
	for _, row := range rows {
		e.runs = append(e.runs, e.readRun(row))
		e.warnDriver(row)
	}
	if e.probes, err = dir.ReadProbes(); err != nil {
		e.warn("%s: %v", results.ProbeFile, err)
	}
	e.vary = varyOf(e.runs)
	e.points = groupPoints(e.runs, e.vary)
	return e, nil
}

// warnDriver warns when the driver used more than a quarter of the host's
// CPU during the run's measured workload: on a host it shares with the
// servers it may have taken CPU from them (the noisy neighbour of EDB
// 2026, caused by the benchmark itself).
func (e *experiment) warnDriver(row results.ResultRow) {
	share, ok := row.Extra["driver_cpu_share"]
	if !ok || share <= results.DriverShareWarning {
		return
	}
	e.warn("run %s: the driver used %.0f %% of the host's CPU during the workload (driver_cpu_share %.3f, %.3f CPU seconds per 1000 transactions): it may have competed with the servers for CPU",
		row.RunID, share*100, share, row.Extra["driver_cpu_s_per_1000"])
}

func (e *experiment) warn(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// readPlan reads plan.json, and spec.yaml as the text the report shows.
func (e *experiment) readPlan() {
	if b, err := os.ReadFile(filepath.Join(e.dir.Path, "spec.yaml")); err != nil {
		e.warn("spec.yaml: %v", err)
	} else {
		e.specText = string(b)
	}
	p, err := plan.Read(e.dir.Path)
	if err != nil {
		// Results of a tenantbench older than plan.json: the runs' own
		// files still say everything the figures need.
		e.warn("%s: %v; the plan is left out", plan.File, err)
		return
	}
	e.plan, e.name = p, p.Name
}

func (e *experiment) readRun(row results.ResultRow) *run {
	r := &run{row: row}
	id := row.RunID
	var err error
	if r.summary, err = e.dir.ReadSummary(id); err != nil {
		e.warn("run %s: %v", id, err)
	} else {
		r.warmup = int(r.summary.Warmup + 0.5)
	}
	tenants, err := e.dir.ReadTenants(id)
	if err != nil {
		e.warn("run %s: %v", id, err)
	}
	for _, t := range tenants {
		if t.Txn == "all" {
			r.tenants = append(r.tenants, t)
		}
	}
	sort.Slice(r.tenants, func(i, j int) bool { return r.tenants[i].Tenant < r.tenants[j].Tenant })
	if e.dir.HasRunFile(id, "queries.csv") {
		if r.queries, err = e.dir.ReadQueries(id); err != nil {
			e.warn("run %s: %v", id, err)
		}
	}
	series, err := e.dir.ReadSeries(id)
	if err != nil {
		e.warn("run %s: %v", id, err)
	}
	for _, s := range series {
		if s.Txn != "all" || s.Second < 0 {
			continue
		}
		for int(s.Second) >= len(r.perSecond) {
			r.perSecond = append(r.perSecond, 0)
		}
		r.perSecond[s.Second] += float64(s.Committed)
		if r.byTenant == nil {
			r.byTenant = map[string][]float64{}
		}
		t := r.byTenant[s.Tenant]
		for int(s.Second) >= len(t) {
			t = append(t, 0)
		}
		t[s.Second] += float64(s.Committed)
		r.byTenant[s.Tenant] = t
	}
	return r
}

// varyOf finds the dimensions that take more than one value.
func varyOf(runs []*run) vary {
	scales, clients, settings, interf := map[float64]bool{}, map[int]bool{}, map[string]bool{}, map[string]bool{}
	storage, volume, policy, place := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		place[r.row.Placement] = true
		scales[r.row.Scale] = true
		clients[r.row.Clients] = true
		storage[r.row.Storage], volume[r.row.Volume], policy[r.row.CPUPolicy] = true, true, true
		// results.csv has a set_ column only for list-valued settings, so
		// a column is a dimension even when the runs so far share a value.
		for k := range r.row.Settings {
			settings[k] = true
		}
		for k := range r.row.Interference { // the same: a column is a dimension
			interf[k] = true
		}
	}
	v := vary{scale: len(scales) > 1, clients: len(clients) > 1,
		storage: len(storage) > 1, volume: len(volume) > 1, cpuPolicy: len(policy) > 1, placement: len(place) > 1}
	engines := map[string]bool{}
	for _, r := range runs {
		engines[r.row.Engine] = true
		v.cases = v.cases || r.row.Case != ""
	}
	v.engine = len(engines) > 1
	if v.cases {
		v.byCase = decidedByCase(runs)
	}
	for k := range settings {
		v.settings = append(v.settings, k)
	}
	sort.Strings(v.settings)
	for k := range interf {
		v.interference = append(v.interference, k)
	}
	sort.Strings(v.interference)
	return v
}

// point is one matrix point: the runs that differ only by repetition.
type point struct {
	// kase and engine are the run's workload case ("" with none) and
	// engine.
	kase, engine string
	model        string
	tenants      int
	scale        float64
	clients      int
	settings     map[string]string
	// placement is the name of the point's sut.placement, "" without.
	placement string
	// interference is the point's value of each list-valued
	// interference param.
	interference map[string]string
	series       string // the label of its line: the point without its tenants
	inCase       string // series without its case (caseSeries)
	label        string // series and tenants
	runs         []*run // every repetition, failed ones too
}

// okRuns are the repetitions that succeeded: only they enter statistics,
// since a failed run's figures are partial.
func (p *point) okRuns() []*run {
	var out []*run
	for _, r := range p.runs {
		if r.ok() {
			out = append(out, r)
		}
	}
	return out
}

func (p *point) failed() int { return len(p.runs) - len(p.okRuns()) }

// seriesLabel names a line: the model and every other varying dimension
// but the tenants.
func seriesLabel(row results.ResultRow, v vary) string {
	if v.cases {
		return row.Case + ", " + caseSeries(row, v)
	}
	return caseSeries(row, v)
}

// caseSeries is a run's series label without its workload case: what
// tells the points of one case apart.
func caseSeries(row results.ResultRow, v vary) string {
	var parts []string
	if v.engine {
		parts = append(parts, row.Engine)
	}
	parts = append(parts, row.Model)
	if v.scale && v.own("scale") {
		parts = append(parts, "scale "+fmtNum(row.Scale))
	}
	if v.clients && v.own("clients") {
		parts = append(parts, fmt.Sprintf("%d clients", row.Clients))
	}
	if v.storage {
		parts = append(parts, row.Storage)
	}
	if v.volume {
		parts = append(parts, row.Volume+" volume")
	}
	if v.cpuPolicy {
		parts = append(parts, "cpu "+row.CPUPolicy)
	}
	if v.placement {
		parts = append(parts, row.Placement)
	}
	for _, k := range v.settings {
		// Empty: a setting of another engine (a setting's value is
		// never empty).
		if v.own("set_"+k) && row.Settings[k] != "" {
			parts = append(parts, k+"="+row.Settings[k])
		}
	}
	for _, k := range v.interference {
		parts = append(parts, k+"="+row.Interference[k])
	}
	return strings.Join(parts, ", ")
}

// decidedByCase are the dimensions whose value is the same in every run
// of a case on an engine: scale, clients, and the set_ columns.
func decidedByCase(runs []*run) map[string]bool {
	seen := map[string]string{} // dimension, case, engine -> value
	out := map[string]bool{"scale": true, "clients": true}
	check := func(dim, key, value string) {
		if !out[dim] && !strings.HasPrefix(dim, "set_") {
			return
		}
		k := dim + "\x00" + key
		if v, ok := seen[k]; ok && v != value {
			out[dim] = false
			return
		}
		seen[k] = value
		if _, ok := out[dim]; !ok {
			out[dim] = true
		}
	}
	for _, r := range runs {
		key := r.row.Case + "\x00" + r.row.Engine
		check("scale", key, fmtNum(r.row.Scale))
		check("clients", key, fmt.Sprint(r.row.Clients))
		for k, v := range r.row.Settings {
			check("set_"+k, key, v)
		}
	}
	return out
}

func tenantsLabel(n int) string {
	if n == 1 {
		return "1 tenant"
	}
	return fmt.Sprintf("%d tenants", n)
}

// groupPoints groups runs into matrix points, in the order their first
// repetition appears (plan order).
func groupPoints(runs []*run, v vary) []*point {
	byKey := map[string]*point{}
	var out []*point
	for _, r := range runs {
		series := seriesLabel(r.row, v)
		key := series + "\x00" + fmt.Sprint(r.row.Tenants)
		p := byKey[key]
		if p == nil {
			p = &point{kase: r.row.Case, engine: r.row.Engine, model: r.row.Model, tenants: r.row.Tenants, scale: r.row.Scale, clients: r.row.Clients,
				settings: r.row.Settings, placement: r.row.Placement, interference: r.row.Interference, series: series, inCase: caseSeries(r.row, v), label: series + ", " + tenantsLabel(r.row.Tenants)}
			byKey[key] = p
			out = append(out, p)
		}
		p.runs = append(p.runs, r)
	}
	return out
}

// seriesNames are the distinct series of points, in order of appearance.
func seriesNames(points []*point) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range points {
		if !seen[p.series] {
			seen[p.series] = true
			out = append(out, p.series)
		}
	}
	return out
}

// maxTenants is the largest tenant count with a successful run.
func maxTenants(points []*point) int {
	n := 0
	for _, p := range points {
		if len(p.okRuns()) > 0 {
			n = max(n, p.tenants)
		}
	}
	return n
}

// failedRuns lists the runs that failed, in plan order.
func (e *experiment) failedRuns() []*run {
	var out []*run
	for _, r := range e.runs {
		if !r.ok() {
			out = append(out, r)
		}
	}
	return out
}

// repeated says whether some point has two successful repetitions: the
// figures about spread need them.
func (e *experiment) repeated() bool {
	for _, p := range e.points {
		if len(p.okRuns()) > 1 {
			return true
		}
	}
	return false
}
