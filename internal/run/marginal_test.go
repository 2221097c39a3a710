package run

import (
	"context"
	"fmt"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestMarginalMemory runs monitored tpcb runs on real servers and checks
// the marginal memory per tenant (results.csv mem_marginal_per_tenant_mb):
// positive, within the peak, and in the schema model three loaded tenants
// add more memory than one. In the instance model each tenant's share is
// a whole server, at least Oracle's (2014) footprint of one.
func TestMarginalMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads tenants")
	}
	run := func(t *testing.T, model string, tenants int) results.Aggregate {
		ex := newExecution(t, fmt.Sprintf(`name: t
tenancy: {model: %s, tenants: %d}
workload: {name: tpcb, scale: 2, clients: 1, duration: 4s}
`, model, tenants))
		ex.opts.Monitor = true
		sum := ex.do(context.Background())
		if sum.Status != results.StatusOK {
			t.Fatalf("%s model, %d tenants: run failed: %s", model, tenants, sum.Error)
		}
		a := sum.Provider
		if a.MemMarginalMB == nil || a.MemPeakMB == nil || a.MemFootprintMB == nil {
			t.Fatalf("%s model, %d tenants: marginal %v, peak %v, footprint %v: want all measured",
				model, tenants, a.MemMarginalMB, a.MemPeakMB, a.MemFootprintMB)
		}
		m := *a.MemMarginalMB
		t.Logf("%s model, %d tenants: marginal %.1f MiB per tenant, peak %.1f MiB, footprint %.1f MiB per tenant",
			model, tenants, m, *a.MemPeakMB, *a.MemFootprintMB)
		// The mean with the tenants less the base is below the peak.
		if m <= 0 || m*float64(tenants) > *a.MemPeakMB {
			t.Errorf("%s model, %d tenants: marginal %v MiB per tenant; want positive and at most the peak %v MiB over the tenants",
				model, tenants, m, *a.MemPeakMB)
		}
		return a
	}
	one, three := run(t, "schema", 1), run(t, "schema", 3)
	// Each tenant's tables are written and read through the same server:
	// three add well over what one does (ideally three times as much).
	if added1, added3 := *one.MemMarginalMB, 3**three.MemMarginalMB; added3 < 2*added1 {
		t.Errorf("schema model: 3 tenants add %.1f MiB, 1 tenant %.1f MiB; want at least twice as much", added3, added1)
	}
	inst := run(t, "instance", 2)
	if *inst.MemMarginalMB < *inst.MemFootprintMB {
		t.Errorf("instance model: marginal %.1f MiB per tenant, below its server's footprint %.1f MiB",
			*inst.MemMarginalMB, *inst.MemFootprintMB)
	}
}
