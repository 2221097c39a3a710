package run

import (
	"context"
	"fmt"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestCPUSplit runs monitored tpcb runs on real servers and checks
// Oracle's (2014, Table 5) split of the servers' CPU: the background and
// foreground shares are measured for the run and for each instance, the
// tenants' backends did work, and background plus foreground is at most
// the servers' total (the rest is the monitor's backend and what exited
// between rounds); the instances' shares add up to the run's, and each
// server's tenants have theirs; each tenant's sessions' private memory is
// measured.
func TestCPUSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads tenants")
	}
	for _, model := range []string{"instance", "schema"} {
		t.Run(model, func(t *testing.T) {
			ex := newExecution(t, fmt.Sprintf(`name: t
tenancy: {model: %s, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 11s}
`, model))
			ex.opts.Monitor = true
			sum := ex.do(context.Background())
			if sum.Status != results.StatusOK {
				t.Fatalf("run failed: %s", sum.Error)
			}
			a := sum.Provider
			if a.CPUBackgroundPct == nil || a.CPUForegroundPct == nil || a.CPUServersPct == nil {
				t.Fatalf("shares background %v, foreground %v, servers %v: want all measured",
					a.CPUBackgroundPct, a.CPUForegroundPct, a.CPUServersPct)
			}
			bg, fg, all := *a.CPUBackgroundPct, *a.CPUForegroundPct, *a.CPUServersPct
			t.Logf("%s model: background %.2f %%, foreground %.2f %%, servers %.2f %% of the host", model, bg, fg, all)
			// /proc counts each process in 10 ms ticks, the cgroup in
			// microseconds: allow a tick per second of the window.
			const slack = 0.5
			if fg <= 0 || bg < 0 || bg+fg > all+slack || all > 100 {
				t.Errorf("background %.2f + foreground %.2f vs servers %.2f: want foreground > 0 and their sum at most the servers'", bg, fg, all)
			}
			// A PSS round (every 10 s) falls in the 11 s window: each
			// tenant's sessions have their private memory.
			for _, tt := range sum.Tenant {
				if tt.MemPrivateMB == nil || *tt.MemPrivateMB <= 0 {
					t.Errorf("tenant %s: private memory %v, want measured and above 0", tt.Tenant, tt.MemPrivateMB)
				} else {
					t.Logf("tenant %s: private memory %.2f MiB", tt.Tenant, *tt.MemPrivateMB)
				}
			}
			var ibg, ifg, iall float64
			for _, in := range sum.Instances {
				if in.CPUBackgroundPct == nil || in.CPUForegroundPct == nil || in.CPUPct == nil {
					t.Fatalf("instance %s: shares not measured", in.Name)
				}
				t.Logf("instance %s (%v): background %.2f %%, foreground %.2f %%, all %.2f %%", in.Name, in.Tenants, *in.CPUBackgroundPct, *in.CPUForegroundPct, *in.CPUPct)
				ibg, ifg, iall = ibg+*in.CPUBackgroundPct, ifg+*in.CPUForegroundPct, iall+*in.CPUPct
				// Every server's tenants worked: in the instance model
				// the copies' tenants too, renamed in place after the
				// monitor had read the template's names.
				if len(in.Tenants) > 0 && *in.CPUForegroundPct <= 0 {
					t.Errorf("instance %s: no foreground CPU for its tenants %v", in.Name, in.Tenants)
				}
				if *in.CPUBackgroundPct+*in.CPUForegroundPct > *in.CPUPct+slack {
					t.Errorf("instance %s: background %.2f + foreground %.2f over its total %.2f",
						in.Name, *in.CPUBackgroundPct, *in.CPUForegroundPct, *in.CPUPct)
				}
			}
			if d := ibg + ifg + iall - bg - fg - all; d > 1e-6 || d < -1e-6 {
				t.Errorf("instances' shares %.3f %.3f %.3f do not add up to the run's %.3f %.3f %.3f", ibg, ifg, iall, bg, fg, all)
			}
		})
	}
}
