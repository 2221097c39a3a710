package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// overTime draws the throughput of each second, summed over tenants, at
// the largest tenant count: one line per series with the mean over the
// successful repetitions and a band of +-1 standard deviation across them
// (Matos and Pedreira 2025, Fig. 2). When the runs had a schedule or a
// CloudyBench pattern, the load it asked for is drawn over the throughput as
// a step line (Zhang et al. 2025, Fig. 3-4), with tau for a pattern; a plan of several
// patterns gets a panel per pattern, and one of several engines a panel per
// engine, one above the other on the same time axis (Matos and Pedreira
// 2025 draw each engine's TPM over time apart, Fig. 2-3 and 11-12).
func (e *experiment) overTime() *figure {
	const id, title = "throughput-time", "Throughput over time"
	points := e.largestPoints()
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	n := points[0].tenants
	panels := e.timePanels(points)
	unit := e.timeUnit(points)
	charts, info, shared := e.timeCharts(fmt.Sprintf("%s, %s", title, tenantsLabel(n)), panels, unit)
	if len(charts) == 0 {
		return missing(id, title, "no run has per-second figures (runs/<id>/timeseries.csv).")
	}
	caption := fmt.Sprintf("Committed transactions in each second, summed over the tenants of a run with %s "+
		"(runs/<id>/timeseries.csv, rows txn=all, column committed); seconds before the dashed line are warmup, "+
		"excluded from every other figure. The line is the mean over the successful repetitions", tenantsLabel(n))
	if unit.factor != 1 {
		caption = fmt.Sprintf("TPM over time, as Matos and Pedreira (2025, Fig. 2) draw it: the transactions committed in each "+
			"second, x 60, summed over the tenants of a run with %s (runs/<id>/timeseries.csv, rows txn=all, column committed; "+
			"results.csv's tpm also counts the expected rollbacks, which the seconds do not); seconds before the dashed line "+
			"are warmup, excluded from every other figure. The line is the mean over the successful repetitions", tenantsLabel(n))
	}
	if info.banded {
		caption += "; the band spans +-1 sample standard deviation across them"
	}
	caption += "."
	if tg := info.target; tg != nil {
		caption += " " + targetCaption(tg, info, n)
	}
	if len(charts) > 1 {
		var names []string
		for _, pn := range panels {
			name := pn.pattern
			if pn.engine != "" && name != "" {
				name += " on " + pn.engine
			} else if pn.engine != "" {
				name = pn.engine
			}
			if pn.options != "" && name != "" {
				name += ", " + pn.options
			} else if pn.options != "" {
				name = pn.options
			}
			names = append(names, name)
		}
		var whats []string
		if panels[0].pattern != "" {
			whats = append(whats, "pattern")
		}
		if e.vary.engine {
			whats = append(whats, "engine")
		}
		if panels[0].options != "" {
			whats = append(whats, "set of the workload options in which the runs differ (as Matos and Pedreira "+
				"2025 draw all-warehouses off and on apart, Fig. 2-3)")
		}
		caption += fmt.Sprintf(" One panel per %s of the plan (%s).", strings.Join(whats, " and "), strings.Join(names, ", "))
		if shared {
			caption += " The panels share the throughput axis, so that they compare by height."
		}
	}
	return drawnPanels(id, fmt.Sprintf("%s, %s", title, tenantsLabel(n)), caption, charts)
}

