package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// The report's part on a drifting machine: the speed probe over time, and
// comparisons between matrix points, paired within rounds when the runs
// were interleaved or shuffled (docs/report.md, "Paired comparisons").

// confidence is the level of the comparisons' intervals.
const confidence = 0.95

// maxComparisons bounds the comparisons table: beyond it a matrix is
// better compared with `compare` or by hand.
const maxComparisons = 60

// driftPart is the drift section of the page.
type driftPart struct {
	Note string
	// Warn names the comparisons whose difference is within the probe's
	// spread; empty when the probe is steadier than every effect.
	Warn  []string
	Table *table // nil when there is nothing to compare
}

// comparison is point b against point a in throughput.
type comparison struct {
	a, b               *point
	paired, unpaired   metrics.Comparison
	pairedOK, unpairOK bool
}

func (c comparison) name() string {
	if c.a.tenants == c.b.tenants {
		return fmt.Sprintf("%s vs %s, %s", c.b.series, c.a.series, tenantsLabel(c.a.tenants))
	}
	return c.b.label + " vs " + c.a.label
}

// interleaved says the runs ran in rounds (interleaved or shuffled order),
// so that points compare within a round.
func (e *experiment) interleaved() bool {
	return e.plan != nil && (e.plan.Order == spec.OrderInterleaved || e.plan.Order == spec.OrderShuffled)
}

// comparisons pairs the points that differ in their series only (the
// same tenants): every pair of series when there are at most four, else
// the findings' pairs (each point against its counterpart at a compared
// dimension's first value), or with no dimension each series against the
// first. Throughput is compared: it is the figure every run has.
func (e *experiment) comparisons() []comparison {
	names := seriesNames(e.points)
	if len(names) < 2 {
		return nil
	}
	if dims := e.dimensions(); len(names) > 4 && len(dims) > 0 {
		return e.alongDimensions(dims)
	}
	at := map[string]map[int]*point{}
	var tenants []int
	seen := map[int]bool{}
	for _, p := range e.points {
		if at[p.series] == nil {
			at[p.series] = map[int]*point{}
		}
		at[p.series][p.tenants] = p
		if !seen[p.tenants] {
			seen[p.tenants] = true
			tenants = append(tenants, p.tenants)
		}
	}
	var out []comparison
	for _, n := range tenants {
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				if i > 0 && len(names) > 4 {
					break
				}
				a, b := at[names[i]][n], at[names[j]][n]
				if a == nil || b == nil {
					continue
				}
				out = append(out, e.compare(a, b))
				if len(out) == maxComparisons {
					return out
				}
			}
		}
	}
	return out
}

// alongDimensions are the comparisons of each point with its counterpart
// at the first value of each compared dimension, as the findings make
// them: a case's engines against each other, not every point against the
// first point of the plan.
func (e *experiment) alongDimensions(dims []dimension) []comparison {
	var out []comparison
	e.pairs(dims, func(_ int, _ dimension, p, q *point) bool {
		out = append(out, e.compare(q, p))
		return len(out) < maxComparisons
	})
	return out
}

// compare compares b with a: paired over the rounds both have a
// successful run in, unpaired over all their successful runs; in
// throughput (compareBy for another metric).
func (e *experiment) compare(a, b *point) comparison { return e.compareBy(a, b, mThroughput) }

// compareBy is compare in metric m. A run without a value of m, or with a
// value that is not a number, is left out of both.
func (e *experiment) compareBy(a, b *point, m metric) comparison {
	c := comparison{a: a, b: b}
	byRound := func(p *point) map[int]float64 {
		out := map[int]float64{}
		for _, r := range p.okRuns() {
			if v, ok := m.value(r); ok && !math.IsNaN(v) {
				out[r.row.Repetition] = v
			}
		}
		return out
	}
	ra, rb := byRound(a), byRound(b)
	var pa, pb, ua, ub []float64
	for round, v := range ra {
		ua = append(ua, v)
		if w, ok := rb[round]; ok {
			pa, pb = append(pa, v), append(pb, w)
		}
	}
	for _, v := range rb {
		ub = append(ub, v)
	}
	var err error
	c.unpaired, err = metrics.Unpaired(ua, ub, confidence)
	c.unpairOK = err == nil && len(ua) > 0 && len(ub) > 0
	if e.interleaved() && len(pa) >= 2 {
		c.paired, err = metrics.Paired(pa, pb, confidence)
		c.pairedOK = err == nil
	}
	return c
}

// probeSpread is how much the probe varied: (max - min) / median over
// every measurement; ok false with fewer than two.
func probeSpread(probes []results.ProbeRow) (spread, lo, hi float64, ok bool) {
	if len(probes) < 2 {
		return 0, 0, 0, false
	}
	vals := make([]float64, len(probes))
	for i, p := range probes {
		vals[i] = p.Value
	}
	st, err := metrics.Summarize(vals)
	if err != nil || !(st.Median > 0) {
		return 0, 0, 0, false
	}
	return (st.Max - st.Min) / st.Median, st.Min, st.Max, true
}

