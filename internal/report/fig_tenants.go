package report

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// byTenants draws a metric against the number of tenants, one line per
// series (model and any other varying dimension), as Erdelt and Rabl 2026,
// Fig. 5-7: the mean of the successful repetitions, with whiskers from the
// minimum to the maximum when a point has several.
func (e *experiment) byTenants(id string, m metric, title, source string) *figure {
	c := newChart(title, "Tenants", m.label())
	var ticks tenantTicks
	seen := map[int]bool{}
	top, lines, spread := 0.0, 0, false
	lo := math.Inf(1)
	for i, s := range seriesNames(e.points) {
		var xs, means, mins, maxs []float64
		for _, p := range e.seriesPoints(s) {
			st, ok := statOf(p, m)
			if !ok {
				continue
			}
			xs = append(xs, float64(p.tenants))
			means = append(means, st.Mean)
			mins = append(mins, st.Min)
			maxs = append(maxs, st.Max)
			top, lo = max(top, st.Max), min(lo, st.Min)
			spread = spread || st.N > 1
			if !seen[p.tenants] {
				seen[p.tenants] = true
				ticks = append(ticks, p.tenants)
			}
		}
		if len(xs) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(xs))
		for j := range xs {
			xys[j] = plotter.XY{X: xs[j], Y: means[j]}
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.5), dashesOf(i)
		pts.Color, pts.Shape, pts.Radius = colorOf(i), glyphOf(i), vg.Points(3)
		c.Add(line, pts)
		if spread {
			if eb, err := minMaxBars(xs, means, mins, maxs); err == nil {
				eb.Color = colorOf(i)
				c.Add(eb)
			}
		}
		c.addLegend(s, line, pts)
		lines++
	}
	if lines == 0 {
		return missing(id, title, "no successful run has a value of "+m.key+".")
	}
	if len(ticks) == 1 && len(seriesNames(e.points)) > 1 {
		// Every line a single point above one x: a column of markers
		// under a legend of every series, which says nothing the
		// tables do not.
		note := fmt.Sprintf("every point has %s: nothing to draw against tenants; the results tables compare the points", tenantsLabel(ticks[0]))
		if e.vary.cases {
			note += ", and the Cases figure their throughput"
		}
		return missing(id, title, note+".")
	}
	sort.Ints(ticks)
	c.X.Tick.Marker = ticks
	c.X.Min, c.X.Max = float64(ticks[0])-0.5, float64(ticks[len(ticks)-1])+0.5
	if m.key == mFairness.key {
		top, lo = 1, 0 // Jain's index is at most 1: keep the scale fixed
	}
	yAxis(c.Plot, lo, top)
	caption := source + " Each point is the mean over the successful repetitions of a matrix point"
	if spread {
		caption += "; whiskers span the minimum and maximum across repetitions"
	}
	return drawn(id, caption+".", c)
}

// seriesPoints are a series' points with a successful run, by tenants.
func (e *experiment) seriesPoints(series string) []*point {
	var out []*point
	for _, p := range e.points {
		if p.series == series && len(p.okRuns()) > 0 {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].tenants < out[j].tenants })
	return out
}
