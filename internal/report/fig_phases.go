package report

import (
	"image/color"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// phaseMetrics are the phases before the workload, in order, with the
// results.csv column of each (the longest tenant's time,
// Erdelt and Rabl 2026, section 5.1).
var phaseMetrics = []struct {
	m     metric
	color color.RGBA
}{
	{metric{"provision_s", "Provision", "s", metrics.LowerIsBetter, column(func(r *run) float64 { return r.row.ProvisionS })},
		color.RGBA{0xbb, 0xbb, 0xbb, 0xff}},
	{metric{"setup_s", "Setup", "s", metrics.LowerIsBetter, column(func(r *run) float64 { return r.row.SetupS })},
		color.RGBA{0x77, 0x77, 0x77, 0xff}},
	{mIngest, color.RGBA{0x00, 0x72, 0xB2, 0xff}},
	{mPostIngest, color.RGBA{0xE6, 0x9F, 0x00, 0xff}},
}

// phaseBars stacks the durations of the phases before the workload for
// each matrix point: where the time to bring tenants up goes, per model.
func (e *experiment) phaseBars() *figure {
	const id, title = "phases", "Phase durations before the workload"
	var points []*point
	for _, p := range e.points {
		if len(p.okRuns()) > 0 {
			points = append(points, p)
		}
	}
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	c := newChart(title, "", "Duration (s)")
	base := make([]float64, len(points))
	for _, ph := range phaseMetrics {
		b := &bars{width: 0.6, color: ph.color}
		for i, p := range points {
			st, ok := statOf(p, ph.m)
			if !ok {
				continue
			}
			b.add(float64(i), base[i], base[i]+st.Mean)
			base[i] += st.Mean
		}
		c.Add(b)
		c.addLegend(ph.m.title, b)
	}
	top := 0.0
	for _, v := range base {
		top = max(top, v)
	}
	c.nominalX(pointLabels(points))
	fromZero(c.Plot, top)
	return drawn(id, "Time of each phase before the workload, stacked, for each matrix point: the longest tenant's "+
		"time in the phase (results.csv provision_s, setup_s, ingest_s, post_ingest_s), the mean over the successful "+
		"repetitions. Tenants enter each phase together, so the longest tenant sets the phase's length. Tenants of a "+
		"shared server share its provisioning.", c)
}
