package results

import (
	"path/filepath"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/driver"
)

// Totals turns the driver's measurements into per-tenant totals.
func Totals(res *driver.Result) []TenantTotals {
	secs := res.Duration.Seconds()
	var out []TenantTotals
	for _, t := range res.Tenants {
		all := t.All
		tt := TenantTotals{Tenant: t.Name, Committed: all.Committed, Failed: all.FailedTotal(), FailedBy: all.Failed,
			MeanMs: all.MeanMs(), P95Ms: all.QuantileMs(95), P99Ms: all.QuantileMs(99), ConnLost: t.ConnLost}
		if secs > 0 {
			tt.TPS = float64(all.Committed) / secs
		}
		for _, f := range t.Failures {
			tt.Failures = append(tt.Failures, Failure{Txn: f.Txn, Class: f.Class, Count: f.Count,
				FirstS: f.First.Seconds(), LastS: f.Last.Seconds(), Message: f.Message})
		}
		out = append(out, tt)
	}
	return out
}

// WriteTenants writes runs/<id>/tenants.csv: a row per tenant and
// transaction type, and an "all" row per tenant.
func (d *Dir) WriteTenants(id string, res *driver.Result) error {
	secs := res.Duration.Seconds()
	var rows [][]string
	for _, t := range res.Tenants {
		for _, x := range append(append([]driver.TxnResult{}, t.Txns...), t.All) {
			tps := 0.0
			if secs > 0 {
				tps = float64(x.Committed) / secs
			}
			rows = append(rows, []string{id, t.Name, x.Txn, strconv.FormatInt(x.Committed, 10),
				strconv.FormatInt(x.FailedTotal(), 10), classes(x.Failed), strconv.FormatInt(x.Rollbacks, 10),
				strconv.FormatInt(x.Retries, 10), ftoa(tps), ftoa(x.MeanMs()),
				ftoa(x.QuantileMs(50)), ftoa(x.QuantileMs(95)), ftoa(x.QuantileMs(99)), ftoa(x.QuantileMs(100))})
		}
	}
	return d.writeCSV(filepath.Join("runs", id, "tenants.csv"),
		[]string{"run_id", "tenant", "txn", "committed", "failed", "failed_by_class", "rollbacks", "retries", "throughput_tps",
			"latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms"}, rows)
}

// WriteSeries writes runs/<id>/timeseries.csv: a row per second, tenant
// and transaction type ("all" for every type together).
func (d *Dir) WriteSeries(id string, res *driver.Result) error {
	rows := make([][]string, 0, len(res.Series))
	for _, r := range res.Series {
		rows = append(rows, []string{strconv.FormatInt(r.Second, 10), r.Tenant, r.Txn, strconv.FormatBool(r.Warmup),
			strconv.FormatInt(r.Committed, 10), strconv.FormatInt(r.Failed, 10),
			ftoa(r.MeanMs), ftoa(r.P99Ms)})
	}
	return d.writeCSV(filepath.Join("runs", id, "timeseries.csv"),
		[]string{"second", "tenant", "txn", "warmup", "committed", "failed", "latency_mean_ms", "latency_p99_ms"}, rows)
}
