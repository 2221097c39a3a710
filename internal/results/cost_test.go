package results

import (
	"math"
	"testing"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPricedResources(t *testing.T) {
	limited := []Instance{{LimitsEnforced: true, CPUs: 1, MemoryBytes: 2 << 30}, {LimitsEnforced: true, CPUs: 1, MemoryBytes: 2 << 30}}
	cpuS, mem := 3.0, 512.0
	// Limits enforced on every instance: the package they were given.
	p, ok := PricedResources(limited, &cpuS, &mem, 30)
	if !ok || p.VCores != 2 || p.MemoryGB != 4 || p.CPUFrom != "limit" || p.MemoryFrom != "limit" {
		t.Errorf("limited: %+v %v", p, ok)
	}
	// No limits: 3 CPU s in 30 s is 0.1 vCore on average; the peak memory.
	p, ok = PricedResources([]Instance{{LimitsEnforced: true}}, &cpuS, &mem, 30)
	if !ok || !near(p.VCores, 0.1) || p.MemoryGB != 0.5 || p.CPUFrom != "measured" || p.MemoryFrom != "measured" {
		t.Errorf("unlimited: %+v %v", p, ok)
	}
	// A CPU limit only, or limits the machine could not enforce.
	p, ok = PricedResources([]Instance{{LimitsEnforced: true, CPUs: 1.5}}, &cpuS, &mem, 30)
	if !ok || p.VCores != 1.5 || p.CPUFrom != "limit" || p.MemoryFrom != "measured" {
		t.Errorf("cpu limit only: %+v %v", p, ok)
	}
	p, ok = PricedResources([]Instance{{CPUs: 1.5, MemoryBytes: 1 << 30}}, &cpuS, &mem, 30)
	if !ok || p.CPUFrom != "measured" || p.MemoryFrom != "measured" {
		t.Errorf("limits not enforced: %+v %v", p, ok)
	}
	// Neither limited nor monitored: nothing to price.
	if _, ok := PricedResources([]Instance{{}}, nil, nil, 30); ok {
		t.Error("priced an unmonitored run without limits")
	}
	if _, ok := PricedResources(limited[:1], nil, nil, 30); !ok {
		t.Error("a limited run is priced unmonitored")
	}
}

// TestPrice is a worked example at Zhang et al.'s (2025) Table III prices: 2
// vCores and 4 GB cost 2 x 0.1847 / 60 + 4 x 0.0095 / 60 = 0.00679 $/min;
// 1000 TPS gives a P-Score of 1000 / 0.00679 = 147275.4; tenants at 400 and
// 600 TPS a T-Score of sqrt(400 x 600) / 0.00679 = 72149.9.
func TestPrice(t *testing.T) {
	a := Aggregate{TPS: 1000}
	a.Price(Priced{VCores: 2, MemoryGB: 4, CPUFrom: "limit", MemoryFrom: "limit"}, metrics.DefaultPrices(), []float64{400, 600})
	if a.RUC == nil || !near(*a.RUC, 0.00679) || !near(a.Priced.CPUUSDPerMin, 2*0.1847/60) || !near(a.Priced.MemoryUSDPerMin, 4*0.0095/60) {
		t.Fatalf("cost %+v %+v", a.RUC, a.Priced)
	}
	if a.PScore == nil || math.Abs(*a.PScore-147275.405) > 0.01 || a.TScore == nil || math.Abs(*a.TScore-72149.919) > 0.01 {
		t.Errorf("P-Score %v, T-Score %v", deref(a.PScore), deref(a.TScore))
	}
	// Storage and IO add Table III's prices: 100 GB at $0.000853/h and
	// 5000 IOPS at $0.00015 per 100 per hour, per minute.
	storage, iops := 100.0, 5000.0
	c := Aggregate{TPS: 1000}
	c.Price(Priced{VCores: 2, MemoryGB: 4, StorageGB: &storage, IOPS: &iops}, metrics.DefaultPrices(), nil)
	want := 0.00679 + 100*0.000853/60 + 50*0.00015/60
	if c.RUC == nil || !near(*c.RUC, want) || !near(c.Priced.StorageUSDPerMin, 100*0.000853/60) || !near(c.Priced.IOUSDPerMin, 50*0.00015/60) {
		t.Errorf("with storage and IO: cost %v (want %v), %+v", deref(c.RUC), want, c.Priced)
	}
	// Free resources: a cost of 0, no score.
	b := Aggregate{TPS: 1000}
	b.Price(Priced{VCores: 2, MemoryGB: 4}, metrics.Prices{}, []float64{1000})
	if b.RUC == nil || *b.RUC != 0 || b.PScore != nil || b.TScore != nil {
		t.Errorf("free: cost %v, scores %v %v", b.RUC, b.PScore, b.TScore)
	}
}

// TestFootprint: 12 MiB of background private memory and 8 MiB of shared
// memory but the buffer cache, over 4 tenants, is 5 MiB each.
func TestFootprint(t *testing.T) {
	var a Aggregate
	a.Footprint(12, 8, 4)
	if a.MemFootprintMB == nil || *a.MemFootprintMB != 5 {
		t.Errorf("footprint %v", a.MemFootprintMB)
	}
	var b Aggregate
	b.Footprint(-1, 8, 4)
	if b.MemFootprintMB != nil {
		t.Error("a footprint from an unknown part")
	}
}

// TestMarginal: 700 MiB with 4 tenants on a server that used 300 MiB
// with none is 100 MiB each; an unknown memory leaves it absent.
func TestMarginal(t *testing.T) {
	var a Aggregate
	a.Marginal(700, 300, 4)
	if a.MemMarginalMB == nil || *a.MemMarginalMB != 100 {
		t.Errorf("marginal %v", a.MemMarginalMB)
	}
	var b Aggregate
	b.Marginal(700, -1, 4)
	if b.MemMarginalMB != nil {
		t.Error("a marginal memory from an unknown base")
	}
}
