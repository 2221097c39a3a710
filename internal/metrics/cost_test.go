package metrics

import (
	"errors"
	"math"
	"testing"
)

func TestDefaultPricesIsAValue(t *testing.T) {
	p := DefaultPrices()
	p.CPUPerVCoreHour = 1
	if DefaultPrices().CPUPerVCoreHour != 0.1847 {
		t.Fatal("changing a returned Prices changed the defaults")
	}
}

// TestResourceUnitCostTableVII recomputes Zhang et al.'s (2025) Table VII
// "Cost" column (dollars per minute, printed rounded) from its "Total
// Resources" column and Table III's prices.
func TestResourceUnitCostTableVII(t *testing.T) {
	tests := []struct {
		name    string
		r       Resources
		perHour float64 // hand-computed from Table III
		printed float64 // Table VII, per minute
		tol     float64 // half the printed last digit
	}{
		{"CDB2", Resources{VCores: 12, MemoryGB: 36, StorageGB: 189, IOPS: 54000, TCPGbps: 10}, 3.570217, 0.06, 0.005},
		{"CDB3", Resources{VCores: 12, MemoryGB: 48, StorageGB: 63, IOPS: 3000, TCPGbps: 10}, 3.500239, 0.058, 0.0005},
		{"AWS RDS", Resources{VCores: 12, MemoryGB: 48, StorageGB: 126, IOPS: 3000, TCPGbps: 30}, 5.093178, 0.085, 0.0005},
		{"CDB1", Resources{VCores: 12, MemoryGB: 96, StorageGB: 378, IOPS: 3000, TCPGbps: 30}, 5.764134, 0.096, 0.0005},
		{"CDB4", Resources{VCores: 12, MemoryGB: 120, StorageGB: 189, IOPS: 84000, RDMAGbps: 30}, 10.570017, 0.176, 0.0005},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ResourceUnitCost(tc.r, DefaultPrices())
			if err != nil {
				t.Fatal(err)
			}
			check(t, c.Total(), nil, tc.perHour, 1e-9, nil)
			check(t, c.PerMinute().Total(), nil, tc.printed, tc.tol, nil)
		})
	}
}

// TestResourceUnitCostTableV recomputes Zhang et al.'s (2025) Table V
// per-resource cost columns (dollars per minute, printed rounded). Its
// "Resource Cost" column is not the sum of these columns, so it is not
// checked here.
func TestResourceUnitCostTableV(t *testing.T) {
	tests := []struct {
		name string
		r    Resources
		want Cost // as printed
		tol  Cost
	}{
		{"AWS RDS", Resources{VCores: 4, MemoryGB: 16, StorageGB: 42, IOPS: 1000, TCPGbps: 10},
			Cost{CPU: 0.0123, Memory: 0.0025, Storage: 0.0006, IO: 0.000025, Network: 0.0128},
			Cost{CPU: 5e-5, Memory: 5e-5, Storage: 5e-5, IO: 5e-7, Network: 5e-5}},
		{"CDB1", Resources{VCores: 4, MemoryGB: 32, StorageGB: 126, IOPS: 1000, TCPGbps: 10},
			Cost{CPU: 0.0123, Memory: 0.0051, Storage: 0.0018, IO: 0.000025, Network: 0.0128},
			Cost{CPU: 5e-5, Memory: 5e-5, Storage: 5e-5, IO: 5e-7, Network: 5e-5}},
		{"CDB2", Resources{VCores: 4, MemoryGB: 20, StorageGB: 63, IOPS: 327680, TCPGbps: 10},
			Cost{CPU: 0.0123, Memory: 0.0032, Storage: 0.0009, IO: 0.008192, Network: 0.0128},
			Cost{CPU: 5e-5, Memory: 5e-5, Storage: 5e-5, IO: 5e-7, Network: 5e-5}},
		{"CDB4", Resources{VCores: 4, MemoryGB: 40, StorageGB: 63, IOPS: 84000, RDMAGbps: 10},
			Cost{CPU: 0.0123, Memory: 0.0063, Storage: 0.0009, IO: 0.0021, Network: 0.0385},
			Cost{CPU: 5e-5, Memory: 5e-5, Storage: 5e-5, IO: 5e-5, Network: 5e-5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ResourceUnitCost(tc.r, DefaultPrices())
			if err != nil {
				t.Fatal(err)
			}
			m := c.PerMinute()
			for _, f := range []struct {
				name           string
				got, want, tol float64
			}{
				{"CPU", m.CPU, tc.want.CPU, tc.tol.CPU},
				{"memory", m.Memory, tc.want.Memory, tc.tol.Memory},
				{"storage", m.Storage, tc.want.Storage, tc.tol.Storage},
				{"IO", m.IO, tc.want.IO, tc.tol.IO},
				{"network", m.Network, tc.want.Network, tc.tol.Network},
			} {
				if !near(f.got, f.want, f.tol) {
					t.Errorf("%s: %.7g, printed %.7g", f.name, f.got, f.want)
				}
			}
		})
	}
}

