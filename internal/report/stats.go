package report

import (
	"math"
	"sort"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/results"
)

// metric is one figure of a run that the report aggregates over the
// repetitions of a matrix point.
type metric struct {
	key   string // the results column it comes from, or what it is computed as
	title string
	unit  string
	// dir says which value is the less favourable one (Erdelt and Rabl 2026,
	// section 5.1); 0 for a figure no direction makes better, which then
	// has none.
	dir metrics.Direction
	// value is the run's value; false when the run has none.
	value func(*run) (float64, bool)
}

func (m metric) label() string {
	if m.unit == "" {
		return m.title
	}
	return m.title + " (" + m.unit + ")"
}

func column(get func(*run) float64) func(*run) (float64, bool) {
	return func(r *run) (float64, bool) { return get(r), true }
}

func extra(key string) func(*run) (float64, bool) {
	return func(r *run) (float64, bool) { v, ok := r.row.Extra[key]; return v, ok }
}

// declared is the metric of a declared results.csv column
// (results.ColumnOf): its title, unit and direction are the declaration's.
func declared(key string, value func(*run) (float64, bool)) metric {
	c, ok := results.ColumnOf(key)
	if !ok {
		panic("report: results.csv has no column " + key)
	}
	return metric{key: key, title: c.Title, unit: c.Unit, dir: c.Dir, value: value}
}

var (
	mThroughput = declared("throughput_tps", column(func(r *run) float64 { return r.row.TPS }))
	mMeanLat    = declared("latency_mean_ms", column(func(r *run) float64 { return r.row.MeanMs }))
	mP95        = declared("latency_p95_ms", column(func(r *run) float64 { return r.row.P95Ms }))
	mP99        = declared("latency_p99_ms", column(func(r *run) float64 { return r.row.P99Ms }))
	mFairness   = declared("fairness_jain", jain)
	mIngest     = declared("ingest_s", column(func(r *run) float64 { return r.row.IngestS }))
	mPostIngest = declared("post_ingest_s", column(func(r *run) float64 { return r.row.PostIngestS }))
	mCPU        = declared("cpu_s", extra("cpu_s"))
	mMem        = declared("mem_peak_mb", extra("mem_peak_mb"))
	mETpX       = declared("e_tpx", eTpX)
	mELat       = declared("e_lat", eLat)
	mSLA        = declared("sla_met_tenants", extra("sla_met_tenants"))
)

// jain is Jain's index over the tenants' throughput: results.csv's
// fairness_jain when the run has it, else computed from tenants.csv.
func jain(r *run) (float64, bool) {
	if v, ok := r.row.Extra["fairness_jain"]; ok {
		return v, true
	}
	if len(r.tenants) == 0 {
		return 0, false
	}
	tps := make([]float64, len(r.tenants))
	for i, t := range r.tenants {
		tps[i] = t.TPS
	}
	v, err := metrics.JainIndex(tps)
	return v, err == nil && !math.IsNaN(v)
}

// eTpX is results.csv's e_tpx, or Erdelt and Rabl 2026, eq. 1 from cpu_s
// where only that was written.
func eTpX(r *run) (float64, bool) {
	if v, ok := r.row.Extra["e_tpx"]; ok {
		return v, true
	}
	cpu, ok := r.row.Extra["cpu_s"]
	if !ok || r.summary == nil {
		return 0, false
	}
	secs := r.summary.Measured // the time the rates divide by
	if secs <= 0 {
		secs = r.summary.Duration // results older than measured_s
	}
	v, err := metrics.ETpX(r.row.TPS, secs, cpu)
	return v, err == nil
}

// eLat is results.csv's e_lat, or Erdelt and Rabl 2026, eq. 2 from cpu_s.
func eLat(r *run) (float64, bool) {
	if v, ok := r.row.Extra["e_lat"]; ok {
		return v, true
	}
	cpu, ok := r.row.Extra["cpu_s"]
	if !ok {
		return 0, false
	}
	v, err := metrics.ELat(r.row.MeanMs/1000, cpu)
	return v, err == nil
}

// coreMetrics are the metrics every run has.
func coreMetrics() []metric {
	return []metric{mThroughput, mMeanLat, mP95, mP99, mFairness, mIngest, mPostIngest}
}

// knownExtras are results.csv columns the monitor adds;
// they enter the tables when present.
var knownExtras = []metric{mCPU, mMem, mETpX, mELat, mSLA}

// extraMetrics are the metrics of the columns some run has beyond the
// core ones: the known ones first, then any other numeric column as is.
func extraMetrics(runs []*run) []metric {
	have := map[string]bool{}
	for _, r := range runs {
		for k := range r.row.Extra {
			have[k] = true
		}
	}
	var out []metric
	cpu := have[mCPU.key] // E_TpX and E_Lat can be computed from it
	for _, m := range knownExtras {
		if have[m.key] || (cpu && (m.key == mETpX.key || m.key == mELat.key)) {
			out = append(out, m)
		}
		delete(have, m.key)
	}
	delete(have, mFairness.key)
	var rest []string
	for k := range have {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		c, ok := results.ColumnOf(k)
		if !ok {
			// A column of another tenantbench version: shown as it is.
			c = results.Column{Name: k, Title: k, Source: "results.csv " + k}
		}
		if ok && !c.Figure() {
			continue // a label of the run, not a figure
		}
		out = append(out, metric{key: k, title: c.Title, unit: c.Unit, dir: c.Dir, value: extra(k)})
	}
	return out
}

// stat is a metric over the successful repetitions of a point.
type stat struct {
	metrics.Summary
	// Less is the less favourable of the repetitions' values
	// (Erdelt and Rabl 2026 section 5.1); NaN when the metric has no
	// direction.
	Less   float64
	Failed int // repetitions left out because they failed
}

// values are a metric's values over the successful runs.
func values(runs []*run, m metric) []float64 {
	var out []float64
	for _, r := range runs {
		if !r.ok() {
			continue
		}
		if v, ok := m.value(r); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// statOf summarises m over p's repetitions; false when no repetition has
// a value.
func statOf(p *point, m metric) (stat, bool) {
	vs := values(p.runs, m)
	if len(vs) == 0 {
		return stat{}, false
	}
	s, err := metrics.Summarize(vs)
	if err != nil {
		return stat{}, false
	}
	st := stat{Summary: s, Less: math.NaN(), Failed: p.failed()}
	if m.dir != 0 {
		if less, err := metrics.LessFavourable(vs, m.dir); err == nil {
			st.Less = less
		}
	}
	return st, true
}

// hasValues says whether any run has a value of m.
func hasValues(runs []*run, m metric) bool { return len(values(runs, m)) > 0 }
