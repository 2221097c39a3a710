package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
)

// The load a run's schedule or pattern asked for (slots.csv), drawn
// over its throughput in the throughput-time figure, as Zhang et al. (2025)
// draw their patterns (Fig. 3-4): the target summed over the run's tenants, a
// step per change.

// slotsFile is the per-slot file of a run with a schedule or pattern
// (docs/results.md); the report reads its start_s, end_s and target
// columns when spec.yaml cannot give the schedule.
const slotsFile = "slots.csv"

// loadTarget is a run's target over the workload phase, summed over its
// tenants.
type loadTarget struct {
	starts []float64 // seconds since the phase started, ascending
	values []float64 // the target from starts[i] to starts[i+1] (or end)
	end    float64   // the phase's end
	open   bool      // arrivals per second; else clients of a closed load
	// pattern is the CloudyBench pattern's name and tau its tau; "" and 0
	// for a schedule.
	pattern string
	tau     float64
	what    string // the schedule in words: "pattern single-peak", "schedule of 3 slots"
	source  string // where it was read: targets.csv or slots.csv
}

func (t *loadTarget) peak() float64 {
	m := 0.0
	for _, v := range t.values {
		m = max(m, v)
	}
	return m
}

func (t *loadTarget) unit() string {
	if t.open {
		return "arrivals/s"
	}
	return "clients"
}

