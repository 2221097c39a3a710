package report

import "fmt"

// figure is one figure of the report, or the reason it is not there.
type figure struct {
	ID      string // file name without extension, unique in the report
	Title   string
	Caption string // what it shows and which file it comes from
	Img     rendered
	// Note, when not empty, says why the figure is not drawn ("not
	// measured: ..."); the report shows the note in its place.
	Note string
}

// section groups figures under a heading.
type section struct {
	Title   string
	Figures []*figure
}

// drawn makes a figure from a chart; a chart that cannot be drawn
// becomes a note, so that one figure never costs the report.
func drawn(id, caption string, c *chart) *figure {
	f := &figure{ID: id, Title: c.Title.Text, Caption: caption}
	img, err := render(c)
	if err != nil {
		f.Note = fmt.Sprintf("could not be drawn: %v", err)
		return f
	}
	f.Img = img
	return f
}

func missing(id, title, note string) *figure { return &figure{ID: id, Title: title, Note: note} }

// sections builds every figure of the report. Each figure reads only what
// load read from the results files; figures of the monitor's files say
// "not measured" until those files exist.
func (e *experiment) sections() []section {
	out := []section{
		{"Provider perspective: against tenants (Erdelt and Rabl 2026, Fig. 5-7)", []*figure{
			e.byTenants("throughput", mThroughput, "Throughput against tenants",
				"Committed transactions per second summed over the tenants of a run (results.csv, throughput_tps)."),
			e.byTenants("latency-mean", mMeanLat, "Mean latency against tenants",
				"Macro-average over tenants of each tenant's mean transaction latency (results.csv, latency_mean_ms)."),
			e.byTenants("latency-p99", mP99, "p99 latency against tenants",
				"99th percentile of the worst tenant of a run (results.csv, latency_p99_ms)."),
			e.byTenants("fairness", mFairness, "Fairness against tenants",
				"Jain's index (Σx)²/(n·Σx²) over the tenants' throughput: 1 when all tenants get the same, 1/n when one gets all "+
					"(runs/<id>/tenants.csv rows txn=all, column throughput_tps; results.csv fairness_jain where present)."),
		}},
		{"Tenant perspective (Erdelt and Rabl 2026, Fig. 8)", []*figure{
			e.perTenant("tenant-throughput", "Throughput per tenant", "Throughput (tx/s)",
				func(t tenantValue) float64 { return t.tps }, "throughput_tps"),
			e.perTenant("tenant-latency-mean", "Mean latency per tenant", "Mean latency (ms)",
				func(t tenantValue) float64 { return t.meanMs }, "latency_mean_ms"),
			e.perTenant("tenant-latency-p99", "p99 latency per tenant", "p99 latency (ms)",
				func(t tenantValue) float64 { return t.p99Ms }, "latency_p99_ms"),
		}},
	}
	if f := e.caseBars(); f != nil {
		out = append(out, section{"Cases (Matos and Pedreira 2025, Fig. 4-5, 13-14, 17)", []*figure{f}})
	}
	out = append(out, []section{
		{"Over time (Matos and Pedreira 2025, Fig. 2; Oracle 2014, Fig. 4-5)", []*figure{e.overTime(), e.tenantsOverTime()}},
		{"Repetitions (Matos and Pedreira 2025, Fig. 17-18)", []*figure{
			e.boxes("box-throughput", mThroughput, "Throughput across repetitions"),
			e.boxes("box-latency-mean", mMeanLat, "Mean latency across repetitions"),
			e.cvBars(),
		}},
		{"Phases (Erdelt and Rabl 2026, section 4.2)", []*figure{e.phaseBars()}},
		{"Resources and efficiency (Erdelt and Rabl 2026, eq. 1-2, Fig. 7)", e.monitorFigures()},
	}...)
	if len(e.probes) > 0 {
		out = append(out, section{"Machine speed (probe)", []*figure{e.probeFigure()}})
	}
	if f := e.interference(); f != nil {
		out = append(out, section{"Interference (Zhang et al. 2025, Fig. 7; EDB 2026)", []*figure{f}})
	}
	if e.hasQueries() {
		out = append(out, e.analyticalSection())
	}
	return out
}
