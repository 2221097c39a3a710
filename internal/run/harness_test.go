package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/lag"
	"github.com/tenantbench/tenantbench/internal/workload/sales"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
	"github.com/tenantbench/tenantbench/internal/workload/tpch"
)

// testPlan builds src's plan, the workloads tpcb, sales, tpcc and tpch
// registered, and the local provider to run it on.
func testPlan(t *testing.T, src string) (*plan.Plan, workload.Registry, *local.Provider) {
	t.Helper()
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	reg.Add(sales.Factory())
	reg.Add(tpcc.Factory())
	reg.Add(tpch.Factory())
	reg.Add(lag.Factory())
	p, problems := plan.BuildBytes([]byte(src), plan.Builtin(reg))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	prov, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p, reg, prov
}

// testLedger opens a ledger in a results directory of the test's own,
// with a registry of the test's (RegistryEnv), both in tmp.
func testLedger(t *testing.T) (l *Ledger, res, tmp string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv(RegistryEnv, filepath.Join(tmp, "registry"))
	res = filepath.Join(tmp, "results")
	if err := os.Mkdir(res, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLedger(res, "local", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	return l, res, tmp
}

// withLedger gives ex a ledger in a results directory of its own and a
// registry of the test's.
func withLedger(t *testing.T, ex *execution) string {
	t.Helper()
	l, res, _ := testLedger(t)
	ex.opts.Ledger = l
	return res
}

// poll calls look now and every interval, from a goroutine of its own,
// until the stop it returns is called; stop returns once look has
// returned for the last time.
func poll(every time.Duration, look func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			look()
			select {
			case <-quit:
				return
			case <-time.After(every):
			}
		}
	}()
	return func() { close(quit); <-done }
}

// experiment runs src's plan (workload tpcb) on real servers of the local
// provider, in a work root of its own, which it returns with the plan and
// the results directory; during, if not nil, is called with the work root
// as the experiment starts, and the function it returns once it has ended.
// It fails the test if a run failed or anything is left in the work root.
func experiment(t *testing.T, src string, during func(root string) (stop func())) (*plan.Plan, *results.Dir, string) {
	t.Helper()
	p, reg, prov := testPlan(t, src)
	out, err := results.Create(filepath.Join(pgtest.TempDir(t), "out"), p.SettingKeys)
	if err != nil {
		t.Fatal(err)
	}
	root := pgtest.TempDir(t)
	stop := func() {}
	if during != nil {
		stop = during(root)
	}
	o, err := Experiment(context.Background(), p, Options{Out: out, Log: testLog{t}, Provider: prov, Workloads: reg,
		Models: tenancy.Builtin(), WorkRoot: root})
	stop()
	if err != nil || o.Failed > 0 {
		t.Fatalf("experiment: %+v, %v", o, err)
	}
	// Every work directory, a probe server's too, is gone.
	if left, _ := os.ReadDir(root); len(left) > 0 {
		t.Errorf("left in the work root: %v", left)
	}
	return p, out, root
}