// equal says whether two targets are the same steps.
func (t *loadTarget) equal(o *loadTarget) bool {
	if t.open != o.open || t.end != o.end || len(t.starts) != len(o.starts) {
		return false
	}
	for i := range t.starts {
		if t.starts[i] != o.starts[i] || math.Abs(t.values[i]-o.values[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// xys is the step line of the target with every value times scale.
func (t *loadTarget) xys(scale float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(t.starts)+1)
	for i, s := range t.starts {
		out = append(out, plotter.XY{X: s, Y: t.values[i] * scale})
	}
	if n := len(t.values); n > 0 {
		out = append(out, plotter.XY{X: t.end, Y: t.values[n-1] * scale})
	}
	return out
}

// add appends a step, merging it into the previous one when the value is
// the same.
func (t *loadTarget) add(start, v float64) {
	if n := len(t.values); n > 0 && math.Abs(t.values[n-1]-v) < 1e-9 {
		return
	}
	t.starts, t.values = append(t.starts, start), append(t.values, v)
}

// planRun is the run of the plan with id, nil when plan.json could not
// be read or has no such run.
func (e *experiment) planRun(id string) *plan.Run {
	if e.plan == nil {
		return nil
	}
	return e.plan.Run(id)
}

// patternOf is the pattern run r ran, "" for none or unknown.
func (e *experiment) patternOf(r *run) string {
	if pr := e.planRun(r.row.RunID); pr != nil {
		return pr.Pattern
	}
	return ""
}

// targetOf is the target of run r: from the run's targets.csv (the
// plan's target of every second, ramps and sinusoids included) when the
// run wrote one, else from its slots.csv (the mean target of each slot);
// nil when the run had neither schedule nor pattern.
func (e *experiment) targetOf(r *run) *loadTarget {
	if t := e.targetFromFile(r); t != nil {
		return t
	}
	return e.targetFromSlots(r)
}

func (e *experiment) targetFromFile(r *run) *loadTarget {
	id := r.row.RunID
	pr := e.planRun(id)
	if pr == nil || !e.dir.HasRunFile(id, results.TargetsFile) {
		return nil
	}
	vals, err := e.dir.ReadTargets(id)
	if err != nil {
		e.warn("run %s: %v", id, err)
		return nil
	}
	l := e.plan.Load
	t := &loadTarget{end: pr.WarmupS + pr.DurationS, open: l.Rates,
		source: "runs/<id>/" + results.TargetsFile, what: l.Schedule}
	if p := e.plan.PatternOf(pr); p != nil {
		t.pattern, t.tau = pr.Pattern, p.Tau
		t.what = fmt.Sprintf("CloudyBench pattern %s (tau %s, slots of %s)", pr.Pattern, fmtTau(p.Tau),
			time.Duration(p.SlotS*float64(time.Second)))
	}
	for s, v := range vals {
		t.add(float64(s), v)
	}
	if len(t.values) == 0 {
		return nil
	}
	return t
}

func (e *experiment) targetFromSlots(r *run) *loadTarget {
	id := r.row.RunID
	if !e.dir.HasRunFile(id, slotsFile) {
		return nil
	}
	tab, err := results.ReadTable(e.dir.RunFile(id, slotsFile))
	if err != nil {
		e.warn("run %s: %v", id, err)
		return nil
	}
	type span struct{ start, end, sum float64 }
	bySlot := map[int64]*span{}
	var order []int64
	open := false
	for i := range tab.Rows {
		slot, err1 := tab.Int(i, "slot")
		start, err2 := tab.Float(i, "start_s")
		end, err3 := tab.Float(i, "end_s")
		v, err4 := tab.Float(i, "target")
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || !tab.Has("target") {
			e.warn("run %s: %s has no readable slot, start_s, end_s and target", id, slotsFile)
			return nil
		}
		open = open || tab.Get(i, "arrivals") != ""
		s := bySlot[slot]
		if s == nil {
			s = &span{start: start, end: end}
			bySlot[slot] = s
			order = append(order, slot)
		}
		s.sum += v
	}
	if len(order) == 0 {
		return nil
	}
	// Slots are in tenant then slot order; every tenant has the same.
	t := &loadTarget{open: open, source: "runs/<id>/" + slotsFile + " (the mean of each slot)", what: "schedule"}
	if pr := e.planRun(id); pr != nil {
		if p := e.plan.PatternOf(pr); p != nil {
			t.pattern, t.tau = pr.Pattern, p.Tau
			t.what = "CloudyBench pattern " + t.pattern
		}
	}
	for _, k := range order {
		s := bySlot[k]
		t.add(s.start, s.sum)
		t.end = max(t.end, s.end)
	}
	return t
}

// rightAxis draws a second Y axis right of the data: the target's, where
// the target is drawn scaled (value x scale) on the throughput axis.
type rightAxis struct {
	scale float64
	label string
}

const rightAxisGap = 3 // points between the ticks and their labels, and the labels and the title

// width is how much room the axis takes right of the data.
func (a rightAxis) width(p *plot.Plot) vg.Length {
	w := vg.Length(0)
	for _, t := range (niceTicks{}).Ticks(0, p.Y.Max/a.scale) {
		w = max(w, p.Y.Tick.Label.Width(t.Label))
	}
	return p.Y.Tick.Length + vg.Points(rightAxisGap)*2 + w + p.Y.Label.TextStyle.Height(a.label) + vg.Points(4)
}

// Plot implements plot.Plotter: c is the data area.
func (a rightAxis) Plot(c draw.Canvas, p *plot.Plot) {
	x0 := c.Max.X
	c.StrokeLine2(p.Y.LineStyle, x0, c.Min.Y, x0, c.Max.Y)
	tick := p.Y.Tick.Label
	tick.XAlign, tick.YAlign = draw.XLeft, draw.YCenter
	descent := tick.FontExtents().Descent
	labels := vg.Length(0)
	for _, t := range (niceTicks{}).Ticks(0, p.Y.Max/a.scale) {
		y := c.Y(p.Y.Norm(t.Value * a.scale))
		if !c.ContainsY(y) {
			continue
		}
		l := p.Y.Tick.Length
		if t.IsMinor() {
			c.StrokeLine2(p.Y.Tick.LineStyle, x0, y, x0+l/2, y)
			continue
		}
		c.StrokeLine2(p.Y.Tick.LineStyle, x0, y, x0+l, y)
		c.FillText(tick, vg.Point{X: x0 + l + vg.Points(rightAxisGap), Y: y + descent}, t.Label)
		labels = max(labels, tick.Width(t.Label))
	}
	sty := p.Y.Label.TextStyle
	sty.Rotation += math.Pi / 2
	x := x0 + p.Y.Tick.Length + vg.Points(2*rightAxisGap) + labels + sty.Height(a.label)
	c.FillText(sty, vg.Point{X: x - sty.FontExtents().Descent, Y: c.Center().Y}, a.label)
}

// withRightAxis adds the axis to c and makes room for it between the data
// and the legend.
func (c *chart) withRightAxis(a rightAxis) {
	c.Add(a)
	w := a.width(c.Plot)
	c.legend.XOffs += w
	c.legendWidth += w
}

// panelHeight is the height of one panel of a figure of several.
const panelHeight = figHeight * 7 / 10

// drawnPanels makes one figure of several charts stacked, one panel each
// (the throughput-time figure of a plan with several patterns); a single
// chart is drawn as any other.
func drawnPanels(id, title, caption string, charts []*chart) *figure {
	if len(charts) == 1 {
		return drawn(id, caption, charts[0])
	}
	f := &figure{ID: id, Title: title, Caption: caption}
	img, err := renderPanels(charts)
	if err != nil {
		f.Note = fmt.Sprintf("could not be drawn: %v", err)
		return f
	}
	f.Img = img
	return f
}

// renderPanels is render for charts stacked top to bottom.
func renderPanels(charts []*chart) (rendered, error) {
	h := panelHeight * vg.Length(len(charts))
	tiles := draw.Tiles{Rows: len(charts), Cols: 1, PadY: vg.Points(6)}
	return renderSized(charts[0].Title.Text, figWidth, h, func(dc draw.Canvas) {
		for i, c := range charts {
			c.draw(tiles.At(dc, 0, i))
		}
	})
}

func fmtTau(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
