package results

import (
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TenantStreams are one tenant's query streams (TPC-H: workload.Streamer).
type TenantStreams struct {
	Tenant  string
	Streams []workload.Stream
}

// QueryFigures are one tenant's executions of one query, over its
// streams: runs/<id>/queries.csv.
type QueryFigures struct {
	Tenant, Query              string
	Executions, Failed         int
	MeanS, MinS, MaxS, GeoMean float64 // of the executions that returned their rows
}

// StreamFigures are one stream's: runs/<id>/streams.csv.
type StreamFigures struct {
	Tenant             string
	Stream             int
	Planned, Executed  int // executed: returned their rows
	Failed             int
	StartS, EndS       float64  // first query's start, last query's end, since the workload phase started
	GeoMean            float64  // of the executed queries' times, s
	PowerAtSize        *float64 // eq. 4 for the stream alone; absent when incomplete
	Complete           bool     // every planned query executed
	Lost               []workload.Exec
	times              []float64
	firstAt, lastEndAt time.Time
}

// Analytical is what a run of query streams measured (Erdelt and Rabl 2026,
// section 5.2): per query and tenant, per stream, and for the run.
type Analytical struct {
	Queries []QueryFigures
	Streams []StreamFigures
	// Tenants: T_s and Power@Size per tenant (absent when a stream of
	// the tenant is incomplete).
	Tenants map[string]TenantAnalytical
	// Executions counts the queries that returned their rows (refresh
	// functions not included).
	Executions int
	// Complete: every stream of every tenant executed all its queries.
	Complete bool
	// TS is T_s of eq. 3: from the first query's start to the last
	// query's end over all streams, in seconds.
	TS               float64
	PowerAtSize      *float64
	ThroughputAtSize *float64
}

// TenantAnalytical is one tenant's T_s and Power@Size (over its streams).
type TenantAnalytical struct {
	TS          float64
	PowerAtSize *float64
}

// AnalyticalOf measures streams at scale factor sf. Only executions that
// ended within [from, to], the measured part of the workload phase, count
// (as the driver counts transactions); origin is the phase's start.
//
// Power@Size (eq. 4) and Throughput@Size (eq. 3) follow Erdelt and Rabl 2026
// with one stream per client and n = repeat_queries: they are given only when
// every stream executed all its n x 22 queries (a run that lost queries to a
// timeout, a killed server or the end of the phase measured something else);
// the per-stream figures are given for every stream. Refresh functions
// (workload.Exec.Refresh) are among a stream's times, each execution once:
// with n = 1 its geometric mean is TPC-H's over 22 queries and RF1, RF2
// (clause 5.4.1.1); they are not counted among the queries of
// Throughput@Size, E_CPU and E_RAM (clause 5.4.2.1: S x 22).
func AnalyticalOf(ts []TenantStreams, sf float64, origin, from, to time.Time) *Analytical {
	a := &Analytical{Tenants: map[string]TenantAnalytical{}, Complete: len(ts) > 0}
	var first, last time.Time
	var all [][]float64
	for _, t := range ts {
		byQuery := map[string]*QueryFigures{}
		var tFirst, tLast time.Time
		var tTimes [][]float64
		tComplete := len(t.Streams) > 0
		for _, s := range t.Streams {
			st := StreamFigures{Tenant: t.Tenant, Stream: s.Number, Planned: s.Queries}
			for _, e := range s.Execs {
				if e.End.Before(from) || e.End.After(to) {
					continue
				}
				q := byQuery[e.Query]
				if q == nil {
					q = &QueryFigures{Tenant: t.Tenant, Query: e.Query, MinS: math.Inf(1)}
					byQuery[e.Query] = q
				}
				if st.firstAt.IsZero() {
					st.firstAt = e.Start
				}
				st.lastEndAt = e.End
				if e.Err != "" {
					st.Failed++
					q.Failed++
					st.Lost = append(st.Lost, e)
					continue
				}
				d := e.End.Sub(e.Start).Seconds()
				st.Executed++
				if !e.Refresh {
					// Throughput@Size counts the queries, not the refresh
					// functions (TPC-H clause 5.4.2; Erdelt and Rabl 2026,
					// eq. 3).
					a.Executions++
				}
				st.times = append(st.times, d)
				q.Executions++
				q.MeanS += d
				q.MinS, q.MaxS = min(q.MinS, d), max(q.MaxS, d)
				q.GeoMean += math.Log(d)
			}
			st.Complete = st.Executed == st.Planned && st.Failed == 0
			if !st.firstAt.IsZero() {
				st.StartS, st.EndS = st.firstAt.Sub(origin).Seconds(), st.lastEndAt.Sub(origin).Seconds()
				if tFirst.IsZero() || st.firstAt.Before(tFirst) {
					tFirst = st.firstAt
				}
				if st.lastEndAt.After(tLast) {
					tLast = st.lastEndAt
				}
			}
			if len(st.times) > 0 {
				st.GeoMean = geoMean(st.times)
			}
			if st.Complete {
				if p, err := metrics.PowerAtSize(sf, st.times); err == nil {
					st.PowerAtSize = &p
				}
			}
			tComplete = tComplete && st.Complete
			tTimes = append(tTimes, st.times)
			a.Streams = append(a.Streams, st)
		}
		for _, q := range byQuery {
			if q.Executions > 0 {
				q.MeanS /= float64(q.Executions)
				q.GeoMean = math.Exp(q.GeoMean / float64(q.Executions))
			} else {
				q.MinS = 0
			}
			a.Queries = append(a.Queries, *q)
		}
		ta := TenantAnalytical{}
		if !tFirst.IsZero() {
			ta.TS = tLast.Sub(tFirst).Seconds()
			if first.IsZero() || tFirst.Before(first) {
				first = tFirst
			}
			if tLast.After(last) {
				last = tLast
			}
		}
		if tComplete {
			if p, err := metrics.PowerAtSizeStreams(sf, tTimes); err == nil {
				ta.PowerAtSize = &p
			}
		}
		a.Tenants[t.Tenant] = ta
		a.Complete = a.Complete && tComplete
		all = append(all, tTimes...)
	}
	sort.Slice(a.Queries, func(i, j int) bool {
		if a.Queries[i].Tenant != a.Queries[j].Tenant {
			return a.Queries[i].Tenant < a.Queries[j].Tenant
		}
		return a.Queries[i].Query < a.Queries[j].Query
	})
	if !first.IsZero() {
		a.TS = last.Sub(first).Seconds()
	}
	if a.Complete {
		if p, err := metrics.PowerAtSizeStreams(sf, all); err == nil {
			a.PowerAtSize = &p
		}
		// Every stream ran its n x 22 queries: n x S x 22 executions.
		if th, err := metrics.ThroughputAtSize(metrics.Streams{S: 1, Queries: a.Executions, N: 1, SF: sf}, a.TS); err == nil {
			a.ThroughputAtSize = &th
		}
	}
	return a
}

func geoMean(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(v)))
}

