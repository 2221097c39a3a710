package results

import (
	"math"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Priced is what Zhang et al.'s (2025) resource unit cost of a run priced,
// and from where (summary.json; docs/metrics.md).
type Priced struct {
	VCores   float64 `json:"vcores"`
	MemoryGB float64 `json:"memory_gb"`
	// CPUFrom and MemoryFrom say where each quantity comes from: "limit"
	// (the instances' enforced limits: the package they were given) or
	// "measured" (cpu_s / workload seconds, mem_peak_mb / 1024).
	CPUFrom    string `json:"cpu_from"`
	MemoryFrom string `json:"memory_from"`
	// StorageGB is the size of the instances' data directories at the end
	// of the workload phase (a local server is given no storage package:
	// it is priced by what it holds); IOPS the block IO operations per
	// second of the workload phase, absent where the monitor cannot count
	// them (cgroup v1, no cgroup).
	StorageGB *float64 `json:"storage_gb,omitempty"`
	IOPS      *float64 `json:"iops,omitempty"`
	// The cost per resource in dollars per minute.
	CPUUSDPerMin     float64 `json:"cpu_usd_per_min"`
	MemoryUSDPerMin  float64 `json:"memory_usd_per_min"`
	StorageUSDPerMin float64 `json:"storage_usd_per_min"`
	IOUSDPerMin      float64 `json:"io_usd_per_min"`
}

// PricedResources picks the resource package Zhang et al. (2025) price (section
// II-F: "the resource cost" of a "resource package" of vCores and GB; its
// Tables V and VII list what each system was given): the sum of the
// instances' limits when every instance has one enforced, else what the
// instances used in the measured workload, as Zhang et al. (2025) price their
// serverless systems by the "average consumed resource per second"
// (section III-C, Table VI): cpuS / seconds vCores and memPeakMB / 1024 GB
// (the peak: memory is held, not consumed at a rate). CPU and memory are
// picked apart; ok is false when either is unknown (a run neither limited
// nor monitored).
func PricedResources(insts []Instance, cpuS, memPeakMB *float64, seconds float64) (p Priced, ok bool) {
	var cpus, memBytes float64
	allCPU, allMem := len(insts) > 0, len(insts) > 0
	for _, in := range insts {
		allCPU = allCPU && in.LimitsEnforced && in.CPUs > 0
		allMem = allMem && in.LimitsEnforced && in.MemoryBytes > 0
		cpus += in.CPUs
		memBytes += float64(in.MemoryBytes)
	}
	switch {
	case allCPU:
		p.VCores, p.CPUFrom = cpus, "limit"
	case cpuS != nil && seconds > 0:
		p.VCores, p.CPUFrom = *cpuS/seconds, "measured"
	default:
		return Priced{}, false
	}
	switch {
	case allMem:
		p.MemoryGB, p.MemoryFrom = memBytes/(1<<30), "limit"
	case memPeakMB != nil:
		p.MemoryGB, p.MemoryFrom = *memPeakMB/1024, "measured"
	default:
		return Priced{}, false
	}
	return p, true
}

// Price adds the resource unit cost of p at prices (Zhang et al. 2025,
// Table III unless the spec's cost says otherwise) and the scores: P-Score =
// TPS / cost per minute (Zhang et al. 2025, eq. 1), T-Score = geometric mean
// of the tenants' TPS / the sum of their costs (eq. 7). The tenants share the
// run's package, so their costs sum to the run's: each is given an equal
// share, which is all eq. 7 needs (only the sum enters). With a zero cost
// (free prices) the scores stay absent.
func (a *Aggregate) Price(p Priced, prices metrics.Prices, tenantTPS []float64) {
	r := metrics.Resources{VCores: p.VCores, MemoryGB: p.MemoryGB}
	if p.StorageGB != nil {
		r.StorageGB = *p.StorageGB
	}
	if p.IOPS != nil {
		r.IOPS = *p.IOPS
	}
	c, err := metrics.ResourceUnitCost(r, prices)
	if err != nil {
		return
	}
	c = c.PerMinute()
	p.CPUUSDPerMin, p.MemoryUSDPerMin, p.StorageUSDPerMin, p.IOUSDPerMin = c.CPU, c.Memory, c.Storage, c.IO
	a.Priced, a.RUC = &p, ptr(c.Total())
	if s, err := metrics.PScore(a.TPS, c.Total()); err == nil {
		a.PScore = ptr(s)
	}
	if len(tenantTPS) > 0 {
		costs := make([]float64, len(tenantTPS))
		for i := range costs {
			costs[i] = c.Total() / float64(len(costs))
		}
		if s, err := metrics.TScore(tenantTPS, costs); err == nil && !math.IsNaN(s) {
			a.TScore = ptr(s)
		}
	}
}

// Footprint adds Oracle's (2014) memory footprint per tenant (Table 2): the
// background processes' private memory (Pss_Anon, MiB) plus the shared
// memory but the buffer cache (MiB), over the tenants. Negative inputs are
// unknown figures: it stays absent.
func (a *Aggregate) Footprint(backgroundMB, sharedMB float64, tenants int) {
	if backgroundMB < 0 || sharedMB < 0 {
		return
	}
	if f, err := metrics.MemoryFootprintPerTenant(backgroundMB, sharedMB, tenants); err == nil {
		a.MemFootprintMB = ptr(f)
	}
}

// Marginal adds the memory a tenant adds (metrics.MarginalMemoryPerTenant):
// the instances' memory with the tenants (MiB) less that before any tenant
// was set up (MiB; 0 for the instance model, where each tenant brings its
// server), over the tenants. Negative memories are unknown figures: it
// stays absent.
func (a *Aggregate) Marginal(withMB, baseMB float64, tenants int) {
	if m, err := metrics.MarginalMemoryPerTenant(withMB, baseMB, tenants); err == nil {
		a.MemMarginalMB = ptr(m)
	}
}
