package report

import (
	"math"
	"sort"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// metric is one figure of a run that the report aggregates over the
// repetitions of a matrix point.
type metric struct {
	key   string // the results column it comes from, or what it is computed as
	title string
	unit  string
	// dir says which value is the less favourable one (Erdelt and Rabl 2026,
	// section 5.1); 0 for a column the report does not know, which then has
	// none.
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

var (
	mThroughput = metric{"throughput_tps", "Throughput", "tx/s", metrics.HigherIsBetter,
		column(func(r *run) float64 { return r.row.TPS })}
	mMeanLat = metric{"latency_mean_ms", "Mean latency", "ms", metrics.LowerIsBetter,
		column(func(r *run) float64 { return r.row.MeanMs })}
	mP95 = metric{"latency_p95_ms", "p95 latency", "ms", metrics.LowerIsBetter,
		column(func(r *run) float64 { return r.row.P95Ms })}
	mP99 = metric{"latency_p99_ms", "p99 latency", "ms", metrics.LowerIsBetter,
		column(func(r *run) float64 { return r.row.P99Ms })}
	mFairness = metric{"fairness_jain", "Fairness, Jain's index", "", metrics.HigherIsBetter, jain}
	mIngest   = metric{"ingest_s", "Ingest", "s", metrics.LowerIsBetter,
		column(func(r *run) float64 { return r.row.IngestS })}
	mPostIngest = metric{"post_ingest_s", "Post-ingest", "s", metrics.LowerIsBetter,
		column(func(r *run) float64 { return r.row.PostIngestS })}
	mCPU  = metric{"cpu_s", "CPU time of the system under test", "CPU-s", metrics.LowerIsBetter, extra("cpu_s")}
	mMem  = metric{"mem_peak_mb", "Peak memory", "MB", metrics.LowerIsBetter, extra("mem_peak_mb")}
	mETpX = metric{"e_tpx", "E_TpX, throughput efficiency", "tx per CPU-s", metrics.HigherIsBetter, eTpX}
	mELat = metric{"e_lat", "E_Lat, latency efficiency", "1/s", metrics.HigherIsBetter, eLat}
	mSLA  = metric{"sla_met_tenants", "Tenants that met their SLA", "tenants", metrics.HigherIsBetter, extra("sla_met_tenants")}
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
		out = append(out, metric{key: k, title: k, unit: unitOf(k), value: extra(k)})
	}
	return out
}

// unitOf guesses a column's unit from its suffix, the results files'
// naming rule (docs/results.md).
func unitOf(col string) string {
	for suffix, unit := range map[string]string{"_ms": "ms", "_s": "s", "_mb": "MB", "_tps": "tx/s", "_bytes": "bytes"} {
		if strings.HasSuffix(col, suffix) {
			return unit
		}
	}
	return ""
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
