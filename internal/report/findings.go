package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/results"
)

// finding is one plain sentence of the report's answer, with the figure
// and the table that hold its evidence.
type finding struct {
	Text string
	// Kind: "difference", "same" (within the noise), "unknown" (one
	// repetition), "trend" (across tenant counts) or "failure".
	Kind  string
	Links []link
	// Size is |ratio - 1| of a difference or of a single repetition's
	// comparison: how the report ranks them (rank).
	Size float64
}

// shownFindings is how many findings open the report; the rest fold away
// under them, so that a matrix of several dimensions, which compares
// dozens of pairs of points, still answers first with what matters most.
const shownFindings = 12

// kindOrder is the order in which rank puts the kinds of finding: what
// went wrong, then the differences, the trends across tenant counts, the
// comparisons of one repetition, and the points within the noise last.
var kindOrder = map[string]int{"failure": 0, "difference": 1, "trend": 2, "unknown": 3, "same": 4}

// rank orders fs by kindOrder, differences (and single-repetition
// comparisons) by their size, largest first, and otherwise as found; it
// returns the first shownFindings, every failure among them however many
// there are, and the rest.
func rank(fs []finding) (top, rest []finding) {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b finding) int {
		if c := cmp.Compare(kindOrder[a.Kind], kindOrder[b.Kind]); c != 0 {
			return c
		}
		return cmp.Compare(b.Size, a.Size)
	})
	failures := 0
	for _, f := range sorted {
		if f.Kind == "failure" {
			failures++
		}
	}
	n := max(shownFindings, failures)
	if n >= len(sorted) {
		return sorted, nil
	}
	return sorted[:n], sorted[n:]
}

type link struct{ Href, Label string }

// dimension is a matrix dimension the experiment varies besides the
// tenants: the workload case, the engine, the model, the scale, the
// clients or a swept setting.
type dimension struct {
	name  string
	value func(*point) string // as a finding names it
}

// dimensions are the dimensions that vary, in the order the labels use.
// A case decides its scale, clients and settings (vary.byCase): those are
// then no dimensions of their own, since they change only with the case,
// and a point would find no counterpart that differs in them alone.
func (e *experiment) dimensions() []dimension {
	var out []dimension
	v := e.vary
	if v.cases {
		out = append(out, dimension{"case", func(p *point) string { return "case `" + p.kase + "`" }})
	}
	if v.engine {
		out = append(out, dimension{"engine", func(p *point) string { return "`" + p.engine + "`" }})
	}
	models := map[string]bool{}
	for _, p := range e.points {
		models[p.model] = true
	}
	if len(models) > 1 {
		out = append(out, dimension{"model", func(p *point) string { return "`" + p.model + "`" }})
	}
	if v.scale && v.own("scale") {
		out = append(out, dimension{"scale", func(p *point) string { return "scale " + fmtNum(p.scale) }})
	}
	if v.clients && v.own("clients") {
		out = append(out, dimension{"clients", func(p *point) string { return fmt.Sprintf("%d clients", p.clients) }})
	}
	if v.placement {
		out = append(out, dimension{"placement", func(p *point) string { return "placement `" + p.placement + "`" }})
	}
	for _, k := range v.settings {
		if v.own("set_" + k) {
			out = append(out, dimension{k, func(p *point) string { return "`" + k + "=" + p.settings[k] + "`" }})
		}
	}
	for _, k := range v.interference {
		out = append(out, dimension{k, func(p *point) string { return "`" + k + "=" + p.interference[k] + "`" }})
	}
	return out
}

// pairs calls f with each point p whose value of a compared dimension d
// (the i-th of dims) is not the dimension's first, and its counterpart q
// at the first value, all else equal; until f returns false.
func (e *experiment) pairs(dims []dimension, f func(i int, d dimension, p, q *point) bool) {
	for i, d := range dims {
		if !compared(d, dims) {
			continue
		}
		base := d.value(e.points[0])
		for _, p := range e.points {
			if d.value(p) == base {
				continue
			}
			if q := e.counterpart(p, d, base, dims); q != nil && !f(i, d, p, q) {
				return
			}
		}
	}
}

// compared says whether the values of d, one of dims, are compared with
// its first. A workload case is a condition, as a tenant count is: each
// sets several knobs at once (Matos and Pedreira 2025, Table 1), so the
// other dimensions compare within each case, and cases are compared with
// the first only when nothing else varies.
func compared(d dimension, dims []dimension) bool { return d.name != "case" || len(dims) == 1 }

