package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure size and PNG resolution: 7 x 4.2 inches reads on a screen and
// fits a paper column pair; 150 dpi keeps the PNG's text sharp.
const (
	figWidth  = 7 * vg.Inch
	figHeight = 4.2 * vg.Inch
	pngDPI    = 150
)

// sans is the figures' font. Liberation Sans is metric-compatible with
// Arial and Helvetica, so text laid out here fits where a browser
// substitutes one of those (see svgFonts).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette is Okabe and Ito's colour-blind-safe palette without its yellow,
// which does not read on white. A series keeps its colour in every figure.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
}

func colorOf(i int) color.RGBA { return palette[i%len(palette)] }

// dashesOf tells apart series that share a colour once the palette runs out.
func dashesOf(i int) []vg.Length {
	switch (i / len(palette)) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}

func glyphOf(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
		draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	return shapes[i%len(shapes)]
}

func lighter(c color.RGBA, alpha uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: alpha}
}

// chart is a plot with its legend drawn beside it, right of the data, so
// that the legend never hides a line whatever the data.
type chart struct {
	*plot.Plot
	grid   *plotter.Grid
	legend plot.Legend
	// legendWidth is the widest entry, measured as entries are added.
	legendWidth vg.Length
}

func newChart(title, xLabel, yLabel string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = niceTicks{} // categories and tenant counts replace it
	p.Y.Tick.Marker = niceTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal.Width = vg.Points(0.5)
	p.Add(grid)
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 9)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	return &chart{Plot: p, grid: grid, legend: l}
}

func (c *chart) addLegend(label string, thumbs ...plot.Thumbnailer) {
	c.legend.Add(label, thumbs...)
	c.legendWidth = max(c.legendWidth, c.legend.TextStyle.Width(label))
}

// draw draws the plot and, on a strip right of it, the legend.
func (c *chart) draw(dc draw.Canvas) {
	if c.legendWidth == 0 {
		c.Plot.Draw(dc)
		return
	}
	strip := c.legend.ThumbnailWidth + c.legendWidth + vg.Points(14)
	strip = min(strip, (dc.Max.X-dc.Min.X)*0.4)
	c.Plot.Draw(draw.Crop(dc, 0, -strip, 0, 0))
	// Start the legend level with the data, below the title.
	top := -(c.Title.TextStyle.Height(c.Title.Text) + c.Title.Padding + vg.Points(4))
	c.legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-strip+vg.Points(8), 0, 0, top))
}

// rendered is a figure drawn in every format: SVG for the page, PNG for
// a quick look, PDF for a paper.
type rendered struct {
	svg, png, pdf []byte
}

// render draws c as SVG, PNG and PDF.
func render(c *chart) (rendered, error) {
	return renderSized(c.Title.Text, figWidth, figHeight, c.draw)
}

// renderSized draws with drawAll on a w x h canvas in every format.
// gonum/plot panics on some degenerate input (such as an axis of NaN); a
// figure that cannot be drawn must not cost the report, so a panic
// becomes the figure's error.
func renderSized(title string, w, h vg.Length, drawAll func(draw.Canvas)) (out rendered, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %q: %v", title, r)
		}
	}()
	sc := vgsvg.New(w, h)
	drawAll(draw.New(sc))
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return out, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
	drawAll(draw.New(ic))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return out, err
	}
	pc := vgpdf.New(w, h)
	pc.EmbedFonts(true) // a PDF that prints the same anywhere
	drawAll(draw.New(pc))
	var db bytes.Buffer
	if _, err := pc.WriteTo(&db); err != nil {
		return out, err
	}
	return rendered{svg: svgFonts(sb.Bytes()), png: pb.Bytes(), pdf: db.Bytes()}, nil
}

// svgFonts adds fallbacks to the font families gonum writes: it names
// only "Liberation Sans", and a browser without it would substitute its
// default font, often a serif.
func svgFonts(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"))
}

// tenantTicks puts a tick at each tenant count and nowhere else: a count
// of 2.5 tenants means nothing.
type tenantTicks []int

func (t tenantTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, n := range t {
		if float64(n) >= lo && float64(n) <= hi {
			out = append(out, plot.Tick{Value: float64(n), Label: fmt.Sprint(n)})
		}
	}
	return out
}

// fromZero starts the Y axis at zero, where a reader expects the origin
// of throughput and latency, with 5 % room above the largest value.
func fromZero(p *plot.Plot, top float64) {
	p.Y.Min = 0
	if top <= 0 || math.IsNaN(top) || math.IsInf(top, 0) {
		top = 1
	}
	p.Y.Max = top * 1.05
}

// logSpan is the ratio of largest to smallest value above which a
// value axis is drawn on a log scale: beyond two orders of magnitude a
// linear axis flattens the small values into the floor.
const logSpan = 100

// yAxis is fromZero, unless the values, lo the smallest and top the
// largest, are all positive and span more than logSpan: then a log scale,
// said in the axis label.
func yAxis(p *plot.Plot, lo, top float64) {
	if lo > 0 && top/lo > logSpan && !math.IsInf(top, 0) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo/1.2, top*1.2
		p.Y.Label.Text += ", log scale"
		return
	}
	fromZero(p, top)
}

// nominalX labels categories 0..n-1 with names. A few categories get
// their labels wrapped at ", "; many get them slanted, on one line each,
// so that neighbouring labels do not overlap. Vertical grid lines would
// cut through bars and boxes, so categories go without.
func (c *chart) nominalX(names []string) {
	labels := make([]string, len(names))
	for i, n := range names {
		labels[i] = n
		if len(names) <= 6 {
			labels[i] = strings.ReplaceAll(n, ", ", "\n")
		}
	}
	c.NominalX(labels...)
	c.X.Min, c.X.Max = -0.6, float64(len(names))-0.4
	if len(names) > 6 {
		c.X.Tick.Label.Rotation = math.Pi / 6
		c.X.Tick.Label.XAlign = draw.XRight
		c.X.Tick.Label.YAlign = draw.YTop
	}
	c.grid.Vertical.Color = nil
}

// barWidth is the width of one of k bars side by side in each of n
// categories, so that the groups fill about 80 % of the plot's width.
func barWidth(n, k int) vg.Length {
	area := figWidth * 0.62
	return max(area*0.8/vg.Length(max(n*k, 1)), vg.Points(1))
}

// niceTicks labels an axis at about six round values (steps of 1, 2 or 5
// times a power of ten), with as many decimals as the step needs. gonum's
// default ticker may label only the two ends of a short axis.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return []plot.Tick{{Value: lo, Label: fmtNum(lo)}}
	}
	raw := span / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := int(max(-math.Floor(math.Log10(step)+1e-9), 0))
	var out []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		v := k * step
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		if half := v + step/2; half <= hi {
			out = append(out, plot.Tick{Value: half}) // a minor tick
		}
	}
	return out
}
