package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tenantbench/tenantbench/internal/results"
)

// The monitor's files are optional: results written
// without a monitor have none, and the report says "not measured" in place
// of their figures. Their names and the columns the report reads are kept
// here, in one place, and docs/report.md lists them.
const (
	// resourcesFile: the monitor's row per sample round and instance
	// (docs/monitor.md): a time column (timeCol), the instance (scopeCol)
	// and numbers; resourceColumns of them get a figure over time,
	// summed over the instances of the run.
	resourcesFile = "monitor/resources.csv"
	// tenantCPUFile: tenants.csv, whose "all" rows carry each tenant's
	// CPU seconds in the measured workload (cpu_s, the monitor's
	// attribution of backends to tenants).
	tenantCPUFile = "tenants.csv"
	// waitsFile: the monitor's wait-event histogram: rows with from (the
	// segment's first mark), tenant, event ("Type:Event", "CPU" for an
	// active backend with no wait, "-" for an idle one) and samples.
	waitsFile = "monitor/waits.csv"

	timeCol  = "t_s"
	scopeCol = "instance"
	phaseCol = "phase"
	// workloadMark is the monitor's mark at the start of the workload
	// phase: the waits segment the figure shows.
	workloadMark = "workload"
)

// resourceColumns are the resources.csv columns drawn over time: CPU in
// use, memory, writes, preemptions and sessions; the cumulative counters
// beside them would only rise.
var resourceColumns = []string{"cpus", "mem_current_mb", "pss_mb", "rss_mb", "io_write_bytes",
	"ctx_involuntary", "client_backends"}

// notSystem are scopes of resources.csv that are not the system under
// test: they are measured apart (the driver's cost is never the system's)
// and left out of its sums.
var notSystem = map[string]bool{"host": true, "driver": true, "tenantbench": true}

const notMeasured = "not measured: "

func (e *experiment) monitorFigures() []*figure {
	figs := []*figure{
		e.measuredByTenants("cpu", mCPU, "CPU time against tenants",
			"CPU seconds the system under test consumed during the workload phase (results.csv, cpu_s)."),
		e.measuredByTenants("e-tpx", mETpX, "Throughput efficiency E_TpX against tenants",
			"Successful transactions per CPU-second, Erdelt and Rabl 2026, eq. 1 (results.csv e_tpx, or computed from throughput_tps, "+
				"the workload duration and cpu_s)."),
		e.measuredByTenants("e-lat", mELat, "Latency efficiency E_Lat against tenants",
			"1 / sqrt(mean latency x CPU seconds), Erdelt and Rabl 2026, eq. 2 (results.csv e_lat, or computed from latency_mean_ms and cpu_s)."),
		e.measuredByTenants("memory-peak", mMem, "Peak memory against tenants",
			"Peak memory of the system under test during the run (results.csv, mem_peak_mb)."),
		e.tenantCPU(),
		e.tenantBlocks(),
		e.waits(),
	}
	return append(figs, e.resources()...)
}

// measuredByTenants is byTenants for a column the monitor writes.
func (e *experiment) measuredByTenants(id string, m metric, title, source string) *figure {
	if !hasValues(e.runs, m) {
		return missing(id, title, notMeasured+"results.csv has no "+m.key+" column (the monitor writes it).")
	}
	return e.byTenants(id, m, title, source)
}

// monitorTable reads one of the monitor's files of a run; nil when the run
// has none, with a warning when it is there but cannot be read.
func (e *experiment) monitorTable(r *run, name string) *results.Table {
	if !e.dir.HasRunFile(r.row.RunID, name) {
		return nil
	}
	t, err := results.ReadTable(e.dir.RunFile(r.row.RunID, name))
	if err != nil {
		e.warn("run %s: %v", r.row.RunID, err)
		return nil
	}
	return t
}

// tenantCPU draws each tenant's CPU seconds at the largest tenant count:
// CPU per tenant exists in every model, shared ones included, through the
// monitor's attribution of backends to tenants.
func (e *experiment) tenantCPU() *figure {
	const id, title = "tenant-cpu", "CPU time per tenant"
	return e.tenantColumn(id, title, "cpu_s", "CPU time (CPU-s)",
		"CPU seconds of each tenant's backends during the workload phase", notMeasured+"no run has "+tenantCPUFile+" (the monitor writes it).")
}