// SetAnalytical adds the analytical figures of Erdelt and Rabl 2026,
// section 5.2 to a: Power@Size, Throughput@Size and, when the run was
// monitored, E_CPU and E_RAM (eq. 5-6, from the completed queries: n x S x 22
// x SF / CPU seconds, and per GB of peak memory, mem_peak_mb / 1024).
func (a *Aggregate) SetAnalytical(an *Analytical, sf float64) {
	a.PowerAtSize, a.ThroughputAtSize, a.ECPU, a.ERAM = an.PowerAtSize, an.ThroughputAtSize, nil, nil
	if !an.Complete {
		return
	}
	s := metrics.Streams{S: 1, Queries: an.Executions, N: 1, SF: sf}
	if a.CPUS != nil {
		if e, err := metrics.ECPU(s, *a.CPUS); err == nil {
			a.ECPU = &e
		}
	}
	if a.MemPeakMB != nil {
		if e, err := metrics.ERAM(s, *a.MemPeakMB/1024); err == nil {
			a.ERAM = &e
		}
	}
}

// WriteAnalytical writes runs/<id>/queries.csv (a row per tenant and
// query) and runs/<id>/streams.csv (a row per stream).
func (d *Dir) WriteAnalytical(id string, a *Analytical) error {
	var rows [][]string
	for _, q := range a.Queries {
		rows = append(rows, []string{id, q.Tenant, q.Query, itoa(q.Executions), itoa(q.Failed),
			secs(q.MeanS), secs(q.MinS), secs(q.MaxS), secs(q.GeoMean)})
	}
	err := d.writeCSV(filepath.Join("runs", id, "queries.csv"),
		[]string{"run_id", "tenant", "query", "executions", "failed", "mean_s", "min_s", "max_s", "geomean_s"}, rows)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for _, s := range a.Streams {
		rows = append(rows, []string{id, s.Tenant, itoa(s.Stream), itoa(s.Planned), itoa(s.Executed), itoa(s.Failed),
			secs(s.StartS), secs(s.EndS), secs(s.EndS - s.StartS), secs(s.GeoMean), optional(s.PowerAtSize),
			strconv.FormatBool(s.Complete)})
	}
	return d.writeCSV(filepath.Join("runs", id, "streams.csv"),
		[]string{"run_id", "tenant", "stream", "planned", "executed", "failed", "start_s", "end_s", "t_s",
			"geomean_s", "power_at_size", "complete"}, rows)
}

// secs writes seconds with 6 decimals: TPC-H queries at small scales take
// milliseconds.
func secs(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }

// ReadQueries reads runs/<id>/queries.csv.
func (d *Dir) ReadQueries(id string) ([]QueryFigures, error) {
	t, err := ReadTable(d.RunFile(id, "queries.csv"))
	if err != nil {
		return nil, err
	}
	rows := make([]QueryFigures, 0, len(t.Rows))
	for i := range t.Rows {
		r := &rowReader{t: t, i: i}
		rows = append(rows, QueryFigures{Tenant: r.s("tenant"), Query: r.s("query"), Executions: int(r.n("executions")),
			Failed: int(r.n("failed")), MeanS: r.f("mean_s"), MinS: r.f("min_s"), MaxS: r.f("max_s"), GeoMean: r.f("geomean_s")})
		if r.err != nil {
			return nil, r.err
		}
	}
	return rows, nil
}
