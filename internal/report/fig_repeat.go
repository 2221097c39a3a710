package report

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// needRepeat is the note of a figure about spread when no point has two
// successful repetitions.
const needRepeat = "needs repeat: 2 or more in the spec (no matrix point has two successful repetitions)."

// repeatedPoints are the points with at least two successful repetitions.
func (e *experiment) repeatedPoints() []*point {
	var out []*point
	for _, p := range e.points {
		if len(p.okRuns()) > 1 {
			out = append(out, p)
		}
	}
	return out
}

// pointLabels are the points' labels on a category axis, without the
// parts every one of them has (the model and "1 tenant" of a matrix of
// cases on one model at one tenant count): the figure's other labels say
// those, and 32 slanted labels that repeat them crowd the axis.
func pointLabels(points []*point) []string {
	out := make([]string, len(points))
	in := map[string]int{} // part -> labels that have it
	for _, p := range points {
		seen := map[string]bool{}
		for _, part := range strings.Split(p.label, ", ") {
			if !seen[part] {
				seen[part] = true
				in[part]++
			}
		}
	}
	for i, p := range points {
		var kept []string
		for _, part := range strings.Split(p.label, ", ") {
			if in[part] < len(points) {
				kept = append(kept, part)
			}
		}
		out[i] = p.label
		if len(points) > 1 && len(kept) > 0 {
			out[i] = strings.Join(kept, ", ")
		}
	}
	return out
}

// boxes draws a box plot of a metric's values across the repetitions of
// each matrix point (Matos and Pedreira 2025, Fig. 17): the box spans the
// quartiles, the line inside is the median, the whiskers reach the extreme
// values within 1.5 times the box.
func (e *experiment) boxes(id string, m metric, title string) *figure {
	points := e.repeatedPoints()
	if len(points) == 0 {
		return missing(id, title, needRepeat)
	}
	c := newChart(title, "", m.label())
	top := 0.0
	w := barWidth(len(points), 2)
	for i, p := range points {
		vs := values(p.runs, m)
		if len(vs) == 0 {
			continue
		}
		box, err := plotter.NewBoxPlot(w, float64(i), plotter.Values(vs))
		if err != nil {
			continue
		}
		box.FillColor = lighter(colorOf(e.seriesIndex(p.series)), 110)
		box.MedianStyle.Width = vg.Points(2)
		c.Add(box)
		for _, v := range vs {
			top = max(top, v)
		}
	}
	c.nominalX(pointLabels(points))
	fromZero(c.Plot, top)
	return drawn(id, "Values of "+m.key+" (results.csv) across the successful repetitions of each matrix point: "+
		"the box spans the quartiles, the thick line is the median, whiskers reach the furthest value within 1.5 "+
		"box lengths. With two repetitions the box spans them both.", c)
}

// cvBars draws the coefficient of variation across repetitions of
// throughput and mean latency per matrix point (Matos and Pedreira 2025,
// Fig. 18, "stability"): lower is steadier.
func (e *experiment) cvBars() *figure {
	const id, title = "cv", "Stability: coefficient of variation across repetitions"
	points := e.repeatedPoints()
	if len(points) == 0 {
		return missing(id, title, needRepeat)
	}
	c := newChart(title, "", "CV = std / mean (%)")
	ms := []metric{mThroughput, mMeanLat}
	colors := []color.RGBA{{0x33, 0x33, 0x33, 0xff}, {0x99, 0x99, 0x99, 0xff}}
	top := 0.0
	for k, m := range ms {
		off, w := groupOffset(k, len(ms))
		b := &bars{width: w, color: colors[k]}
		for i, p := range points {
			st, ok := statOf(p, m)
			if !ok || math.IsNaN(st.CV) {
				continue
			}
			b.add(float64(i)+off, 0, st.CV*100)
			top = max(top, st.CV*100)
		}
		c.Add(b)
		c.addLegend(m.title, b)
	}
	c.nominalX(pointLabels(points))
	fromZero(c.Plot, top)
	return drawn(id, "Sample standard deviation over mean, in percent, of throughput_tps and latency_mean_ms "+
		"(results.csv) across the successful repetitions of each matrix point.", c)
}
