package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// table is a table of the report, rendered to HTML and Markdown alike so
// that report.html and summary.md never disagree.
type table struct {
	ID     string // the anchor a finding links to, "" for none
	Title  string
	Note   string
	Header []string
	Rows   [][]string
	// Numeric marks the columns to align right.
	Numeric []bool
}

func newTable(title string, header ...string) *table {
	return &table{Title: title, Header: header, Numeric: make([]bool, len(header))}
}

func (t *table) numbers(cols ...int) *table {
	for _, c := range cols {
		t.Numeric[c] = true
	}
	return t
}

// envTable lists env.json: the keys docs/results.md describes first, in
// its order and with readable values, then any other key as written.
func (e *experiment) envTable() *table {
	t := newTable("Environment (env.json)", "key", "value")
	if e.env == nil {
		t.Note = "env.json is missing."
		return t
	}
	known := []string{"started", "cpus", "memory_bytes", "kernel", "os", "arch", "driver_procs", "go_version",
		"tenantbench_version", "tenantbench_commit", "tenantbench_modified", "dbms_version", "cgroup_mode", "limits_enforced"}
	done := map[string]bool{}
	add := func(k string) {
		v, ok := e.env[k]
		if !ok || done[k] {
			return
		}
		done[k] = true
		s := fmt.Sprint(v)
		if k == "memory_bytes" {
			if f, ok := v.(float64); ok {
				s = fmtBytes(f)
			}
		}
		t.Rows = append(t.Rows, []string{k, s})
	}
	for _, k := range known {
		add(k)
	}
	var rest []string
	for k := range e.env {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		add(k)
	}
	return t
}

// headline is the one-line summary of the machine and the system under
// test shown at the top of the report.
func (e *experiment) headline() string {
	get := func(k string) string {
		if v, ok := e.env[k]; ok {
			return fmt.Sprint(v)
		}
		return "?"
	}
	if e.env == nil {
		return "environment unknown (no env.json)"
	}
	mem := "?"
	if f, ok := e.env["memory_bytes"].(float64); ok {
		mem = fmtBytes(f)
	}
	limits := "limits not enforced (the servers ran unlimited)"
	if b, ok := e.env["limits_enforced"].(bool); ok && b {
		limits = "limits enforced"
	}
	dbms := "PostgreSQL " + get("dbms_version")
	if vs, ok := e.env["dbms_versions"].(map[string]any); ok && len(vs) > 0 {
		// Several engines: each one's version, in the plan's order.
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(vs)) {
			parts = append(parts, fmt.Sprintf("%s %v", name, vs[name]))
		}
		if e.plan != nil {
			parts = parts[:0]
			for _, name := range e.plan.Dimensions.Engines {
				if v, ok := vs[name]; ok {
					parts = append(parts, fmt.Sprintf("%s %v", name, v))
				}
			}
		}
		dbms = strings.Join(parts, ", ")
	}
	s := fmt.Sprintf("%s CPUs, %s memory, %s %s, kernel %s; %s; cgroups %s, %s", get("cpus"), mem, get("os"),
		get("arch"), get("kernel"), dbms, get("cgroup_mode"), limits)
	if e.plan != nil {
		r := e.plan.Resources
		if r.CPUs > 0 || r.MemoryBytes > 0 {
			s += fmt.Sprintf(" (per server: %s CPUs, %s memory", fmtLimit(r.CPUs), spec.ByteSize(r.MemoryBytes))
			if r.Divide {
				s += ", divided among the servers of a model that has several"
			}
			s += ")"
		}
	}
	return s
}

