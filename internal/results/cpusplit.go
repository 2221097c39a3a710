package results

// The CPU of background and foreground processes as shares of the host,
// as Oracle 2014, Table 5 splits it: background processes (checkpointer,
// walwriter, autovacuum, ...) serve every tenant of their server, so a
// model with fewer servers spends less on them and leaves more to the
// tenants' own backends (the foreground).

// CPUSplit is one instance's CPU seconds over the measured workload, split
// by the monitor's attribution (docs/monitor.md, CPU per tenant).
type CPUSplit struct {
	Instance string
	// Background: the server's own processes (postmaster, checkpointer,
	// background writer, walwriter, autovacuum, logger, archiver...).
	// Foreground: the tenants' client backends and parallel workers.
	// Total: every process of the instance (the cgroup's, or the process
	// tree's), which also holds the monitor's backend, client backends
	// of no tenant and what exited between rounds.
	Background, Foreground, Total float64
	// Whole says only Total is known: the whole server's, measured by
	// what runs it (a pod's kubelet), which sees no process of it.
	Whole bool
}

// cpuShares sets the shares of the host's CPU (percent of seconds x
// hostCPUs) on the run and on each of its instances. Nothing is set when
// the CPUs or the measured time are unknown.
func cpuShares(sum *Summary, split []CPUSplit, hostCPUs int, seconds float64) {
	if hostCPUs <= 0 || seconds <= 0 || len(split) == 0 {
		return
	}
	capacity := seconds * float64(hostCPUs) / 100
	var bg, fg, all float64
	whole := false
	for _, s := range split {
		bg, fg, all = bg+s.Background, fg+s.Foreground, all+s.Total
		whole = whole || s.Whole
		for i := range sum.Instances {
			if sum.Instances[i].Name == s.Instance {
				in := &sum.Instances[i]
				in.CPUPct = ptr(s.Total / capacity)
				if !s.Whole {
					in.CPUBackgroundPct, in.CPUForegroundPct = ptr(s.Background/capacity), ptr(s.Foreground/capacity)
				}
			}
		}
	}
	a := &sum.Provider
	a.CPUServersPct = ptr(all / capacity)
	if !whole { // a split of some servers only is no split of the run
		a.CPUBackgroundPct, a.CPUForegroundPct = ptr(bg/capacity), ptr(fg/capacity)
	}
}

// privateMemory sets each tenant's sessions' private memory and their
// mean over the tenants that have it.
func privateMemory(sum *Summary, anon map[string]float64) {
	var total float64
	var n int
	for i := range sum.Tenant {
		if v, ok := anon[sum.Tenant[i].Tenant]; ok {
			sum.Tenant[i].MemPrivateMB = ptr(v)
			total += v
			n++
		}
	}
	if n > 0 {
		sum.Provider.MemTenantPrivateMB = ptr(total / float64(n))
	}
}

// tenantIOPS sets each instance's IO operations per second where counted,
// and a tenant's where its server holds it alone (Oracle 2014, Table 10,
// per tenant): a shared server's operations are its background
// processes' flushes of every tenant's pages as much as the tenants' own,
// and no per-process counter counts operations, so there a tenant has
// none.
func tenantIOPS(sum *Summary, ops map[string]int64, seconds float64) {
	if seconds <= 0 {
		return
	}
	for i := range sum.Instances {
		in := &sum.Instances[i]
		n, ok := ops[in.Name]
		if !ok || n < 0 {
			continue
		}
		iops := float64(n) / seconds
		in.IOPS = ptr(iops)
		if len(in.Tenants) != 1 {
			continue
		}
		for k := range sum.Tenant {
			if sum.Tenant[k].Tenant == in.Tenants[0] {
				sum.Tenant[k].IOPS = ptr(iops)
			}
		}
	}
}

// tenantIO sets each tenant's IO per second over the measured workload:
// the blocks the DBMS counts for its database or schema, in every model
// that keeps a tenant's objects apart, and its server's block IO bytes
// where that server holds it alone (as tenantIOPS, whose reasons hold).
func tenantIO(sum *Summary, m *Monitored, seconds float64) {
	if seconds <= 0 {
		return
	}
	alone := map[string]string{} // tenant -> its server, where alone
	for _, in := range sum.Instances {
		if len(in.Tenants) == 1 {
			alone[in.Tenants[0]] = in.Name
		}
	}
	for k := range sum.Tenant {
		t := &sum.Tenant[k]
		if v, ok := m.TenantBlksRead[t.Tenant]; ok {
			t.BlksReadPS = ptr(v / seconds)
		}
		if v, ok := m.TenantBlksHit[t.Tenant]; ok {
			t.BlksHitPS = ptr(v / seconds)
		}
		if b, ok := m.InstanceIOBytes[alone[t.Tenant]]; ok && alone[t.Tenant] != "" {
			t.IOReadBytesPS, t.IOWriteBytesPS = ptr(float64(b[0])/seconds), ptr(float64(b[1])/seconds)
		}
	}
}
