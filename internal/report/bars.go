package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars draws rectangles placed in data units. gonum's BarChart sizes its
// bars in points, which cannot be lined up with error bars (placed in data
// units) and overlap once there are many categories; these scale with the
// axis instead. Bar i spans x[i] +- width/2 and lo[i] .. hi[i], so the same
// type draws grouped bars (x shifted per series) and stacked bars (lo is
// the top of the bar below).
type bars struct {
	x, lo, hi []float64
	width     float64
	color     color.Color
}

func (b *bars) add(x, lo, hi float64) {
	b.x = append(b.x, x)
	b.lo = append(b.lo, lo)
	b.hi = append(b.hi, hi)
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	outline := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.4)}
	for i := range b.x {
		x0, x1 := trX(b.x[i]-b.width/2), trX(b.x[i]+b.width/2)
		y0, y1 := trY(b.lo[i]), trY(b.hi[i])
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		c.StrokeLines(outline, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for i := range b.x {
		xmin = min(xmin, b.x[i]-b.width/2)
		xmax = max(xmax, b.x[i]+b.width/2)
		ymin = min(ymin, b.lo[i], b.hi[i])
		ymax = max(ymax, b.lo[i], b.hi[i])
	}
	return
}

// Thumbnail implements plot.Thumbnailer: the legend's swatch.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.color, c.ClipPolygonY(pts))
}

// groupOffset is where series i of k sits within a category of width
// 0.8: the groups leave a gap between categories.
func groupOffset(i, k int) (offset, width float64) {
	width = 0.8 / float64(k)
	return (float64(i) - float64(k-1)/2) * width, width
}

// errorBars draws min..max whiskers at the given points.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func minMaxBars(xs, means, mins, maxs []float64) (*plotter.YErrorBars, error) {
	ep := errPoints{}
	for i := range xs {
		ep.XYs = append(ep.XYs, plotter.XY{X: xs[i], Y: means[i]})
		ep.YErrors = append(ep.YErrors, struct{ Low, High float64 }{means[i] - mins[i], maxs[i] - means[i]})
	}
	eb, err := plotter.NewYErrorBars(ep)
	if err != nil {
		return nil, err
	}
	eb.LineStyle.Width = vg.Points(1)
	eb.CapWidth = vg.Points(4)
	return eb, nil
}
