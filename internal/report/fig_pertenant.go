package report

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// tenantValue is one tenant's figures in one run (tenants.csv, txn all).
type tenantValue struct {
	tps, meanMs, p99Ms float64
}

// largestPoints are the points at the largest tenant count with a
// successful run, one per series: the tenant perspective is most telling
// where tenants compete most.
func (e *experiment) largestPoints() []*point {
	n := maxTenants(e.points)
	var out []*point
	for _, p := range e.points {
		if p.tenants == n && len(p.okRuns()) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// seriesIndex is a series' position, which fixes its colour.
func (e *experiment) seriesIndex(series string) int {
	for i, s := range seriesNames(e.points) {
		if s == series {
			return i
		}
	}
	return 0
}

// perTenant draws the tenant perspective (Erdelt and Rabl 2026, Fig. 8)
// at every tenant count, one panel per count (small multiples): up to
// barTenants tenants a bar per tenant and series, the mean over the
// successful repetitions with whiskers from min to max when there are
// several; above it each series' CDF over its tenants.
func (e *experiment) perTenant(id, title, yLabel string, get func(tenantValue) float64, col string) *figure {
	counts := e.tenantCounts()
	if len(counts) == 0 {
		return missing(id, title, "no successful run.")
	}
	values := func(p *point) map[string][]float64 {
		out := map[string][]float64{}
		for _, r := range p.okRuns() {
			for _, t := range r.tenants {
				out[t.Tenant] = append(out[t.Tenant], get(tenantValue{tps: t.TPS, meanMs: t.MeanMs, p99Ms: t.P99Ms}))
			}
		}
		return out
	}
	var charts []*chart
	cdf := false
	for _, n := range counts {
		var points []*point
		for _, p := range e.points {
			if p.tenants == n && len(p.okRuns()) > 0 {
				points = append(points, p)
			}
		}
		panel := fmt.Sprintf("%s, %s", title, tenantsLabel(n))
		var c *chart
		if n <= barTenants {
			c, _ = e.barsChart(panel, "Tenant", yLabel, points, values)
		} else {
			c, cdf = e.cdfChart(panel, yLabel, points, values), true
		}
		if c != nil {
			charts = append(charts, c)
		}
	}
	if len(charts) == 0 {
		return missing(id, title, "no successful run has per-tenant values.")
	}
	caption := fmt.Sprintf("Each tenant's %s (runs/<id>/tenants.csv, rows txn=all, column %s), one panel per tenant count: "+
		"up to %d tenants a bar per tenant and series, the mean over the successful repetitions, whiskers from the "+
		"minimum to the maximum where there are several", col, col, barTenants)
	if cdf {
		caption += fmt.Sprintf("; above %d tenants, too many for a bar each, drawn as their distribution: the share of "+
			"tenants (y) whose mean is at most x, a line per series", barTenants)
	}
	return drawnPanels(id, title+" at every tenant count", caption+".", charts)
}

// tenantCounts are the tenant counts with a successful run, ascending.
func (e *experiment) tenantCounts() []int {
	seen := map[int]bool{}
	var out []int
	for _, p := range e.points {
		if len(p.okRuns()) > 0 && !seen[p.tenants] {
			seen[p.tenants] = true
			out = append(out, p.tenants)
		}
	}
	sort.Ints(out)
	return out
}

// cdfChart draws, per point (series), the empirical CDF of its tenants'
// means over the repetitions.
func (e *experiment) cdfChart(title, xLabel string, points []*point, values func(*point) map[string][]float64) *chart {
	c := newChart(title, xLabel, "Share of tenants")
	lines := 0
	for _, p := range points {
		var means []float64
		for _, vs := range values(p) {
			if st, err := metrics.Summarize(vs); err == nil {
				means = append(means, st.Mean)
			}
		}
		if len(means) == 0 {
			continue
		}
		sort.Float64s(means)
		xys := make(plotter.XYs, len(means))
		for j, v := range means {
			xys[j] = plotter.XY{X: v, Y: float64(j+1) / float64(len(means))}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		line.StepStyle = plotter.PostStep
		k := e.seriesIndex(p.series)
		line.Color, line.Width, line.Dashes = colorOf(k), vg.Points(1.5), dashesOf(k)
		c.Add(line)
		c.addLegend(p.series, line)
		lines++
	}
	if lines == 0 {
		return nil
	}
	c.Y.Min, c.Y.Max = 0, 1
	return c
}

// barTenants is the most tenants drawn as a bar each; beyond, the
// figure is their distribution (tenantCDF): a thousand bars read as none.
const barTenants = 40

// tenantCDF draws the empirical distribution of a per-tenant value
// (cdfChart) as a figure.
func (e *experiment) tenantCDF(id, title, xLabel string, points []*point, values func(*point) map[string][]float64, caption string) *figure {
	c := e.cdfChart(title, xLabel, points, values)
	if c == nil {
		return missing(id, title, "no successful run has per-tenant values.")
	}
	return drawn(id, caption+".", c)
}

// tenantBars draws bars per tenant (categories) and point (series),
// from values per tenant name over repetitions.
// Beyond barTenants tenants it draws their distribution instead
// (tenantCDF).
func (e *experiment) tenantBars(id, title, yLabel string, points []*point, values func(*point) map[string][]float64, caption string) *figure {
	if len(points) > 0 && points[0].tenants > barTenants {
		return e.tenantCDF(id, title, yLabel, points, values, caption+
			"; too many tenants for a bar each, so drawn as their distribution: the share of tenants at or below each value, "+
			"a line per series, each tenant's value the mean over the successful repetitions")
	}
	return e.categoryBars(id, title, "Tenant", yLabel, points, values, caption)
}

// categoryBars draws bars per category (sorted by name) and point
// (series), from values per category over repetitions.
func (e *experiment) categoryBars(id, title, xLabel, yLabel string, points []*point, values func(*point) map[string][]float64, caption string) *figure {
	c, spread := e.barsChart(title, xLabel, yLabel, points, values)
	if c == nil {
		return missing(id, title, "no successful run has per-tenant values.")
	}
	if spread {
		caption += "; whiskers span the minimum and maximum across repetitions"
	}
	return drawn(id, caption+".", c)
}

// barsChart is the chart of categoryBars; nil when no point has values.
// spread says some bar has whiskers.
func (e *experiment) barsChart(title, xLabel, yLabel string, points []*point, values func(*point) map[string][]float64) (c *chart, spread bool) {
	type series struct {
		p    *point
		vals map[string][]float64
	}
	var all []series
	names := map[string]bool{}
	for _, p := range points {
		v := values(p)
		if len(v) == 0 {
			continue
		}
		all = append(all, series{p, v})
		for t := range v {
			names[t] = true
		}
	}
	if len(all) == 0 {
		return nil, false
	}
	tenants := make([]string, 0, len(names))
	for t := range names {
		tenants = append(tenants, t)
	}
	sort.Strings(tenants)
	c = newChart(title, xLabel, yLabel)
	top := 0.0
	for i, s := range all {
		off, w := groupOffset(i, len(all))
		b := &bars{width: w, color: colorOf(e.seriesIndex(s.p.series))}
		var xs, means, mins, maxs []float64
		for j, t := range tenants {
			vs := s.vals[t]
			if len(vs) == 0 {
				continue
			}
			st, err := metrics.Summarize(vs)
			if err != nil {
				continue
			}
			b.add(float64(j)+off, 0, st.Mean)
			xs, means, mins, maxs = append(xs, float64(j)+off), append(means, st.Mean), append(mins, st.Min), append(maxs, st.Max)
			top = max(top, st.Max)
			spread = spread || st.N > 1
		}
		c.Add(b)
		if spread {
			if eb, err := minMaxBars(xs, means, mins, maxs); err == nil {
				c.Add(eb)
			}
		}
		c.addLegend(s.p.series, b)
	}
	c.nominalX(tenants)
	fromZero(c.Plot, top)
	return c, spread
}
