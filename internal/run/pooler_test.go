package run

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// TestWorkloadThroughPooler runs tpcb (named statements of its own),
// sales, tpcc in each interaction and tpch through a real pgbouncer in
// transaction and session mode, in the database and schema models: every
// tenant commits with no failure, the check step (tpcc's consistency
// conditions) passes after, its sessions came
// through the pooler (its log names each tenant's logins), in
// transaction mode on a pgbouncer before 1.21 with unnamed statements,
// and after teardown no pooler process, cgroup or directory is left.
func TestWorkloadThroughPooler(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and pgbouncer")
	}
	if _, err := (pooler.PgBouncer{}).Find(); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct{ model, mode, workload, scale string }{
		{"database", "transaction", "tpcb", "1"},
		{"schema", "transaction", "tpcb", "1"},
		{"database", "session", "tpcb", "1"},
		{"schema", "session", "tpcb", "1"},
		{"schema", "transaction", "sales", "0.001"},
		{"database", "transaction", "tpcc interaction: batched", "1"},
		{"database", "transaction", "tpcc interaction: statements", "1"},
		{"schema", "transaction", "tpcc interaction: procedures", "1"},
		{"database", "transaction", "tpch", "0.01"},
	} {
		// Transaction mode shares one server connection among the three
		// clients; session mode needs one per client.
		poolSize := map[string]int{"transaction": 1, "session": 3}
		// "tpcc interaction: batched" is tpcc with that option.
		name, opt, _ := strings.Cut(c.workload, " ")
		options := ""
		if opt != "" {
			options = ", options: {" + opt + "}"
		}
		t.Run(c.model+"-"+c.mode+"-"+strings.ReplaceAll(c.workload, ": ", "-"), func(t *testing.T) {
			ex := newExecution(t, fmt.Sprintf(`name: t
sut: {pooler: {kind: pgbouncer, mode: %s, pool_size: %d}}
tenancy: {model: %s, tenants: 2}
workload: {name: %s, scale: %s, clients: 3, duration: 2s%s}
`, c.mode, poolSize[c.mode], c.model, name, c.scale, options))
			ex.steps(t, "provision")
			ex.opts.Monitor = true // the pooler's pools sampled (pooler.csv)
			if err := ex.startMonitor(context.Background()); err != nil || ex.mon == nil {
				t.Fatalf("monitor: %v", err)
			}
			ex.steps(t, "setup", "ingest", "post-ingest", "workload", "check")
			samples, err := ex.mon.Stop()
			if err != nil {
				t.Errorf("monitor: %v", err)
			}
			ex.samples = samples
			checkPoolerCSV(t, ex, samples, c.model == "database")
			obs := ex.observations(time.Now(), nil)
			for _, p := range ex.placements {
				w, ok := obs.Monitor.TenantPoolWaitMs[p.Tenant]
				if want := c.model == "database"; ok != want || w < 0 {
					t.Errorf("%s: mean pool wait %v ms (%v), want one: %v", p.Tenant, w, ok, want)
				}
				if ok {
					t.Logf("%s: mean wait for a server connection %.3f ms per transaction", p.Tenant, w)
				}
			}
			for _, tw := range obs.Workload.Tenants {
				if tw.All.Committed == 0 || tw.All.FailedTotal() != 0 || tw.ConnLost != "" {
					t.Errorf("%s: %d committed, failed %v, connection lost %q", tw.Name, tw.All.Committed, tw.All.Failed, tw.ConnLost)
				}
			}
			type left struct {
				pid    int
				group  string
				dir    string
				mode   string
				socket string
			}
			var pools []left
			for i, inst := range ex.instances {
				pool := ex.pools[inst.Name]
				ri := obs.Instances[i]
				if pool == nil || ri.Pooler == nil || ri.Pooler.Version == "" {
					t.Fatalf("instance %s has no pooler (%+v)", inst.Name, ri.Pooler)
				}
				if ri.Pooler.Cgroup != "" && (ri.Pooler.CPUS == nil || *ri.Pooler.CPUS <= 0 || ri.Pooler.MemPeakBytes == nil || *ri.Pooler.MemPeakBytes <= 0) {
					t.Errorf("pooler in cgroup %s: CPU %v s, memory peak %v: want both measured", ri.Pooler.Cgroup, ri.Pooler.CPUS, ri.Pooler.MemPeakBytes)
				}
				if ri.Pooler.CPUS != nil && ri.Pooler.MemPeakBytes != nil {
					t.Logf("pooler of %s: %.3f CPU s over the workload phase, memory peak %d KiB", inst.Name, *ri.Pooler.CPUS, *ri.Pooler.MemPeakBytes>>10)
				}
				wantNamed := c.mode == "session" || (pooler.PgBouncer{}).NamedStatements(pool.Version, c.mode)
				if pool.NamedStatements != wantNamed || ri.Pooler.NamedStatements != wantNamed {
					t.Errorf("%s %s: named statements %v, want %v", pool.Version, c.mode, pool.NamedStatements, wantNamed)
				}
				if ri.Pooler.SessionKept != (c.mode == "session") {
					t.Errorf("%s mode: session kept %v", c.mode, ri.Pooler.SessionKept)
				}
				dir := filepath.Join(filepath.Dir(local.Of(inst).DataDir), "pooler")
				log, err := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ex.placements {
					if p.Instance == inst && !strings.Contains(string(log), "user="+p.Role) {
						t.Errorf("no login of %s in the pooler's log:\n%s", p.Role, log)
					}
				}
				rec := inst.Record().Pooler
				pools = append(pools, left{pid: rec.Pid, group: rec.Cgroup, mode: rec.CgroupMode, dir: dir,
					socket: filepath.Join(inst.SocketDir, fmt.Sprintf(".s.PGSQL.%d", pool.Port))})
			}
			if err := ex.teardown(); err != nil {
				t.Fatal(err)
			}
			for _, l := range pools {
				if provider.StartTime(l.pid) != 0 {
					if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", l.pid)); strings.Contains(string(b), "pgbouncer") {
						t.Errorf("pooler %d still runs", l.pid)
					}
				}
				for _, p := range []string{l.dir, l.socket} {
					if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s left (%v)", p, err)
					}
				}
				if l.group != "" {
					for _, d := range cgroup.Detect().Open(l.group).Dirs() {
						if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("pooler cgroup %s left", d)
						}
					}
				}
			}
		})
	}
}

// checkPoolerCSV: the monitor sampled every tenant's pool of the pooler
// at its rounds; pooler.csv has their rows, and a tenant alone in its
// database has its transactions counted there.
func checkPoolerCSV(t *testing.T, ex *execution, samples *monitor.Samples, alone bool) {
	t.Helper()
	dir := t.TempDir()
	if err := samples.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "pooler.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("pooler.csv: %d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	xacts := map[string]int64{}
	for _, r := range rows[1:] {
		if r[col["tenant"]] == "" {
			continue
		}
		n, _ := strconv.ParseInt(r[col["db_xacts"]], 10, 64)
		xacts[r[col["tenant"]]] = max(xacts[r[col["tenant"]]], n)
		if r[col["db_alone"]] != strconv.FormatBool(alone) {
			t.Errorf("pooler.csv row %v: db_alone, want %v", r, alone)
		}
	}
	for _, p := range ex.placements {
		n, ok := xacts[p.Tenant]
		if !ok || n <= 0 {
			t.Errorf("pooler.csv: tenant %s: %d transactions (sampled %v):\n%v", p.Tenant, n, ok, rows)
		}
	}
}
