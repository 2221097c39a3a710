package results

import (
	"path/filepath"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Totals turns the workload's measurements into per-tenant totals.
func Totals(res *Workload) []TenantTotals {
	secs := res.Duration.Seconds()
	var out []TenantTotals
	for _, t := range res.Tenants {
		all := t.All
		tt := TenantTotals{Tenant: t.Name, Committed: all.Committed, Failed: all.FailedTotal(), FailedBy: all.Failed,
			MeanMs: all.MeanMs, P95Ms: all.P95Ms, P99Ms: all.P99Ms, ConnLost: t.ConnLost, Failures: t.Failures}
		if secs > 0 {
			tt.TPS = float64(all.Committed) / secs
			tt.TPM, _ = metrics.TPM(all.Committed+all.Rollbacks, secs)
			if no, ok := newOrders(t); ok {
				n, _ := metrics.NOPM(no, secs)
				tt.NOPM = &n
			}
		}
		if o := t.Open; o != nil {
			tt.Open = &OpenTotals{TargetRate: o.TargetRate, Arrivals: o.Arrivals, Queued: o.Queued, Dropped: o.Dropped,
				AchievedRate: o.AchievedRate, ServiceMeanMs: all.ServiceMeanMs, ServiceP99Ms: all.ServiceP99Ms}
		}
		out = append(out, tt)
	}
	return out
}

// newOrders is a tenant's committed TPC-C New-Orders, if its workload
// has the transaction (named new_order).
func newOrders(t TenantWorkload) (int64, bool) {
	for _, x := range t.Txns {
		if x.Txn == "new_order" {
			return x.Committed, true
		}
	}
	return 0, false
}

// WriteTenants writes runs/<id>/tenants.csv: a row per tenant and
// transaction type, and an "all" row per tenant. The open-load columns
// are filled in the "all" row of an open load, empty
// otherwise. tpm is per row; nopm is on the new_order and "all" rows of
// workloads with New-Order; cpu_s, from tenantCPU (the monitor's
// attribution, nil when unmonitored), on the "all" row. class is the
// tenant's class on every row, sla_met whether it met its SLA on the "all"
// row, both from totals (the summary's; empty without classes or SLA), and
// mem_private_mb, its sessions' private memory, iops, its server's where
// it holds the tenant alone, its IO per second (blocks the DBMS counts
// for it, its server's bytes where alone: tenantIO), and pool_wait_ms, its
// mean wait for a pooler's server connection, on the "all" row.
func (d *Dir) WriteTenants(id string, res *Workload, tenantCPU map[string]float64, totals []TenantTotals) error {
	secs := res.Duration.Seconds()
	byName := make(map[string]*TenantTotals, len(totals))
	for i := range totals {
		byName[totals[i].Tenant] = &totals[i]
	}
	var rows [][]string
	for _, t := range res.Tenants {
		var class, met, mem, iops, wait string
		io := make([]string, 4) // blks_read_ps, blks_hit_ps, io_read_bytes_ps, io_write_bytes_ps
		if tt, ok := byName[t.Name]; ok {
			class = tt.Class
			if tt.MemPrivateMB != nil {
				mem = ftoa(*tt.MemPrivateMB)
			}
			if tt.IOPS != nil {
				iops = ftoa(*tt.IOPS)
			}
			for i, v := range []*float64{tt.BlksReadPS, tt.BlksHitPS, tt.IOReadBytesPS, tt.IOWriteBytesPS} {
				if v != nil {
					io[i] = ftoa(*v)
				}
			}
			if tt.PoolWaitMs != nil {
				wait = ftoa(*tt.PoolWaitMs)
			}
			if tt.SLAMet != nil {
				met = strconv.FormatBool(*tt.SLAMet)
			}
		}
		for _, x := range append(append([]TxnFigures{}, t.Txns...), t.All) {
			tps := 0.0
			if secs > 0 {
				tps = float64(x.Committed) / secs
			}
			row := []string{id, t.Name, x.Txn, strconv.FormatInt(x.Committed, 10),
				strconv.FormatInt(x.FailedTotal(), 10), classes(x.Failed), strconv.FormatInt(x.Rollbacks, 10),
				strconv.FormatInt(x.Retries, 10), ftoa(tps), ftoa(x.MeanMs),
				ftoa(x.P50Ms), ftoa(x.P95Ms), ftoa(x.P99Ms), ftoa(x.MaxMs)}
			open := make([]string, 7)
			if o := t.Open; o != nil && x.Txn == "all" {
				open = []string{ftoa(o.TargetRate), strconv.FormatInt(o.Arrivals, 10), strconv.FormatInt(o.Queued, 10),
					strconv.FormatInt(o.Dropped, 10), ftoa(o.AchievedRate), ftoa(x.ServiceMeanMs), ftoa(x.ServiceP99Ms)}
			}
			var tpm, nopm, cpu string
			if secs > 0 {
				tpm = ftoa(float64(x.Committed+x.Rollbacks) * 60 / secs)
				if no, ok := newOrders(t); ok && (x.Txn == "all" || x.Txn == "new_order") {
					nopm = ftoa(float64(no) * 60 / secs)
				}
			}
			if c, ok := tenantCPU[t.Name]; ok && x.Txn == "all" {
				cpu = ftoa(c)
			}
			slaCell, memCell, iopsCell, waitCell := "", "", "", ""
			ioCells := make([]string, len(io))
			if x.Txn == "all" {
				slaCell, memCell, iopsCell, waitCell = met, mem, iops, wait
				copy(ioCells, io)
			}
			row = append(append(append(row, open...), tpm, nopm, cpu, class, slaCell, memCell, iopsCell), ioCells...)
			rows = append(rows, append(row, waitCell))
		}
	}
	return d.writeCSV(filepath.Join("runs", id, "tenants.csv"),
		[]string{"run_id", "tenant", "txn", "committed", "failed", "failed_by_class", "rollbacks", "retries", "throughput_tps",
			"latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms",
			"target_rate", "arrivals", "queued", "dropped", "achieved_rate", "service_mean_ms", "service_p99_ms",
			"tpm", "nopm", "cpu_s", "class", "sla_met", "mem_private_mb", "iops",
			"blks_read_ps", "blks_hit_ps", "io_read_bytes_ps", "io_write_bytes_ps", "pool_wait_ms"}, rows)
}

// WriteSeries writes runs/<id>/timeseries.csv: a row per second, tenant
// and transaction type ("all" for every type together); and, for a run
// with a schedule, runs/<id>/slots.csv (WriteSlots).
func (d *Dir) WriteSeries(id string, res *Workload) error {
	open := false
	for _, t := range res.Tenants {
		open = open || t.Open != nil
	}
	rows := make([][]string, 0, len(res.Series))
	for _, r := range res.Series {
		row := []string{strconv.FormatInt(r.Second, 10), r.Tenant, r.Txn, strconv.FormatBool(r.Warmup),
			strconv.FormatInt(r.Committed, 10), strconv.FormatInt(r.Failed, 10),
			ftoa(r.MeanMs), ftoa(r.P99Ms), "", ""}
		if open && r.Txn == "all" {
			row[8], row[9] = strconv.FormatInt(r.Arrivals, 10), strconv.FormatInt(r.Dropped, 10)
		}
		rows = append(rows, row)
	}
	err := d.writeCSV(filepath.Join("runs", id, "timeseries.csv"),
		[]string{"second", "tenant", "txn", "warmup", "committed", "failed", "latency_mean_ms", "latency_p99_ms",
			"arrivals", "dropped"}, rows)
	if err != nil || res.Slots == nil {
		return err
	}
	return d.WriteSlots(id, res)
}

// WriteSlots writes runs/<id>/slots.csv: a row per tenant and slot of the
// run's schedule, with what the schedule asked for (target) and what was
// measured (Zhang et al. 2025, section II-C, change the load once per slot).
func (d *Dir) WriteSlots(id string, res *Workload) error {
	open := false
	for _, t := range res.Tenants {
		open = open || t.Open != nil
	}
	rows := make([][]string, 0, len(res.Slots))
	for _, s := range res.Slots {
		secs := (s.End - s.Start).Seconds()
		tps := 0.0
		if secs > 0 {
			tps = float64(s.Committed) / secs
		}
		row := []string{id, s.Tenant, strconv.Itoa(s.Slot), ftoa(s.Start.Seconds()), ftoa(s.End.Seconds()),
			strconv.FormatBool(s.Warmup), ftoa(s.Target), strconv.FormatInt(s.Committed, 10), strconv.FormatInt(s.Failed, 10),
			strconv.FormatInt(s.Rollbacks, 10), ftoa(tps), ftoa(s.MeanMs), ftoa(s.P50Ms), ftoa(s.P95Ms), ftoa(s.P99Ms),
			ftoa(s.MaxMs), "", "", "", "", ""}
		if open {
			achieved := 0.0
			if secs > 0 {
				achieved = float64(s.Arrivals-s.Dropped) / secs
			}
			copy(row[16:], []string{strconv.FormatInt(s.Arrivals, 10), strconv.FormatInt(s.Dropped, 10),
				ftoa(achieved), ftoa(s.ServiceMeanMs), ftoa(s.ServiceP99Ms)})
		}
		rows = append(rows, row)
	}
	return d.writeCSV(filepath.Join("runs", id, "slots.csv"),
		[]string{"run_id", "tenant", "slot", "start_s", "end_s", "warmup", "target", "committed", "failed", "rollbacks",
			"throughput_tps", "latency_mean_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms",
			"arrivals", "dropped", "achieved_rate", "service_mean_ms", "service_p99_ms"}, rows)
}