func TestResourceUnitCostOverride(t *testing.T) {
	p := DefaultPrices()
	p.CPUPerVCoreHour = 0.16 // Zhang et al. 2025, section III-G: CDB3's actual CPU price
	c, err := ResourceUnitCost(Resources{VCores: 2}, p)
	check(t, c.CPU, err, 0.32, 1e-12, nil)
	check(t, c.Total(), nil, 0.32, 1e-12, nil)
}

func TestResourceUnitCostErrors(t *testing.T) {
	neg := DefaultPrices()
	neg.IOPSPer100Hour = -1
	nanPrice := DefaultPrices()
	nanPrice.MemoryPerGBHour = math.NaN()
	for name, tc := range map[string]struct {
		r   Resources
		p   Prices
		err error
	}{
		"negative vcores": {Resources{VCores: -1}, DefaultPrices(), ErrNegative},
		"infinite IOPS":   {Resources{IOPS: math.Inf(1)}, DefaultPrices(), ErrNotFinite},
		"negative price":  {Resources{VCores: 1}, neg, ErrNegative},
		"NaN price":       {Resources{VCores: 1}, nanPrice, ErrNotFinite},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ResourceUnitCost(tc.r, tc.p)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !math.IsNaN(c.Total()) {
				t.Fatalf("cost with error: %+v", c)
			}
		})
	}
}

func TestPScore(t *testing.T) {
	tests := []struct {
		name      string
		tps, cost float64
		want, tol float64
		wantErr   error
	}{
		// Zhang et al. 2025, Table V and section III-B: AWS RDS, RW, 12382
		// TPS at $0.0437 per minute; P-Score 283350 (the cost is printed
		// rounded).
		{"Zhang et al. 2025 AWS RDS RW", 12382, 0.0437, 283350, 15, nil},
		// CDB4, RO: "the highest TPS of 36995" at $0.0797; P-Score 464181.
		{"Zhang et al. 2025 CDB4 RO", 36995, 0.0797, 464181, 5, nil},
		{"hand", 100, 0.5, 200, 0, nil},
		{"no throughput", 0, 0.5, 0, 0, nil},
		{"free", 100, 0, 0, 0, ErrNotPositive},
		{"negative TPS", -1, 0.5, 0, 0, ErrNegative},
		{"NaN cost", 1, nan, 0, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PScore(tc.tps, tc.cost)
			check(t, got, err, tc.want, tc.tol, tc.wantErr)
		})
	}
}

func TestTScore(t *testing.T) {
	tests := []struct {
		name       string
		tps, costs []float64
		want, tol  float64
		wantErr    error
	}{
		// Geometric mean 2000 over total cost 0.04.
		{"hand", []float64{1000, 4000}, []float64{0.01, 0.03}, 50000, 1e-9, nil},
		// Zhang et al. 2025, Table VII, CDB2, pattern (b): TPS 6467 (the
		// tenants' geometric mean), cost $0.06 per minute, T-Score 107799.
		// The cost is printed rounded (0.0595 from Table III), hence the
		// tolerance.
		{"Zhang et al. 2025 CDB2 (b)", []float64{6467, 6467, 6467}, []float64{0.02, 0.02, 0.02}, 107799, 20, nil},
		// AWS RDS, pattern (a): 13489 TPS at $0.085, T-Score 158702.
		{"Zhang et al. 2025 AWS RDS (a)", []float64{13489, 13489, 13489}, []float64{0.085 / 3, 0.085 / 3, 0.085 / 3}, 158702, 10, nil},
		{"starved tenant", []float64{0, 5}, []float64{1, 1}, 0, 0, nil},
		{"single tenant", []float64{100}, []float64{0.5}, 200, 1e-9, nil},
		{"empty", nil, nil, 0, 0, ErrEmpty},
		{"no costs", []float64{1}, nil, 0, 0, ErrEmpty},
		{"lengths differ", []float64{1, 2}, []float64{1}, 0, 0, ErrLength},
		{"zero cost", []float64{1, 2}, []float64{0, 0}, 0, 0, ErrNotPositive},
		{"negative TPS", []float64{-1}, []float64{1}, 0, 0, ErrNegative},
		{"negative cost", []float64{1, 1}, []float64{2, -1}, 0, 0, ErrNegative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TScore(tc.tps, tc.costs)
			check(t, got, err, tc.want, tc.tol, tc.wantErr)
		})
	}
}