// findings answer the questions the matrix can answer, first: for each
// varying dimension, each value against the dimension's first value at
// every tenant count and value of the other dimensions (throughput, with
// the CPU it cost; memory per tenant); across tenant counts, how
// throughput and p99 latency grew; then what went wrong. A difference is
// called one only when the interval of the ratio excludes 1 (ratio;
// docs/report.md).
func (e *experiment) findings() []finding {
	var out []finding
	dims := e.dimensions()
	e.pairs(dims, func(i int, d dimension, p, q *point) bool {
		ctx := e.context(p, dims, i)
		if f, ok := e.state(ctx, d.value(p), d.value(q), p, q, mThroughput, "throughput"); ok {
			out = append(out, f)
		}
		if p.tenants == maxTenants(e.points) {
			if m, ok := e.memoryMetric(); ok {
				if f, ok := e.state(ctx, d.value(p), d.value(q), p, q, m, "memory per tenant"); ok {
					out = append(out, f)
				}
			}
		}
		return true
	})
	out = append(out, e.growth(mThroughput, "Throughput")...)
	out = append(out, e.growth(mP99, "p99 latency")...)
	out = append(out, e.faultFindings()...)
	return append(out, e.failureFindings()...)
}

// faultFindings say, per point whose runs injected faults, how long
// service took to resume and throughput to recover (Zhang et al. 2025,
// eq. 3-4: results.csv f_score_s and r_score_s, means over the faults).
func (e *experiment) faultFindings() []finding {
	f, r := declared("f_score_s", extra("f_score_s")), declared("r_score_s", extra("r_score_s"))
	var out []finding
	for _, p := range e.points {
		fv, rv := values(p.runs, f), values(p.runs, r)
		if len(fv) == 0 {
			continue
		}
		text := fmt.Sprintf("In %s, service resumed %.2f s after a fault on average (F-Score, %d run(s))", p.label, mean(fv), len(fv))
		if len(rv) > 0 {
			text += fmt.Sprintf(", and throughput was back %.2f s after that (R-Score)", mean(rv))
		} else {
			text += "; throughput did not recover within the phase (no R-Score)"
		}
		out = append(out, finding{Text: text + ".", Kind: "trend", Links: []link{{"#interference", "events"}}})
	}
	return out
}

// counterpart is the point like p but with dimension d at value base.
func (e *experiment) counterpart(p *point, d dimension, base string, dims []dimension) *point {
	for _, q := range e.points {
		if q.tenants != p.tenants || d.value(q) != base {
			continue
		}
		same := true
		for _, o := range dims {
			if o.name != d.name && o.value(q) != o.value(p) {
				same = false
				break
			}
		}
		if same {
			return q
		}
	}
	return nil
}

// context is where a comparison holds: the tenant count and the values
// of the other varying dimensions.
func (e *experiment) context(p *point, dims []dimension, skip int) string {
	parts := []string{"At " + tenantsLabel(p.tenants)}
	for j, d := range dims {
		if j != skip {
			parts = append(parts, d.value(p))
		}
	}
	return strings.Join(parts, ", ")
}

// memoryMetric is the per-tenant memory figure the runs have: the
// footprint of Oracle 2014 (Table 2), else the marginal memory.
func (e *experiment) memoryMetric() (metric, bool) {
	for _, key := range []string{"mem_footprint_per_tenant_mb", "mem_marginal_per_tenant_mb"} {
		m := declared(key, extra(key))
		if hasValues(e.runs, m) {
			return m, true
		}
	}
	return metric{}, false
}

// ratio compares q's m (A) with p's (B): paired within rounds when the
// runs were interleaved or shuffled and two or more rounds have both
// (metrics.Paired), else over every successful repetition
// (metrics.Unpaired, Welch's interval); compareBy does both. ok false
// when a side has no value or a value is not positive.
func (e *experiment) ratio(p, q *point, m metric) (c metrics.Comparison, paired, ok bool) {
	cmp := e.compareBy(q, p, m)
	if cmp.pairedOK {
		return cmp.paired, true, true
	}
	return cmp.unpaired, false, cmp.unpairOK
}

