package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// overTime draws the throughput of each second, summed over tenants, at
// the largest tenant count: one line per series with the mean over the
// successful repetitions and a band of +-1 standard deviation across them
// (seed 001 Fig. 2).
func (e *experiment) overTime() *figure {
	const id, title = "throughput-time", "Throughput over time"
	points := e.largestPoints()
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	n := points[0].tenants
	c := newChart(fmt.Sprintf("%s, %s", title, tenantsLabel(n)), "Seconds since the workload phase started", "Throughput (tx/s)")
	top, lines, banded, warmup := 0.0, 0, false, 0
	for _, p := range points {
		i := e.seriesIndex(p.series)
		var reps [][]float64
		for _, r := range p.okRuns() {
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
		mean, upper, lower := make(plotter.XYs, secs), make(plotter.XYs, secs), make(plotter.XYs, secs)
		for s := range secs {
			vs := make([]float64, len(reps))
			for k, r := range reps {
				vs[k] = r[s]
			}
			st, err := metrics.Summarize(vs)
			if err != nil {
				continue
			}
			mean[s] = plotter.XY{X: float64(s), Y: st.Mean}
			sd := st.Std
			if math.IsNaN(sd) {
				sd = 0 // one repetition: no band
			}
			upper[s] = plotter.XY{X: float64(s), Y: st.Mean + sd}
			lower[secs-1-s] = plotter.XY{X: float64(s), Y: max(st.Mean-sd, 0)}
			top = max(top, st.Mean+sd)
		}
		if len(reps) > 1 {
			band, err := plotter.NewPolygon(append(upper, lower...))
			if err == nil {
				band.Color = lighter(colorOf(i), 60)
				band.LineStyle.Width = 0
				c.Add(band)
				banded = true
			}
		}
		line, err := plotter.NewLine(mean)
		if err != nil {
			continue
		}
		line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.5), dashesOf(i)
		c.Add(line)
		label := p.series
		if len(reps) > 1 {
			label += fmt.Sprintf(" (%d reps)", len(reps))
		}
		c.addLegend(label, line)
		lines++
	}
	if lines == 0 {
		return missing(id, title, "no run has per-second figures (runs/<id>/timeseries.csv).")
	}
	fromZero(c.Plot, top)
	c.X.Min = 0
	if warmup > 0 {
		edge, err := plotter.NewLine(plotter.XYs{{X: float64(warmup), Y: 0}, {X: float64(warmup), Y: c.Y.Max}})
		if err == nil {
			edge.Color, edge.Dashes, edge.Width = color.Gray{Y: 90}, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
			c.Add(edge)
			c.addLegend("end of warmup", edge)
		}
	}
	caption := fmt.Sprintf("Committed transactions in each second, summed over the tenants of a run with %s "+
		"(runs/<id>/timeseries.csv, rows txn=all, column committed); seconds before the dashed line are warmup, "+
		"excluded from every other figure. The line is the mean over the successful repetitions", tenantsLabel(n))
	if banded {
		caption += "; the band spans +-1 sample standard deviation across them"
	}
	return drawn(id, caption+".", c)
}