// timeCharts is a chart per panel with a line drawn, titled title and the
// panel's pattern and engine. Panels of several engines share one
// throughput axis (shared), so that a case's engines compare by height as
// Matos and Pedreira (2025, Fig. 2-3) set them side by side; not with a
// load target, whose right axis is scaled to its own panel.
func (e *experiment) timeCharts(title string, panels []timePanel, unit timeUnit) (charts []*chart, info timeInfo, shared bool) {
	draw := func(top float64) {
		charts, info = nil, timeInfo{}
		for _, pn := range panels {
			t := title
			if pn.pattern != "" {
				t += ": " + pn.pattern
			}
			if pn.engine != "" {
				t += ": " + pn.engine
			}
			if pn.options != "" {
				// The panel's own name alone: with the figure's title
				// it is wider than the chart.
				t = strings.TrimPrefix(strings.TrimPrefix(t, title), ": ")
				if t != "" {
					t += ", "
				}
				t += pn.options
			}
			c, in := e.timeChart(t, pn.groups, unit, top)
			if in.lines == 0 {
				continue
			}
			charts = append(charts, c)
			info.merge(in)
		}
	}
	draw(0)
	if len(charts) < 2 || !e.vary.engine && panels[0].options == "" || info.target != nil {
		return charts, info, false
	}
	// Drawn again up to the highest panel's top, so that what spans the
	// panel (the end of the warmup) spans the shared axis.
	draw(info.top)
	return charts, info, true
}

// targetCaption says what the target lines are.
func targetCaption(tg *loadTarget, info timeInfo, tenants int) string {
	what := tg.what
	if info.patterns > 1 {
		what = "CloudyBench pattern of each panel"
	}
	line := "The black step line"
	if info.perSeries {
		line = "The dotted step line of each series' colour"
	}
	sum := " summed over the tenants"
	if tenants == 1 {
		sum = ""
	}
	var s string
	if tg.open {
		s = fmt.Sprintf("%s is, second by second, the load the %s asked for: arrivals per second%s, on the throughput axis, "+
			"so that throughput below it is load the system did not keep up with.", line, what, sum)
	} else {
		s = fmt.Sprintf("%s is, second by second, the load the %s asked for: clients of the closed load%s, read on the right "+
			"axis (scaled so that its peak meets the highest throughput).", line, what, sum)
	}
	s += fmt.Sprintf(" It is read from %s; runs/<id>/slots.csv has each tenant's target per slot beside what it measured.", tg.source)
	if tg.tau > 0 {
		of := "concurrency"
		if tg.open {
			of = "arrival rate"
		}
		s += fmt.Sprintf(" The red dotted line is tau = %s, the %s at which the system reaches its limit, "+
			"from which the pattern is built (Zhang et al. 2025, Fig. 3-4: load above it contends).", fmtTau(tg.tau), of)
	}
	return s
}

// timeUnit is the throughput axis of the figure over time: transactions
// per second, or per minute (factor 60).
type timeUnit struct {
	factor float64
	axis   string
}

// timeUnit is TPM when every successful run of points reports NOPM
// (results.csv nopm: a workload with New-Order, TPC-C's, whose TPM over
// time Matos and Pedreira 2025 draw, Fig. 2) and none follows a load
// target (whose arrivals per second share the throughput axis); else
// transactions per second.
func (e *experiment) timeUnit(points []*point) timeUnit {
	perSecond := timeUnit{1, "Throughput (tx/s)"}
	drawn := false
	for _, p := range points {
		for _, r := range p.okRuns() {
			if _, ok := r.row.Extra["nopm"]; !ok || e.targetOf(r) != nil {
				return perSecond
			}
			drawn = true
		}
	}
	if !drawn {
		return perSecond
	}
	return timeUnit{60, "TPM (tx/min)"}
}

// timeGroup is the successful runs of one point that ran one pattern: one
// line of the figure.
type timeGroup struct {
	p    *point
	runs []*run
}

// timePanel is the groups of one pattern ("" for none) on one engine
// ("" when the runs do not differ in it) with one set of workload options
// ("" when the runs do not differ in them: optionLabels): one panel.
type timePanel struct {
	pattern, engine, options string
	groups                   []timeGroup
}

