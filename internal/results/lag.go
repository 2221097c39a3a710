package results

import (
	"path/filepath"
	"sort"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Replication lag (the lag workload; Zhang et al. 2025, section II-B and
// the C-Score, eq. 6): C = (T_insert + T_update + T_delete) / |lambda|,
// lambda the replicas. A T there sums the mean lags of the replicas, so
// that C is the lag of the mean replica: lag_<op>_ms is, per operation,
// the mean over the replicas of each replica's mean lag (the k-th
// replicas of every tenant's server pooled), and c_score_ms their sum. An
// operation the run's mix leaves out (0 %) has no column value and adds
// nothing to C.

// LagOps are the operation types, in the columns' order.
var LagOps = []string{"insert", "update", "delete"}

// LagRow is one operation on one replica over the measured part: how many
// changes were measured and their lag (lag.csv).
type LagRow struct {
	Op                                 string
	Replica                            int // 1-based: the k-th replica of each server
	Count                              int64
	MeanMs, P50Ms, P95Ms, P99Ms, MaxMs float64
}

// lagRows pools the tenants' histograms by operation and replica.
func lagRows(lags []workload.LagHistogram) []LagRow {
	type key struct {
		op string
		r  int
	}
	merged := map[key]*hdrhistogram.Histogram{}
	for _, l := range lags {
		k := key{l.Op, l.Replica}
		if merged[k] == nil {
			merged[k] = workload.NewLagHistogram()
		}
		merged[k].Merge(l.Hist)
	}
	var out []LagRow
	ms := func(us int64) float64 { return float64(us) / 1000 }
	for k, h := range merged {
		if h.TotalCount() == 0 {
			continue
		}
		out = append(out, LagRow{Op: k.op, Replica: k.r + 1, Count: h.TotalCount(), MeanMs: h.Mean() / 1000,
			P50Ms: ms(h.ValueAtQuantile(50)), P95Ms: ms(h.ValueAtQuantile(95)), P99Ms: ms(h.ValueAtQuantile(99)),
			MaxMs: ms(h.Max())})
	}
	order := map[string]int{}
	for i, op := range LagOps {
		order[op] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Op != out[j].Op {
			return order[out[i].Op] < order[out[j].Op]
		}
		return out[i].Replica < out[j].Replica
	})
	return out
}

// lagScores are lag_insert_ms, lag_update_ms, lag_delete_ms and the
// C-Score from the rows: nil where nothing was measured.
func lagScores(rows []LagRow) (ops [3]*float64, c *float64) {
	for i, op := range LagOps {
		var sum float64
		n := 0
		for _, r := range rows {
			if r.Op == op {
				sum += r.MeanMs
				n++
			}
		}
		if n > 0 {
			ops[i] = ptr(sum / float64(n))
		}
	}
	for _, v := range ops {
		if v != nil {
			if c == nil {
				c = ptr(0)
			}
			*c += *v
		}
	}
	return ops, c
}

// WriteLag writes runs/<id>/lag.csv: a row per operation and replica.
func (d *Dir) WriteLag(id string, rows []LagRow) error {
	var out [][]string
	for _, r := range rows {
		out = append(out, []string{id, r.Op, itoa(r.Replica), strconv.FormatInt(r.Count, 10), ftoa(r.MeanMs),
			ftoa(r.P50Ms), ftoa(r.P95Ms), ftoa(r.P99Ms), ftoa(r.MaxMs)})
	}
	return d.writeCSV(filepath.Join("runs", id, "lag.csv"),
		[]string{"run_id", "op", "replica", "changes", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"}, out)
}
