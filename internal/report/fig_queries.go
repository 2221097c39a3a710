package report

import (
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// The figures of runs of query streams (TPC-H, Erdelt and Rabl 2026,
// section 5.2, Fig. 9-12): results.csv's power_at_size, throughput_at_size,
// e_cpu, e_ram and the runs' queries.csv.
var (
	mPowerAtSize      = metric{"power_at_size", "Power@Size", "", metrics.HigherIsBetter, extra("power_at_size")}
	mThroughputAtSize = metric{"throughput_at_size", "Throughput@Size", "", metrics.HigherIsBetter,
		extra("throughput_at_size")}
	mECPU = metric{"e_cpu", "E_CPU", "SF-queries per CPU-s", metrics.HigherIsBetter, extra("e_cpu")}
	mERAM = metric{"e_ram", "E_RAM", "SF-queries per GB", metrics.HigherIsBetter, extra("e_ram")}
)

// hasQueries says whether some run has query times.
func (e *experiment) hasQueries() bool {
	for _, r := range e.runs {
		if len(r.queries) > 0 {
			return true
		}
	}
	return false
}

func (e *experiment) analyticalSection() section {
	return section{"Query streams (Erdelt and Rabl 2026, section 5.2, eq. 3-6, Fig. 9-12)", []*figure{
		e.byTenants("power-at-size", mPowerAtSize, "Power@Size against tenants",
			"SF × 3600 over the geometric mean of the streams' geometric mean query times, one stream per tenant's "+
				"client (Erdelt and Rabl 2026, eq. 4; results.csv, power_at_size; absent when a stream lost a query)."),
		e.byTenants("throughput-at-size", mThroughputAtSize, "Throughput@Size against tenants",
			"n × S × 22 × 3600 / T_s × SF, T_s from the first query's start to the last one's end (Erdelt and Rabl 2026, eq. 3; "+
				"results.csv, throughput_at_size)."),
		e.byTenants("e-cpu", mECPU, "E_CPU against tenants",
			"Queries completed, times SF, per CPU-second of the system under test (Erdelt and Rabl 2026, eq. 5; results.csv, e_cpu)."),
		e.byTenants("e-ram", mERAM, "E_RAM against tenants",
			"Queries completed, times SF, per GB of peak memory (Erdelt and Rabl 2026, eq. 6; results.csv, e_ram)."),
		e.queryTimes(),
	}}
}

// queryTimes draws each query's mean execution time at the largest tenant
// count, one group per query and one bar per series (model): the mean
// over the tenants and successful repetitions of each tenant's mean time.
func (e *experiment) queryTimes() *figure {
	const id, title = "query-times", "Query execution times"
	points := e.largestPoints()
	if len(points) == 0 {
		return missing(id, title, "no successful run.")
	}
	n := points[0].tenants
	values := func(p *point) map[string][]float64 {
		out := map[string][]float64{}
		for _, r := range p.okRuns() {
			for _, q := range r.queries {
				if q.Executions > 0 {
					out[q.Query] = append(out[q.Query], q.MeanS)
				}
			}
		}
		return out
	}
	f := e.categoryBars(id, fmt.Sprintf("%s, %s", title, tenantsLabel(n)), "Query", "Mean execution time (s)", points, values,
		fmt.Sprintf("Each query's mean execution time in the runs with %s (runs/<id>/queries.csv, column mean_s), one group "+
			"per query and one bar per series: the mean over the tenants and successful repetitions", tenantsLabel(n)))
	f.Caption = strings.Replace(f.Caption, "across repetitions", "across tenants and repetitions", 1)
	return f
}