// fmtRatio writes B/A as a signed percentage with its interval:
// "+4.1 % [-1.2, +9.6]".
func fmtRatio(c metrics.Comparison) string {
	if math.IsNaN(c.Ratio) {
		return ""
	}
	s := fmt.Sprintf("%+.1f %%", 100*(c.Ratio-1))
	if !math.IsNaN(c.Low) {
		s += fmt.Sprintf(" [%+.1f, %+.1f]", 100*(c.Low-1), 100*(c.High-1))
	}
	return s
}

func verdict(c metrics.Comparison, ok bool) string {
	switch {
	case !ok || math.IsNaN(c.Low):
		return "too few runs"
	case c.Differs():
		return "differ"
	}
	return "no difference shown"
}

// driftPart builds the drift section: nil when there is neither a probe
// nor two series to compare.
func (e *experiment) driftPart() *driftPart {
	cs := e.comparisons()
	if len(cs) == 0 && len(e.probes) == 0 {
		return nil
	}
	d := &driftPart{}
	order := "blocked"
	if e.plan != nil && e.plan.Order != "" {
		order = e.plan.Order
	}
	if e.interleaved() {
		d.Note = fmt.Sprintf("The runs ran in rounds (order %s): each round ran one repetition of every matrix point, "+
			"minutes apart. Paired: B/A of throughput (results.csv throughput_tps) within each round, the geometric mean "+
			"over the rounds both points succeeded in, with a %.0f %% t-interval on the log ratios; a slow drift of the "+
			"machine cancels. Unpaired: the ratio of the points' geometric means with Welch's interval, for contrast.",
			order, 100*confidence)
	} else {
		d.Note = fmt.Sprintf("The runs ran in order %s: a point's repetitions back to back, so a drift of the machine "+
			"between points reads as a difference between them. Only the unpaired comparison (the ratio of the points' "+
			"geometric mean throughputs, with Welch's %.0f %% interval) can be made; order: interleaved or shuffled "+
			"allows paired comparisons within rounds.", order, 100*confidence)
	}
	if len(cs) > 0 {
		t := newTable("Comparisons of throughput", "comparison (B vs A)", "rounds", "paired B/A", "paired",
			"unpaired B/A", "unpaired")
		t.numbers(1)
		for _, c := range cs {
			paired, pv := "", ""
			if e.interleaved() {
				// With fewer than two rounds both succeeded in there is
				// no paired ratio (not a ratio of 0).
				if c.pairedOK {
					paired = fmtRatio(c.paired)
				}
				pv = verdict(c.paired, c.pairedOK)
			}
			rounds := ""
			if e.interleaved() && c.pairedOK {
				rounds = fmt.Sprint(c.paired.N)
			}
			t.Rows = append(t.Rows, []string{c.name(), rounds, paired, pv, fmtRatio(c.unpaired), verdict(c.unpaired, c.unpairOK)})
		}
		if len(cs) == maxComparisons {
			t.Note = fmt.Sprintf("The first %d comparisons.", maxComparisons)
		}
		d.Table = t
	}
	spread, lo, hi, ok := probeSpread(e.probes)
	if !ok {
		return d
	}
	var unsafe []string
	for _, c := range cs {
		if c.unpairOK && math.Abs(c.unpaired.Ratio-1) < spread {
			unsafe = append(unsafe, fmt.Sprintf("%s (%+.1f %%)", c.name(), 100*(c.unpaired.Ratio-1)))
		}
	}
	if len(unsafe) > 0 {
		sort.Strings(unsafe)
		w := fmt.Sprintf("The speed probe (%s) varied by %.1f %% over the experiment (%s to %s %s), more than these "+
			"differences in throughput: %s. ", e.probes[0].What, 100*spread, fmtNum(lo), fmtNum(hi), e.probes[0].Unit,
			strings.Join(unsafe, "; "))
		if e.interleaved() {
			w += "Trust their paired comparisons, which remove drift between rounds, over the unpaired ones."
		} else {
			w += "In blocked order these differences may be the machine's drift: run again with order: interleaved or shuffled."
		}
		d.Warn = append(d.Warn, w)
	}
	return d
}

// probeFigure draws the probe's measurements over the experiment's time.
func (e *experiment) probeFigure() *figure {
	const id, title = "probe", "Machine speed over time (probe)"
	if len(e.probes) == 0 {
		return missing(id, title, "no probe: set probe: {every: run, what: cpu} in the spec.")
	}
	t0 := e.probes[0].Time
	xys := make(plotter.XYs, len(e.probes))
	top := 0.0
	for i, p := range e.probes {
		xys[i].X, xys[i].Y = p.Time.Sub(t0).Minutes(), p.Value
		top = max(top, p.Value)
	}
	c := newChart(title, "Minutes since the first probe", fmt.Sprintf("%s (%s)", e.probes[0].What, e.probes[0].Unit))
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return missing(id, title, "could not be drawn: "+err.Error())
	}
	line.Color, pts.Color = colorOf(0), colorOf(0)
	c.Add(line, pts)
	fromZero(c.Plot, top)
	caption := "The speed probe's measurements (probe.csv, column value), one before every run or round, against " +
		"the time it was taken: a flat line is a steady machine; a slope or steps are drift that a comparison of runs " +
		"taken at different times carries."
	if spread, lo, hi, ok := probeSpread(e.probes); ok {
		caption += fmt.Sprintf(" Spread: %.1f %% (%s to %s).", 100*spread, fmtNum(lo), fmtNum(hi))
	}
	return drawn(id, caption, c)
}
