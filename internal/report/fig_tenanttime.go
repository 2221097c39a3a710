package report

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// lineTenants is the most tenants drawn as a line each: beyond it the
// lines no longer read.
const lineTenants = 12

// smoothSeconds is the window of the moving mean each tenant's line
// draws: a tenant's second-by-second throughput is too noisy to show a
// sine.
const smoothSeconds = 10

// tenantsOverTime draws each tenant's throughput over time, a panel per
// series at the largest tenant count (the first successful repetition),
// a line per tenant: Oracle 2014, Test 4, Figures 4 and 5, where under a
// shifted sine per tenant the non-CDBs' tenants fell short of their
// peaks while the PDBs' reached them.
func (e *experiment) tenantsOverTime() *figure {
	const id, title = "tenant-throughput-time", "Throughput per tenant over time"
	points := e.largestPoints()
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	n := points[0].tenants
	if n > lineTenants {
		return missing(id, title, fmt.Sprintf("drawn up to %d tenants, a line each; the runs have %d "+
			"(runs/<id>/timeseries.csv has each tenant's seconds).", lineTenants, n))
	}
	var charts []*chart
	for _, p := range points {
		var r *run
		for _, x := range p.okRuns() {
			if len(x.byTenant) > 0 {
				r = x
				break
			}
		}
		if r == nil {
			continue
		}
		c := newChart(fmt.Sprintf("%s: %s", p.series, tenantsLabel(n)), "Seconds since the workload phase started", "Throughput (tx/s)")
		names := make([]string, 0, len(r.byTenant))
		for t := range r.byTenant {
			names = append(names, t)
		}
		sort.Strings(names)
		top := 0.0
		for i, t := range names {
			xys := movingMean(r.byTenant[t], smoothSeconds)
			for _, xy := range xys {
				top = max(top, xy.Y)
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				continue
			}
			line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.2), dashesOf(i)
			c.Add(line)
			c.addLegend(t, line)
		}
		fromZero(c.Plot, top)
		charts = append(charts, c)
	}
	if len(charts) == 0 {
		return missing(id, title, "no run has per-second figures (runs/<id>/timeseries.csv).")
	}
	caption := fmt.Sprintf("Each tenant's committed transactions per second (runs/<id>/timeseries.csv, rows txn=all, "+
		"column committed), the mean of the %d seconds around each, a line per tenant and a panel per series, in the first "+
		"successful repetition with %s; warmup included. Oracle 2014, Test 4 (Figures 4-5): under a shifted sine per "+
		"tenant, a tenant that falls short of its peak while its neighbours are near theirs lacks what it would need; "+
		"each tenant's target per slot is in runs/<id>/slots.csv, their sum in the throughput-time figure.", smoothSeconds, tenantsLabel(n))
	return drawnPanels(id, fmt.Sprintf("%s, %s", title, tenantsLabel(n)), caption, charts)
}

// movingMean is v's centred moving mean over w seconds, each second drawn
// at its middle.
func movingMean(v []float64, w int) plotter.XYs {
	out := make(plotter.XYs, len(v))
	for s := range v {
		lo, hi := max(s-w/2, 0), min(s+w-w/2, len(v))
		sum := 0.0
		for _, x := range v[lo:hi] {
			sum += x
		}
		out[s] = plotter.XY{X: float64(s) + 0.5, Y: sum / float64(hi-lo)}
	}
	return out
}
