package report

import "strconv"

// cpuSplitTable is Oracle 2014, Table 5 for every run: the CPU of the
// servers' background processes and of the tenants' backends (foreground)
// as shares of the host, for the run and for each of its instances, beside
// the memory footprint per tenant of Table 2. From results.csv and
// summary.json; nil when no run has the shares (not monitored, or results
// older than them).
func (e *experiment) cpuSplitTable() *table {
	t := newTable("CPU of background and foreground processes", "run", "model", "tenants", "instance",
		"background (% host)", "foreground (% host)", "servers (% host)", "background / servers (%)",
		"memory footprint per tenant (MB)", "private memory per tenant (MB)").numbers(2, 4, 5, 6, 7, 8, 9)
	for _, r := range e.runs {
		if r.summary == nil || r.summary.Provider.CPUServersPct == nil {
			continue
		}
		a := r.summary.Provider
		var mem [2]string
		for i, k := range []string{"mem_footprint_per_tenant_mb", "mem_tenant_private_mb"} {
			if v, ok := r.row.Extra[k]; ok {
				mem[i] = fmtNum(v)
			}
		}
		t.Rows = append(t.Rows, []string{r.row.RunID, r.row.Model, strconv.Itoa(r.row.Tenants), "(all)",
			optPct(a.CPUBackgroundPct), optPct(a.CPUForegroundPct), optPct(a.CPUServersPct),
			ratioPct(a.CPUBackgroundPct, a.CPUServersPct), mem[0], mem[1]})
		if len(r.summary.Instances) < 2 {
			continue // the run's row is the instance's
		}
		for _, in := range r.summary.Instances {
			t.Rows = append(t.Rows, []string{r.row.RunID, r.row.Model, strconv.Itoa(len(in.Tenants)), in.Name,
				optPct(in.CPUBackgroundPct), optPct(in.CPUForegroundPct), optPct(in.CPUPct),
				ratioPct(in.CPUBackgroundPct, in.CPUPct), "", ""})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Note = "Oracle 2014, Table 5: the CPU of the servers' background processes (checkpointer, background writer, " +
		"walwriter, autovacuum, logger...) and of the tenants' own backends (foreground), over the measured workload, " +
		"in percent of the machine's CPUs (results.csv cpu_background_pct, cpu_foreground_pct, cpu_servers_pct; per " +
		"instance from summary.json). A server per tenant pays for its background processes once per tenant; the " +
		"shared models once per server. The servers' share holds both and the monitor's own backend; unlike " +
		"Oracle's system CPU it leaves out the kernel's work outside the servers' processes. Memory footprint per " +
		"tenant: Oracle 2014, Table 2 (background processes' private memory and shared memory but the buffer cache, " +
		"over the tenants; docs/metrics.md). Private memory per tenant: what each tenant's own sessions hold " +
		"(Pss_Anon of its backends), in any model; the buffer cache, shared, is in neither."
	return t
}

func optPct(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

// ratioPct is a as a percentage of b, empty when either is unknown or b
// is 0.
func ratioPct(a, b *float64) string {
	if a == nil || b == nil || *b == 0 {
		return ""
	}
	return strconv.FormatFloat(100**a / *b, 'f', 0, 64)
}
