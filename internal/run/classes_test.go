package run

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/provision"
	"github.com/tenantbench/tenantbench/internal/results"
)

// classesSpec: four tpcb tenants in the database model, two small (scale
// 1, 20 arrivals/s, an SLA of p95 within 30 s that any working server
// meets) and two large (scale 2, 10 arrivals/s, an SLA of p95 within 1
// us that no server meets), provisioned by cloning.
const classesSpec = `name: t
tenancy:
  model: database
  tenants: 4
  classes:
    - {name: small, share: 0.5, scale: 1, rate: 20, sla: {p95: 30s}}
    - {name: large, share: 0.5, scale: 2, rate: 10, sla: {p95: 1us}}
workload:
  name: tpcb
  duration: 3s
  provision: clone
  load: {shape: open, rate: 5}
`

// TestClassesRun: a real run with two classes. Each class's first tenant
// loads its class's data and the others of the class get a copy of it
// (small 100,000 accounts, large 200,000); the workload runs each tenant
// at its class's rate; the results carry each tenant's class, mark each
// against its class's SLA, and break the run down by class in
// classes.csv.
func TestClassesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads tenants")
	}
	ex := newExecution(t, classesSpec)
	if pr, err := ex.provisioning(); err != nil || pr.strategy.Name() != provision.CloneDatabase {
		t.Fatalf("strategy %v, %v", pr.strategy, err)
	}
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	phaseRows(t, ex, "provision", "setup", "ingest", "post-ingest")
	wantAccounts := []int64{100000, 100000, 200000, 200000}
	for i, p := range ex.placements {
		c := connectTenant(t, p)
		var n int64
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pgbench_accounts").Scan(&n); err != nil {
			t.Fatal(err)
		}
		closeConn(c)
		if n != wantAccounts[i] {
			t.Errorf("%s (class %s): %d accounts, want %d", p.Tenant, ex.run.TenantList[i].Class, n, wantAccounts[i])
		}
	}
	// The templates loaded; the copies' ingest was the copy, no load.
	loaded := map[string]bool{}
	for _, ph := range ex.phases {
		if ph.Phase == "post-ingest" && ph.Seconds() > 0 {
			loaded[ph.Tenant] = true
		}
	}
	if !loaded["t01"] || !loaded["t03"] || loaded["t02"] || loaded["t04"] {
		t.Errorf("post-ingest ran for %v; want the templates t01 and t03 only", loaded)
	}
	ex.steps(t, "workload", "check")

	ex.obs = ex.observations(time.Now(), nil)
	sum := results.Summarize(ex.obs)
	if sum.Status != results.StatusOK {
		t.Fatalf("run failed: %s", sum.Error)
	}
	for _, tt := range sum.Tenant {
		small := tt.Class == "small"
		if tt.Open == nil || (small && tt.Open.TargetRate != 20) || (!small && tt.Open.TargetRate != 10) {
			t.Errorf("%s (%s): open %+v", tt.Tenant, tt.Class, tt.Open)
		}
		if tt.SLAMet == nil || *tt.SLAMet != small {
			t.Errorf("%s (%s): SLA met %v, want %v (p95 %.3f ms)", tt.Tenant, tt.Class, tt.SLAMet, small, tt.P95Ms)
		}
	}
	if a := sum.Provider; *a.SLAMetTenants != 2 || *a.SLAMet {
		t.Errorf("SLA met by %d tenants, all %v; want 2, false", *a.SLAMetTenants, *a.SLAMet)
	}

	d, err := results.Create(filepath.Join(t.TempDir(), "results"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRun(d, sum, ex); err != nil {
		t.Fatal(err)
	}
	ct, err := results.ReadTable(filepath.Join(d.Path, "classes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Rows) != 2 || ct.Get(0, "class") != "small" || ct.Get(1, "class") != "large" {
		t.Fatalf("classes.csv rows %v", ct.Rows)
	}
	for i := range ct.Rows {
		tps, err := ct.Float(i, "throughput_tps")
		if err != nil || tps <= 0 || ct.Get(i, "class_tenants") != "2" || ct.Get(i, "sla_tenants") != "2" {
			t.Errorf("classes.csv row %v", ct.Rows[i])
		}
	}
	if ct.Get(0, "sla_met_tenants") != "2" || ct.Get(1, "sla_met_tenants") != "0" {
		t.Errorf("classes.csv SLA: small %s, large %s met", ct.Get(0, "sla_met_tenants"), ct.Get(1, "sla_met_tenants"))
	}
	rows, err := d.ReadTenants(sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want := "small"
		if r.Tenant == "t03" || r.Tenant == "t04" {
			want = "large"
		}
		if r.Class != want {
			t.Errorf("tenants.csv %s %s: class %q, want %s", r.Tenant, r.Txn, r.Class, want)
		}
	}
}

// TestMixedWorkloadsRun: tenants of classes with different workloads
// (tpcb beside sales) run in one workload phase; each commits its own
// workload's transactions, recorded under their own names.
func TestMixedWorkloadsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads tenants")
	}
	ex := newExecution(t, `name: t
tenancy:
  model: schema
  tenants: 2
  classes:
    - {name: bank, count: 1}
    - {name: shop, count: 1, workload: sales, scale: 0.001}
workload: {name: tpcb, duration: 2s}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload", "check")
	w := ex.observations(time.Now(), nil).Workload
	own := map[string][]string{"t01": ex.workloads[0].TxnNames(), "t02": ex.workloads[1].TxnNames()}
	if own["t02"][0] == own["t01"][0] {
		t.Fatalf("both tenants run %v", own["t01"])
	}
	for _, tw := range w.Tenants {
		if tw.All.Committed == 0 {
			t.Errorf("%s committed nothing", tw.Name)
		}
		for _, x := range tw.Txns {
			mine := false
			for _, n := range own[tw.Name] {
				mine = mine || n == x.Txn
			}
			if !mine && x.Committed+x.FailedTotal() > 0 {
				t.Errorf("%s ran %d of %s, another class's transaction", tw.Name, x.Committed, x.Txn)
			}
		}
	}
}