// tenantBlocks draws the blocks per second the DBMS counted for each
// tenant's database or schema, read outside shared buffers, at the
// largest tenant count: the IO a shared server's cgroup cannot split by
// tenant (Oracle 2014, Test 4, compares buffer caches by their reads).
func (e *experiment) tenantBlocks() *figure {
	const id, title = "tenant-blks-read", "Blocks read per tenant"
	return e.tenantColumn(id, title, "blks_read_ps", "Blocks read outside shared buffers per second",
		"Blocks per second each tenant's database or schema sought outside shared buffers during the measured workload, as "+
			"PostgreSQL counts them (not device IOPS: the page cache may serve them; docs/results.md)",
		notMeasured+"no run has blks_read_ps in tenants.csv (the monitor counts them where the tenancy model keeps each "+
			"tenant's objects in a database or schema of its own).")
}

// tenantColumn draws one column of the tenants' all rows at the largest
// tenant count, a bar per tenant (a distribution above barTenants).
func (e *experiment) tenantColumn(id, title, col, yLabel, what, none string) *figure {
	points := e.largestPoints()
	found := false
	values := func(p *point) map[string][]float64 {
		out := map[string][]float64{}
		for _, r := range p.okRuns() {
			t := e.monitorTable(r, tenantCPUFile)
			if t == nil || !t.Has("tenant") || !t.Has(col) {
				continue
			}
			sums := map[string]float64{}
			for i := range t.Rows {
				if t.Get(i, "txn") != "all" || t.Get(i, col) == "" { // empty: not monitored
					continue
				}
				if v, err := t.Float(i, col); err == nil {
					sums[t.Get(i, "tenant")] += v
					found = true
				}
			}
			for k, v := range sums {
				out[k] = append(out[k], v)
			}
		}
		return out
	}
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	n := points[0].tenants
	f := e.tenantBars(id, fmt.Sprintf("%s, %s", title, tenantsLabel(n)), yLabel, points, values,
		fmt.Sprintf("%s in the runs with %s (runs/<id>/%s, column %s of the all rows): the mean over the successful repetitions",
			what, tenantsLabel(n), tenantCPUFile, col))
	if !found {
		return missing(id, title, none)
	}
	return f
}

// waits draws the share of wait-event samples by wait event type, per
// series at the largest tenant count: what the backends waited for
// explains contention (Erdelt and Rabl 2026, section 6.2, could not say).
func (e *experiment) waits() *figure {
	const id, title = "waits", "Wait events"
	points := e.largestPoints()
	type share struct {
		p      *point
		byType map[string]float64
		total  float64
	}
	var shares []share
	totals := map[string]float64{}
	for _, p := range points {
		s := share{p: p, byType: map[string]float64{}}
		for _, r := range p.okRuns() {
			t := e.monitorTable(r, waitsFile)
			if t == nil || !t.Has("event") || !t.Has("samples") {
				continue
			}
			for i := range t.Rows {
				v, err := t.Float(i, "samples")
				event, tenant := t.Get(i, "event"), t.Get(i, "tenant")
				// the workload segment, the tenants' own backends, busy ones
				if err != nil || t.Get(i, "from") != workloadMark || strings.HasPrefix(tenant, "(") || event == "-" {
					continue
				}
				typ, _, _ := strings.Cut(event, ":")
				if typ == "CPU" {
					typ = "on CPU"
				}
				s.byType[typ] += v
				s.total += v
				totals[typ] += v
			}
		}
		if s.total > 0 {
			shares = append(shares, s)
		}
	}
	if len(shares) == 0 {
		return missing(id, title, notMeasured+"no run has "+waitsFile+" (the monitor writes it).")
	}
	// The six most frequent types by name, the rest as "other": more
	// colours would not be told apart.
	types := make([]string, 0, len(totals))
	for t := range totals {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if totals[types[i]] != totals[types[j]] {
			return totals[types[i]] > totals[types[j]]
		}
		return types[i] < types[j]
	})
	if len(types) > 6 {
		for _, s := range shares {
			for _, t := range types[6:] {
				s.byType["other"] += s.byType[t]
			}
		}
		types = append(types[:6:6], "other")
	}
	n := points[0].tenants
	c := newChart(fmt.Sprintf("%s, %s", title, tenantsLabel(n)), "", "Share of samples (%)")
	base := make([]float64, len(shares))
	for k, typ := range types {
		b := &bars{width: 0.6, color: colorOf(k)}
		for i, s := range shares {
			v := s.byType[typ] / s.total * 100
			b.add(float64(i), base[i], base[i]+v)
			base[i] += v
		}
		c.Add(b)
		c.addLegend(typ, b)
	}
	labels := make([]string, len(shares))
	for i, s := range shares {
		labels[i] = s.p.series
	}
	c.nominalX(labels)
	fromZero(c.Plot, 100)
	return drawn(id, fmt.Sprintf("Share of the wait-event samples of the tenants' backends by wait event type in the runs "+
		"with %s, over all tenants and successful repetitions, during the workload phase (runs/<id>/%s, column samples "+
		"by the type of event; an active backend with no wait event is on CPU, idle ones are left out).", tenantsLabel(n), waitsFile), c)
}