// timePanels splits the points' successful runs by the CloudyBench pattern
// they ran: results.csv has no pattern column, so a point may hold runs of
// several patterns, which must not be averaged together.
func (e *experiment) timePanels(points []*point) []timePanel {
	var panels []timePanel
	at := map[string]int{}
	opts := e.optionLabels()
	for _, p := range points {
		byPattern := map[string][]*run{}
		var order []string
		for _, r := range p.okRuns() {
			pat := e.patternOf(r)
			if _, ok := byPattern[pat]; !ok {
				order = append(order, pat)
			}
			byPattern[pat] = append(byPattern[pat], r)
		}
		eng, opt := "", ""
		if e.vary.engine && len(p.runs) > 0 {
			eng = p.runs[0].row.Engine
		}
		if len(p.runs) > 0 {
			opt = opts[p.runs[0].row.RunID] // a point's runs share their options
		}
		for _, pat := range order {
			key := pat + "\x00" + eng + "\x00" + opt
			i, ok := at[key]
			if !ok {
				i = len(panels)
				at[key] = i
				panels = append(panels, timePanel{pattern: pat, engine: eng, options: opt})
			}
			panels[i].groups = append(panels[i].groups, timeGroup{p: p, runs: byPattern[pat]})
		}
	}
	// An engine's panels together, in the order the spec lists the
	// engines (Matos and Pedreira 2025 draw each engine's apart).
	if e.plan != nil && len(e.plan.Dimensions.Engines) > 1 {
		engines := e.plan.Dimensions.Engines
		sort.SliceStable(panels, func(i, j int) bool {
			return slices.Index(engines, panels[i].engine) < slices.Index(engines, panels[j].engine)
		})
	}
	// In the order the spec lists the patterns.
	if e.plan != nil && e.plan.Load.Pattern != nil {
		names := e.plan.Load.Pattern.Names
		sort.SliceStable(panels, func(i, j int) bool {
			return slices.Index(names, panels[i].pattern) < slices.Index(names, panels[j].pattern)
		})
	}
	return panels
}

// timeInfo is what a chart of the figure drew, for its caption.
type timeInfo struct {
	lines     int
	banded    bool
	target    *loadTarget // the first target drawn, nil for none
	perSeries bool        // targets drawn per series, as they differ
	patterns  int         // panels with a pattern
	top       float64     // the highest value the axis must reach
}

func (t *timeInfo) merge(o timeInfo) {
	t.lines += o.lines
	t.banded = t.banded || o.banded
	t.top = max(t.top, o.top)
	if t.target == nil {
		t.target = o.target
	}
	t.perSeries = t.perSeries || o.perSeries
	if o.target != nil && o.target.pattern != "" {
		t.patterns++
	}
}