// state says how p's m compares with q's, p named b and q a.
func (e *experiment) state(ctx, b, a string, p, q *point, m metric, what string) (finding, bool) {
	r, paired, ok := e.ratio(p, q, m)
	if !ok {
		return finding{}, false
	}
	links := []link{{"#fig-" + figureOf(m), "figure"}, {"#table-" + m.key, "table"}}
	change := func(ratio float64) string {
		word := "more"
		if ratio < 1 {
			word = "less"
		}
		return fmt.Sprintf("%s %s %s", pct(math.Abs(ratio-1)), word, what)
	}
	reps := fmt.Sprintf("%d repetitions each", r.NA)
	switch {
	case paired:
		reps = fmt.Sprintf("paired within %d rounds", r.N)
	case r.NA != r.N:
		reps = fmt.Sprintf("%d and %d repetitions", r.N, r.NA)
	}
	verb := "gave"
	if what == "memory per tenant" {
		verb = "used"
	}
	switch {
	case math.IsNaN(r.Low):
		return finding{Text: fmt.Sprintf("%s, %s %s %s than %s; one repetition: no uncertainty known.",
				ctx, b, verb, change(r.Ratio), a), Kind: "unknown", Links: links, Size: math.Abs(r.Ratio - 1)},
			true
	case r.Differs():
		text := fmt.Sprintf("%s, %s %s %s than %s (%.0f %% CI %s to %s, %s)", ctx, b, verb, change(r.Ratio), a,
			confidence*100, signedPct(r.Low-1), signedPct(r.High-1), reps)
		if m.key == mThroughput.key {
			text += cpuClause(p, q)
		}
		return finding{Text: text + ".", Kind: "difference", Links: links, Size: math.Abs(r.Ratio - 1)}, true
	}
	cv := math.Max(cvOf(values(p.runs, m)), cvOf(values(q.runs, m)))
	return finding{Text: fmt.Sprintf("%s, %s and %s showed no difference in %s beyond the run-to-run noise (CV up to %s; "+
			"%.0f %% CI of the ratio %s to %s, %s).", ctx, b, a, what, pct(cv), confidence*100, signedPct(r.Low-1),
			signedPct(r.High-1), reps), Kind: "same", Links: links},

		true
}

// cpuClause says what the throughput cost in CPU, when both points were
// monitored: ", at 18 % more CPU".
func cpuClause(p, q *point) string {
	pc, qc := values(p.runs, mCPU), values(q.runs, mCPU)
	if len(pc) == 0 || len(qc) == 0 {
		return ""
	}
	mp, mq := mean(pc), mean(qc)
	if !(mq > 0) {
		return ""
	}
	word := "more"
	if mp < mq {
		word = "less"
	}
	return fmt.Sprintf(", at %s %s CPU", pct(math.Abs(mp/mq-1)), word)
}

// growth says, per series over two or more tenant counts, how m changed
// from the fewest to the most tenants: "p99 latency grew 4.2x from 1 to 4
// tenants in `schema`, 1.6x in `instance`."
func (e *experiment) growth(m metric, title string) []finding {
	var parts []string
	from, to := 0, 0
	for _, s := range seriesNames(e.points) {
		pts := e.seriesPoints(s)
		if len(pts) < 2 {
			continue
		}
		first, last := pts[0], pts[len(pts)-1]
		a, b := values(first.runs, m), values(last.runs, m)
		if len(a) == 0 || len(b) == 0 || !(mean(a) > 0) {
			continue
		}
		if from == 0 {
			from, to = first.tenants, last.tenants
		} else if from != first.tenants || to != last.tenants {
			continue // one sentence compares the same counts
		}
		parts = append(parts, fmt.Sprintf("%.1fx in `%s`", mean(b)/mean(a), s))
	}
	if len(parts) == 0 {
		return nil
	}
	text := fmt.Sprintf("%s changed from %d to %d tenants by %s.", title, from, to, strings.Join(parts, ", "))
	return []finding{{Text: text, Kind: "trend", Links: []link{{"#fig-" + figureOf(m), "figure"}, {"#table-" + m.key, "table"}}}}
}