// resources draws each numeric column of resources.csv over time, summed
// over the instances of the run, one line per series: the first
// successful repetition at the largest tenant count.
func (e *experiment) resources() []*figure {
	const id, title = "resources", "Resources over time"
	type sample struct {
		series string
		t      *results.Table
	}
	var samples []sample
	for _, p := range e.largestPoints() {
		for _, r := range p.okRuns() {
			if t := e.monitorTable(r, resourcesFile); t != nil && t.Has(timeCol) {
				samples = append(samples, sample{p.series, t})
				break
			}
		}
	}
	if len(samples) == 0 {
		return []*figure{missing(id, title, notMeasured+"no run has "+resourcesFile+" (the monitor writes it).")}
	}
	var cols []string
	for _, col := range resourceColumns {
		for _, s := range samples {
			if s.t.Has(col) && numericColumn(s.t, col) {
				cols = append(cols, col)
				break
			}
		}
	}
	n := maxTenants(e.points)
	var figs []*figure
	for _, col := range cols {
		yLabel := col
		if u := unitOf(col); u != "" {
			yLabel = strings.TrimSuffix(col, "_"+strings.ToLower(u)) + " (" + u + ")"
		}
		c := newChart(fmt.Sprintf("%s over time, %s", col, tenantsLabel(n)), "Seconds ("+resourcesFile+" column "+timeCol+")", yLabel)
		top := 0.0
		for _, s := range samples {
			if !s.t.Has(col) {
				continue
			}
			sum := map[float64]float64{}
			for i := range s.t.Rows {
				if notSystem[s.t.Get(i, scopeCol)] {
					continue
				}
				sec, err1 := s.t.Float(i, timeCol)
				v, err2 := s.t.Float(i, col)
				if err1 == nil && err2 == nil {
					sum[sec] += v
				}
			}
			xys := make(plotter.XYs, 0, len(sum))
			for sec, v := range sum {
				xys = append(xys, plotter.XY{X: sec, Y: v})
				top = max(top, v)
			}
			sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
			line, err := plotter.NewLine(xys)
			if err != nil {
				continue
			}
			i := e.seriesIndex(s.series)
			line.Color, line.Width, line.Dashes = colorOf(i), vg.Points(1.5), dashesOf(i)
			c.Add(line)
			c.addLegend(s.series, line)
		}
		fromZero(c.Plot, top)
		figs = append(figs, drawn("resources-"+fileSafe(col), fmt.Sprintf("Column %s of runs/<id>/%s, summed over the "+
			"run's instances (host and driver rows left out), for the first successful repetition with %s.",
			col, resourcesFile, tenantsLabel(n)), c))
	}
	return figs
}

// numericColumn says whether every non-empty cell of col is a number.
func numericColumn(t *results.Table, col string) bool {
	found := false
	for i := range t.Rows {
		s := t.Get(i, col)
		if s == "" {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
		found = true
	}
	return found
}

// fileSafe keeps letters, digits, '-' and '_' of a column name for a
// figure's file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}

// unitOf reads a resources.csv column's unit from its suffix, the
// results files' naming rule (docs/results.md).
func unitOf(col string) string {
	for suffix, unit := range map[string]string{"_ms": "ms", "_s": "s", "_mb": "MB", "_tps": "tx/s", "_bytes": "bytes"} {
		if strings.HasSuffix(col, suffix) {
			return unit
		}
	}
	return ""
}
