package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestManyTenantsDrawnAsDistribution: beyond 40 tenants the per-tenant
// figures are the tenants' distribution, one line per series, not a bar
// per tenant; up to 40 they stay bars.
func TestManyTenantsDrawnAsDistribution(t *testing.T) {
	for _, n := range []int{3, 1000} {
		r := &run{row: results.ResultRow{RunID: "001", Model: "schema", Tenants: n, Status: results.StatusOK}}
		for i := range n {
			r.tenants = append(r.tenants, results.TenantRow{Tenant: fmt.Sprintf("t%04d", i+1), Txn: "all", TPS: float64(i % 17)})
		}
		p := &point{model: "schema", tenants: n, series: "schema", label: "schema, n", runs: []*run{r}}
		e := &experiment{runs: []*run{r}, points: []*point{p}}
		f := e.perTenant("tenant-throughput", "Throughput per tenant", "Throughput (tx/s)", func(v tenantValue) float64 { return v.tps }, "throughput_tps")
		if f.Note != "" {
			t.Fatalf("%d tenants: %s", n, f.Note)
		}
		cdf := strings.Contains(f.Caption, "distribution")
		if cdf != (n > barTenants) {
			t.Errorf("%d tenants: caption %q", n, f.Caption)
		}
		svg := string(f.Img.svg)
		if n > barTenants && (strings.Contains(svg, "t0999") || !strings.Contains(svg, "Share of tenants")) {
			t.Errorf("%d tenants: the figure names tenants or lacks its axis", n)
		}
	}
}
