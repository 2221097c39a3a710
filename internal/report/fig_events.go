package report

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// maxEventPanels bounds the runs drawn with their interference: one panel
// each.
const maxEventPanels = 4

// interference draws, for each run with interference (the first few), the
// throughput of each of its tenants second by second with the run's events
// on it: a fault as a red line at its injection and a dotted one where its
// tenants committed again (Zhang et al. 2025, Fig. 7 shows the phases of a
// fail-over), a noise as a grey band over the time it ran. nil when no run
// had interference.
func (e *experiment) interference() *figure {
	const id, title = "interference", "Throughput per tenant with interference"
	var charts []*chart
	shown, with := 0, 0
	for _, r := range e.runs {
		if r.summary == nil || len(r.summary.Events) == 0 {
			continue
		}
		with++
		if shown == maxEventPanels || len(r.byTenant) == 0 {
			continue
		}
		charts = append(charts, e.eventChart(r))
		shown++
	}
	if with == 0 {
		return nil
	}
	if len(charts) == 0 {
		return missing(id, title, "no run with interference has per-second figures (runs/<id>/timeseries.csv).")
	}
	caption := "Committed transactions of each tenant in each second of the workload phase (runs/<id>/timeseries.csv, " +
		"rows txn=all), with the run's interference (runs/<id>/events.csv): a red line where a fault was injected " +
		"(t_f), a red dotted line where its tenants had all committed again (t_s: F is the distance between them, " +
		"Zhang et al. 2025, eq. 3), a grey band while a noise ran (its requested and achieved load are in events.csv)."
	if with > shown {
		caption += fmt.Sprintf(" The first %d of %d runs with interference are drawn.", shown, with)
	}
	return drawnPanels(id, title, caption, charts)
}

// eventChart is one run's panel.
func (e *experiment) eventChart(r *run) *chart {
	s := r.summary
	c := newChart(fmt.Sprintf("Run %s: %s, %d tenants, %d clients", s.RunID, s.Model, s.Tenants, s.Clients),
		"Seconds since the workload phase started", "Throughput (tx/s)")
	names := make([]string, 0, len(r.byTenant))
	top, end := 0.0, 0.0
	for n, v := range r.byTenant {
		names = append(names, n)
		for _, x := range v {
			top = max(top, x)
		}
		end = max(end, float64(len(v)))
	}
	slices.Sort(names)
	for _, ev := range s.Events {
		if ev.Fault {
			continue
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: ev.AtS, Y: 0}, {X: ev.EndS, Y: 0}, {X: ev.EndS, Y: top * 1.05}, {X: ev.AtS, Y: top * 1.05}})
		if err == nil {
			band.Color = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 40}
			band.LineStyle.Width = 0
			c.Add(band)
		}
	}
	for i, n := range names {
		v := r.byTenant[n]
		xys := make(plotter.XYs, len(v))
		for k, x := range v {
			xys[k] = plotter.XY{X: float64(k) + 0.5, Y: x}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.2), dashesOf(i)
		c.Add(line)
		c.addLegend(n, line)
	}
	red := color.RGBA{R: 0xD0, G: 0x10, B: 0x10, A: 0xff}
	legend := map[string]bool{}
	vline := func(x float64, dashed bool, label string) {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top * 1.05}})
		if err != nil {
			return
		}
		l.Color, l.Width = red, vg.Points(1)
		if dashed {
			l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		}
		c.Add(l)
		if !legend[label] {
			legend[label] = true
			c.addLegend(label, l)
		}
	}
	for _, ev := range s.Events {
		if !ev.Fault {
			continue
		}
		vline(ev.AtS, false, "fault injected")
		if ev.ResumedS != nil {
			vline(*ev.ResumedS, true, "service resumed")
		}
	}
	fromZero(c.Plot, top*1.05)
	c.X.Min, c.X.Max = 0, end
	return c
}