// failureFindings: failed and interrupted runs, and servers killed for
// memory, are answers too.
func (e *experiment) failureFindings() []finding {
	var failed, cut []*run
	kills := 0
	for _, r := range e.runs {
		switch {
		case r.interrupted():
			cut = append(cut, r)
		case !r.ok():
			failed = append(failed, r)
		}
		if r.summary != nil && len(r.summary.MemoryKills) > 0 {
			kills++
		}
	}
	var out []finding
	failLinks := []link{{"#failed", "failed runs"}}
	if len(failed) > 0 {
		out = append(out, finding{Text: fmt.Sprintf("%d of %d runs failed; the first, run %s: %s", len(failed), len(e.runs),
			failed[0].row.RunID, firstLine(failed[0].row.Error)), Kind: "failure", Links: failLinks})
	}
	if len(cut) > 0 {
		out = append(out, finding{Text: fmt.Sprintf("%d of %d runs were interrupted (%s); their figures cover the time they ran.",
			len(cut), len(e.runs), firstLine(cut[0].row.Error)), Kind: "failure", Links: failLinks})
	}
	for _, p := range e.points {
		missed, runs := 0, 0
		met, of := 0, 0
		for _, r := range p.okRuns() {
			if r.summary == nil || r.summary.Provider.SLAMet == nil {
				continue
			}
			runs++
			if !*r.summary.Provider.SLAMet {
				missed++
			}
			if r.summary.Provider.SLAMetTenants != nil {
				met, of = met+*r.summary.Provider.SLAMetTenants, of+r.row.Tenants
			}
		}
		if missed > 0 {
			out = append(out, finding{Text: fmt.Sprintf("At %s, some tenant missed its SLA in %d of %d run(s): %d of %d tenant runs met it.",
				p.label, missed, runs, met, of), Kind: "failure", Links: []link{{"#classes", "classes"}, {"#table-sla_met_tenants", "table"}}})
		}
	}
	var busy []string
	for _, r := range e.runs {
		if v, ok := r.row.Extra["driver_cpu_share"]; ok && v > results.DriverShareWarning {
			busy = append(busy, fmt.Sprintf("run %s (%.0f %%)", r.row.RunID, v*100))
		}
	}
	if len(busy) > 0 {
		out = append(out, finding{Text: fmt.Sprintf("The driver used more than %.0f %% of the host's CPU in %s: it may have taken "+
			"CPU from the servers it measured (results.csv driver_cpu_share).", results.DriverShareWarning*100,
			strings.Join(busy, ", ")), Kind: "failure", Links: []link{{"#warnings", "warnings"}}})
	}
	if kills > 0 {
		out = append(out, finding{Text: fmt.Sprintf("In %d run(s) the kernel killed server processes for memory (summary.json memory_kills).",
			kills), Kind: "failure", Links: failLinks})
	}
	return out
}

// figureOf is the figure against tenants that draws m.
func figureOf(m metric) string {
	switch m.key {
	case mThroughput.key:
		return "throughput"
	case mMeanLat.key:
		return "latency-mean"
	case mP99.key:
		return "latency-p99"
	}
	return "memory-peak" // the per-tenant memory figures' neighbour
}

func pct(f float64) string {
	if f >= 0.095 {
		return fmt.Sprintf("%.0f %%", f*100)
	}
	return fmt.Sprintf("%.1f %%", f*100)
}

// signedPct is a ratio's distance from 1 as a signed percentage.
func signedPct(f float64) string {
	if f >= 0 {
		return "+" + pct(f)
	}
	return "−" + pct(-f)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func cvOf(v []float64) float64 {
	s, err := metrics.Summarize(v)
	if err != nil || math.IsNaN(s.CV) {
		return 0
	}
	return s.CV
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// moreFindingsTemplate folds away the findings rank leaves out of the
// first list (report.html and compare.html).
const moreFindingsTemplate = `{{define "more"}}{{if .}}<details><summary>{{len .}} more findings: smaller differences, comparisons of one repetition and points within the noise</summary>
<ul>{{range .}}<li class="{{.Kind}}">{{code .Text}}{{range .Links}} <a href="{{.Href}}">[{{.Label}}]</a>{{end}}</li>
{{end}}</ul></details>{{end}}{{end}}`

// writeMoreMD writes the folded findings under the first list of
// summary.md or compare.md, as a details element GitHub and most Markdown
// viewers fold.
func writeMoreMD(b *strings.Builder, more []finding, text func(finding) string) {
	if len(more) == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>%d more findings: smaller differences, comparisons of one repetition and points within the noise</summary>\n\n", len(more))
	for _, f := range more {
		b.WriteString("- " + text(f) + "\n")
	}
	b.WriteString("\n</details>\n")
}
