package run

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

// TestPlacementRuns runs an experiment of two placements (EDB 2026's
// local direct over the unix socket, and remote through pgbouncer across
// a link of its own) on real servers: results.csv has a row of each,
// named; the remote run's clients went through the pooler (its pools in
// runs/<id>/monitor/pooler.csv, the pooler in summary.json), the local
// run's did not; the remote run had its own network namespace, named by
// its run, gone once the experiment ended, as is every server.
func TestPlacementRuns(t *testing.T) {
	needNetwork(t, netns.Link{})
	if _, err := (pooler.PgBouncer{}).Find(); err != nil {
		t.Skip(err)
	}
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	p, problems := plan.BuildBytes([]byte(`name: placements
sut:
  placement:
    - {name: local, transport: unix}
    - {name: remote, pooler: {kind: pgbouncer, mode: transaction, pool_size: 1}, network: {}}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 3s}
`), plan.Builtin(reg))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	prov, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmp := pgtest.TempDir(t)
	t.Setenv(RegistryEnv, filepath.Join(tmp, "registry"))
	out, err := results.Create(filepath.Join(tmp, "out"), p.SettingKeys)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := OpenLedger(out.Path, "local", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	root := pgtest.TempDir(t)
	o, err := Experiment(context.Background(), p, Options{Out: out, Log: testLog{t}, Provider: prov, Workloads: reg,
		Models: tenancy.Builtin(), WorkRoot: root, Monitor: true, Ledger: ledger})
	if err != nil || o.Failed > 0 || o.Runs != 2 {
		t.Fatalf("experiment: %+v, %v", o, err)
	}
	rows, err := out.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Placement != "local" || rows[1].Placement != "remote" {
		t.Fatalf("results.csv rows %+v, want local then remote", rows)
	}
	for _, r := range rows {
		if r.Status != results.StatusOK || r.Committed == 0 {
			t.Errorf("run %s (%s): %s, %d committed", r.RunID, r.Placement, r.Status, r.Committed)
		}
	}
	localID, remoteID := rows[0].RunID, rows[1].RunID
	if out.HasRunFile(localID, filepath.Join("monitor", "pooler.csv")) {
		t.Errorf("the local run %s has a pooler.csv", localID)
	}
	if xacts := poolerXacts(t, out.RunFile(remoteID, filepath.Join("monitor", "pooler.csv"))); xacts <= 0 {
		t.Errorf("pooler.csv of the remote run counts %d transactions", xacts)
	}
	for _, r := range rows {
		sum, err := out.ReadSummary(r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		pooled := len(sum.Instances) > 0 && sum.Instances[0].Pooler != nil
		if pooled != (r.Placement == "remote") || sum.Placement != r.Placement {
			t.Errorf("run %s: placement %q in summary.json, %q in results.csv, pooler %v", r.RunID, sum.Placement, r.Placement, pooled)
		}
	}
	// env.json records the namespace of the remote run, the first with
	// one; it was the run's own, and it is gone.
	var env Env
	b, _ := os.ReadFile(filepath.Join(out.Path, "env.json"))
	if err := json.Unmarshal(b, &env); err != nil || env.Network == nil || env.Pooler == nil {
		t.Fatalf("env.json %s: %v", b, err)
	}
	if want := "tb-" + remoteID + "-"; !strings.HasPrefix(env.Network.Namespace, want) {
		t.Errorf("namespace %s is not run %s's", env.Network.Namespace, remoteID)
	}
	if left := netnsNames(t, env.Network.Namespace); len(left) > 0 {
		t.Errorf("namespace %v left after the experiment", left)
	}
	if b, _ := ReadLive(out.Path); b != nil && !b.Empty() {
		t.Errorf("the ledger still lists %+v", b)
	}
	if err := ledger.Close(); err != nil {
		t.Error(err)
	}
	if left, _ := os.ReadDir(root); len(left) > 0 {
		t.Errorf("left in the work root: %v", left)
	}
}

// poolerXacts is the most transactions a tenant's pool counted in
// pooler.csv at path.
func poolerXacts(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", path, len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var most int64
	for _, r := range rows[1:] {
		if r[col["tenant"]] == "" {
			continue
		}
		n, _ := strconv.ParseInt(r[col["db_xacts"]], 10, 64)
		most = max(most, n)
	}
	return most
}