// list writes a spec list as the spec does: [a, b] or a single value.
func list[T any](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func fmtLimit(v float64) string {
	if v == 0 {
		return "unlimited"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// planTable lists the runs of the plan with their status: a run the plan
// has and results.csv lacks did not end (the experiment was cut).
func (e *experiment) planTable() *table {
	byID := map[string]*run{}
	for _, r := range e.runs {
		byID[r.row.RunID] = r
	}
	var keys, ikeys []string
	if e.plan != nil {
		keys, ikeys = e.plan.SettingKeys, e.plan.InterferenceKeys
	} else {
		keys, ikeys = e.vary.settings, e.vary.interference
	}
	// The interaction mode (how the workload sent its transactions) is a
	// column when the workload has modes: runs of different modes do
	// different work per round trip.
	modes := false
	if e.plan != nil {
		for _, r := range e.plan.Runs {
			modes = modes || r.Interaction != ""
		}
	} else {
		for _, r := range e.runs {
			modes = modes || r.row.Interaction != ""
		}
	}
	// The clients' placement (sut.placement) is a column when the plan
	// names placements.
	placed := e.vary.placement
	if e.plan != nil {
		placed = len(e.plan.Dimensions.Placements) > 0
	}
	// The case and the engine: columns when the plan has cases, or
	// several engines, right after the run as in the plan's own table.
	cases, engines := e.vary.cases, e.vary.engine
	if e.plan != nil {
		cases, engines = e.plan.Dimensions.Cases > 0, len(e.plan.Dimensions.Engines) > 1
	}
	head := []string{"run"}
	if cases {
		head = append(head, "case")
	}
	if engines {
		head = append(head, "engine")
	}
	at := len(head) - 1 // columns before model's, after run's
	head = append(append(append(head, "model", "tenants", "scale", "clients"), keys...), ikeys...)
	if placed {
		head = append(head, "placement")
	}
	if modes {
		head = append(head, "interaction")
	}
	head = append(head, "rep", "status", "throughput (tx/s)", "mean latency (ms)", "p99 latency (ms)")
	t := newTable("Plan", head...)
	n := len(head)
	t.numbers(2+at, 3+at, 4+at, n-5, n-3, n-2, n-1)
	row := func(id, cs, eng, model string, tenants int, scale float64, clients int, settings, interf map[string]string, placement, interaction string, rep int) {
		cells := []string{id}
		if cases {
			cells = append(cells, cs)
		}
		if engines {
			cells = append(cells, eng)
		}
		cells = append(cells, model, strconv.Itoa(tenants), strconv.FormatFloat(scale, 'g', -1, 64), strconv.Itoa(clients))
		for _, k := range keys {
			cells = append(cells, settings[k])
		}
		for _, k := range ikeys {
			cells = append(cells, interf[k])
		}
		if placed {
			cells = append(cells, placement)
		}
		if modes {
			cells = append(cells, interaction)
		}
		cells = append(cells, strconv.Itoa(rep))
		if r := byID[id]; r != nil {
			cells = append(cells, r.row.Status, fmtNum(r.row.TPS), fmtNum(r.row.MeanMs), fmtNum(r.row.P99Ms))
		} else {
			cells = append(cells, "not run", "", "", "")
		}
		t.Rows = append(t.Rows, cells)
	}
	if e.plan != nil {
		for _, r := range e.plan.Runs {
			row(r.ID, r.Case, e.plan.EngineOf(&r), r.Model, r.Tenants, r.Scale, r.Clients, r.Settings, r.Interference, r.Placement, r.Interaction, r.Repetition)
		}
		d := e.plan.Dimensions
		// What a workload case decides (its scale, clients, settings:
		// vary.own) is no factor of the product: the cases are.
		var factors []string
		if len(d.Engines) > 1 {
			factors = append(factors, "engine "+list(d.Engines))
		}
		factors = append(factors, "model "+list(d.Models), "tenants "+list(d.Tenants))
		if e.vary.own("scale") {
			factors = append(factors, "scale "+list(d.Scales))
		}
		if e.vary.own("clients") {
			factors = append(factors, "clients "+list(d.Clients))
		}
		for _, k := range keys {
			if e.vary.own("set_" + k) {
				factors = append(factors, k+" "+list(settingValues(e.plan, k)))
			}
		}
		if d.Cases > 0 {
			factors = append(factors, fmt.Sprintf("%d cases of workload.cases (each with the scale, clients and settings in its rows)", d.Cases))
		}
		t.Note = fmt.Sprintf("%d runs: %s", len(e.plan.Runs), strings.Join(factors, " x "))
		for _, k := range ikeys {
			t.Note += fmt.Sprintf(" x %s %s", k, list(interferenceValues(e.plan, k)))
		}
		if placed {
			t.Note += " x placement " + list(d.Placements)
		}
		var warmup, duration float64
		if len(e.plan.Runs) > 0 {
			warmup, duration = e.plan.Runs[0].WarmupS, e.plan.Runs[0].DurationS
		}
		t.Note += fmt.Sprintf(" x %d repetition(s); workload %s, warmup %s, duration %s.", d.Repeat, e.plan.Workload,
			spec.Duration(warmup*float64(time.Second)), spec.Duration(duration*float64(time.Second)))
		if o := e.plan.Order; o != "" {
			// Results older than the order key ran blocked.
			t.Note += " Order " + o + ": runs in the order listed; rep is the run's round."
		}
		return t
	}
	for _, r := range e.runs {
		row(r.row.RunID, r.row.Case, r.row.Engine, r.row.Model, r.row.Tenants, r.row.Scale, r.row.Clients, r.row.Settings, r.row.Interference, r.row.Placement, r.row.Interaction, r.row.Repetition)
	}
	t.Note = "From results.csv (spec.yaml could not be read as a spec)."
	return t
}

// resultTables has a table per metric: each matrix point's statistics
// over its successful repetitions (Matos and Pedreira 2025, section 2: mean,
// standard deviation, min, max; section 3.3: CV) and Erdelt and Rabl's (2026)
// less favourable value (section 5.1).
func (e *experiment) resultTables() []*table {
	var out []*table
	for _, m := range append(coreMetrics(), extraMetrics(e.runs)...) {
		if !hasValues(e.runs, m) {
			continue
		}
		t := newTable(m.label(), "matrix point", "n", "failed", "mean", "std", "CV (%)", "min", "max", "less favourable")
		t.ID = m.key
		t.numbers(1, 2, 3, 4, 5, 6, 7, 8)
		switch m.dir {
		case metrics.HigherIsBetter:
			t.Note = "Higher is better; the less favourable value is the minimum."
		case metrics.LowerIsBetter:
			t.Note = "Lower is better; the less favourable value is the maximum."
		default:
			t.Note = "Neither higher nor lower is better: no less favourable value."
		}
		t.Note += " Source: " + source(m) + "."
		for _, p := range e.points {
			st, ok := statOf(p, m)
			if !ok {
				t.Rows = append(t.Rows, []string{p.label, "0", strconv.Itoa(p.failed()), "", "", "", "", "", ""})
				continue
			}
			t.Rows = append(t.Rows, []string{p.label, strconv.Itoa(st.N), strconv.Itoa(st.Failed), fmtNum(st.Mean),
				fmtNum(st.Std), fmtPct(st.CV), fmtNum(st.Min), fmtNum(st.Max), fmtNum(st.Less)})
		}
		out = append(out, t)
	}
	return out
}

// source says where a metric's values come from: its column's
// declaration, and what the report computes when the column is absent.
func source(m metric) string {
	switch m.key {
	case mFairness.key:
		return "results.csv fairness_jain, or Jain's index over runs/<id>/tenants.csv throughput_tps (txn all)"
	case mETpX.key, mELat.key:
		return "results.csv " + m.key + ", or Erdelt and Rabl 2026, eq. 1-2 from results.csv cpu_s"
	}
	if c, ok := results.ColumnOf(m.key); ok {
		return "results.csv " + m.key + ": " + c.Source
	}
	return "results.csv " + m.key
}

// failedTable lists the failed runs with their errors, and the first
// failure of each tenant that lost its connection.
func (e *experiment) failedTable() *table {
	t := newTable("Failed runs", "run", "matrix point", "rep", "error")
	t.numbers(2)
	for _, r := range e.failedRuns() {
		msg := r.row.Error
		if msg == "" && r.summary != nil {
			msg = r.summary.Error
		}
		if r.summary != nil {
			for _, tt := range r.summary.Tenant {
				if tt.ConnLost != "" {
					msg += fmt.Sprintf("; %s lost its connection: %s", tt.Tenant, tt.ConnLost)
				}
			}
		}
		t.Rows = append(t.Rows, []string{r.row.RunID, seriesLabel(r.row, e.vary) + ", " + tenantsLabel(r.row.Tenants),
			strconv.Itoa(r.row.Repetition), msg})
	}
	if len(t.Rows) == 0 {
		t.Note = "None: every run ended ok."
	} else {
		t.Note = "Failed runs are left out of every figure and statistic: their figures are partial."
	}
	return t
}

// runSpan is the wall-clock time the runs took, from the summaries.
func (e *experiment) runSpan() string {
	var first, last time.Time
	for _, r := range e.runs {
		if r.summary == nil {
			continue
		}
		if first.IsZero() || r.summary.Start.Before(first) {
			first = r.summary.Start
		}
		if r.summary.End.After(last) {
			last = r.summary.End
		}
	}
	if first.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s to %s (%s)", first.UTC().Format("2006-01-02 15:04:05"), last.UTC().Format("15:04:05 MST"),
		last.Sub(first).Round(time.Second))
}

// ok counts successful runs.
func (e *experiment) okCount() int {
	n := 0
	for _, r := range e.runs {
		if r.row.Status == results.StatusOK {
			n++
		}
	}
	return n
}

// interferenceValues are the values the plan's runs give the list-valued
// interference param k, in the order they first appear.
func interferenceValues(p *plan.Plan, k string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range p.Runs {
		if v := r.Interference[k]; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// settingValues are the values the plan's runs give setting k, in the
// order they first appear.
func settingValues(p *plan.Plan, k string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range p.Runs {
		// A run of another engine has none of k: not a value of it.
		if v, ok := r.Settings[k]; (ok || len(p.Dimensions.Engines) < 2) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