// timeChart draws one panel: a line per group, and the groups' target.
// timeChart draws one panel; its throughput axis reaches at least top.
func (e *experiment) timeChart(title string, groups []timeGroup, unit timeUnit, top float64) (*chart, timeInfo) {
	c := newChart(title, "Seconds since the workload phase started", unit.axis)
	var info timeInfo
	floor := top
	top, warmup, end := 0.0, 0, 0
	type drawnTarget struct {
		t     *loadTarget
		color int
		label string
	}
	var targets []drawnTarget
	for _, g := range groups {
		i := e.seriesIndex(g.p.series)
		var reps [][]float64
		for _, r := range g.runs {
			if len(r.perSecond) > 0 {
				reps = append(reps, r.perSecond)
				warmup = max(warmup, r.warmup)
			}
		}
		if len(reps) == 0 {
			continue
		}
		// Repetitions of one point last as long, give or take the last
		// second; compare only the seconds every one of them has.
		secs := len(reps[0])
		for _, r := range reps {
			secs = min(secs, len(r))
		}
		end = max(end, secs)
		mean, upper, lower := make(plotter.XYs, secs), make(plotter.XYs, secs), make(plotter.XYs, secs)
		for s := range secs {
			vs := make([]float64, len(reps))
			for k, r := range reps {
				vs[k] = r[s] * unit.factor
			}
			st, err := metrics.Summarize(vs)
			if err != nil {
				continue
			}
			// Second s is drawn at its middle, so that it lines up with the
			// target's steps and the end of the warmup.
			x := float64(s) + 0.5
			mean[s] = plotter.XY{X: x, Y: st.Mean}
			sd := st.Std
			if math.IsNaN(sd) {
				sd = 0 // one repetition: no band
			}
			upper[s] = plotter.XY{X: x, Y: st.Mean + sd}
			lower[secs-1-s] = plotter.XY{X: x, Y: max(st.Mean-sd, 0)}
			top = max(top, st.Mean+sd)
		}
		if len(reps) > 1 {
			band, err := plotter.NewPolygon(append(upper, lower...))
			if err == nil {
				band.Color = lighter(colorOf(i), 60)
				band.LineStyle.Width = 0
				c.Add(band)
				info.banded = true
			}
		}
		line, err := plotter.NewLine(mean)
		if err != nil {
			continue
		}
		line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.5), dashesOf(i)
		c.Add(line)
		label := g.p.series
		if len(reps) > 1 {
			label += fmt.Sprintf(" (%d reps)", len(reps))
		}
		c.addLegend(label, line)
		info.lines++
		if t := e.targetOf(g.runs[0]); t != nil {
			targets = append(targets, drawnTarget{t, i, g.p.series})
		}
	}
	if info.lines == 0 {
		return c, info
	}
	// One target line when every series had the same (the usual case: the
	// schedule is the spec's), else one per series in its colour.
	same := true
	for _, t := range targets[min(1, len(targets)):] {
		same = same && t.t.equal(targets[0].t)
	}
	if len(targets) > 0 && same {
		targets = targets[:1]
		targets[0].color = -1
	}
	scale := 1.0
	if len(targets) > 0 {
		tg := targets[0].t
		info.target, info.perSeries = tg, len(targets) > 1
		peak := tg.tau
		for _, t := range targets {
			peak = max(peak, t.t.peak())
		}
		switch {
		case tg.open:
			// Arrivals per second read on the throughput axis itself.
			top = max(top, peak)
		case peak > 0 && top > 0:
			scale = top / peak
		case peak > 0:
			top = peak
		}
	}
	info.top = max(top, floor)
	fromZero(c.Plot, info.top)
	c.X.Min, c.X.Max = 0, max(c.X.Max, float64(end))
	for _, d := range targets {
		line, err := plotter.NewLine(d.t.xys(scale))
		if err != nil {
			continue
		}
		line.StepStyle = plotter.PostStep
		label := "target " + d.t.unit()
		if d.color < 0 {
			line.Color, line.Width = color.Black, vg.Points(1.2)
		} else {
			line.Color, line.Width, line.Dashes = colorOf(d.color), vg.Points(1.2), []vg.Length{vg.Points(2), vg.Points(2)}
			label += ", " + d.label
		}
		c.Add(line)
		c.addLegend(label, line)
	}
	if len(targets) > 0 {
		tg := targets[0].t
		if tg.tau > 0 {
			end := tg.end
			for _, g := range groups {
				for _, r := range g.runs {
					end = max(end, float64(len(r.perSecond)))
				}
			}
			tau, err := plotter.NewLine(plotter.XYs{{X: 0, Y: tg.tau * scale}, {X: end, Y: tg.tau * scale}})
			if err == nil {
				tau.Color, tau.Width = color.RGBA{R: 0xD0, G: 0x10, B: 0x10, A: 0xff}, vg.Points(1)
				tau.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
				c.Add(tau)
				c.addLegend("tau = "+fmtTau(tg.tau), tau)
			}
		}
		if !tg.open {
			c.withRightAxis(rightAxis{scale: scale, label: "Target clients"})
		}
	}
	if warmup > 0 {
		edge, err := plotter.NewLine(plotter.XYs{{X: float64(warmup), Y: 0}, {X: float64(warmup), Y: c.Y.Max}})
		if err == nil {
			edge.Color, edge.Dashes, edge.Width = color.Gray{Y: 90}, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
			c.Add(edge)
			c.addLegend("end of warmup", edge)
		}
	}
	return c, info
}
