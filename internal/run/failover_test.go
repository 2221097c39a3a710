package run

import (
	"context"
	"errors"
	"github.com/jackc/pgx/v5"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
)

// TestFailOverRun fails the primary of two tenants with two replicas
// during a tpcb workload whose reads go to the replicas, then one replica
// of the promoted server: the promoted replica accepts the tenants'
// writes (their commits there grow), their writers and readers reconnect
// and commit again after each fault (F measured, the run not failed), the
// other replica follows the promoted one, events.csv names the promoted
// replica and its promotion time from its log, and after teardown no
// process, cgroup or directory of the three servers is left.
func TestFailOverRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers")
	}
	ex := newExecution(t, `name: t
sut: {replicas: 2}
tenancy: {model: schema, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 12s, reads: replicas, options: {scripts: {tpcb-like: 1, select-only: 1}}}
interference:
  - {kind: fail-primary, at: 4s, target: shared}
  - {kind: fail-replica, at: 8s, target: t01}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	if len(ex.instances) != 3 {
		t.Fatalf("instances %v", ex.instances)
	}
	prim := ex.instances[0]
	var dirs, groups []string
	for _, inst := range ex.instances {
		dirs = append(dirs, local.Of(inst).DataDir)
		groups = append(groups, local.Of(inst).CgroupPath)
	}
	replicaConns := ex.replicaConnects(0) // as the clients hold them
	ex.steps(t, "workload")
	if err := ex.healthAfterWorkload(); err != nil {
		t.Errorf("a fail-over asked for failed the run: %v", err)
	}
	// Those connections, made after the fail-over, reach the promoted
	// server's remaining replica, none the promoted server itself.
	if len(replicaConns) != 2 {
		t.Fatalf("%d replica connections, want 2", len(replicaConns))
	}
	for k, connect := range replicaConns {
		c, err := connect(context.Background())
		if err != nil {
			t.Fatalf("replica connection %d after the fail-over: %v", k, err)
		}
		var standby bool
		if err := c.(*pgx.Conn).QueryRow(context.Background(), "SELECT pg_is_in_recovery()").Scan(&standby); err != nil || !standby {
			t.Errorf("replica connection %d after the fail-over reached a primary (in recovery %v, %v)", k, standby, err)
		}
		c.Close(context.Background())
	}
	ex.steps(t, "check")
	obs := ex.observations(time.Now(), nil)
	sum := results.Summarize(obs)
	if len(sum.Events) != 2 {
		t.Fatalf("%d events: %+v", len(sum.Events), sum.Events)
	}
	for _, ev := range sum.Events {
		t.Logf("%s %s at %.2f s: down %v ready %v resumed %v F %v R %v promoted %q in %v ms; %s %s", ev.Kind, ev.Target, ev.AtS,
			show(ev.DownS), show(ev.ReadyS), show(ev.ResumedS), show(ev.FS), show(ev.RS), ev.Promoted, show(ev.PromotionMS), ev.Observed, ev.Error)
		if ev.Error != "" {
			t.Errorf("%s: %s", ev.Kind, ev.Error)
		}
		if ev.FS == nil || *ev.FS <= 0 || *ev.FS > 10 {
			t.Errorf("%s: F %v, want service resumed after the injection", ev.Kind, show(ev.FS))
			continue
		}
		for _, tn := range ev.Tenants {
			s := perTenant(obs.Workload.Series, tn)
			if sumOf(s[int(*ev.ResumedS)+1:]) == 0 {
				t.Errorf("%s: tenant %s committed nothing after it: %v", ev.Kind, tn, s)
			}
		}
	}
	for _, tn := range []string{"t01", "t02"} {
		t.Logf("%s commits per second: %v", tn, perTenant(obs.Workload.Series, tn))
	}
	fp := sum.Events[0]
	if fp.Kind != "fail-primary" || (fp.Promoted != "shared-r1" && fp.Promoted != "shared-r2") ||
		fp.PromotionMS == nil || *fp.PromotionMS <= 0 || *fp.PromotionMS > 10000 || fp.ReadyS == nil || *fp.ReadyS < fp.AtS {
		t.Errorf("fail-primary promoted %q in %v ms, ready %v", fp.Promoted, show(fp.PromotionMS), show(fp.ReadyS))
	}
	var promoted, other *provider.Instance
	for _, inst := range ex.instances[1:] {
		if inst.Name == fp.Promoted {
			promoted = inst
		} else {
			other = inst
		}
	}
	if promoted == nil {
		t.Fatalf("no instance %q", fp.Promoted)
	}
	if ex.placements[0].Instance != promoted || ex.placements[1].Instance != promoted {
		t.Errorf("tenants placed on %s and %s, want the promoted %s", ex.placements[0].Instance.Name, ex.placements[1].Instance.Name, promoted.Name)
	}
	if fr := sum.Events[1]; fr.Kind != "fail-replica" || !strings.Contains(fr.Observed, "replica "+other.Name) {
		t.Errorf("fail-replica failed %q, want the promoted server's one replica %s", fr.Observed, other.Name)
	}
	// While the replica restarts, the primary serves t01's writes: its
	// service never stopped, so service resumes with the first commit
	// after the replica went down, not after it is back (the watch is
	// armed as the server goes down, provider.NoteDown, not when the
	// restart returns). How soon the clients commit again after losing
	// their replica sessions depends on the machine's load, so the check
	// applies when the restart lasted a whole second of the series in
	// which every affected tenant committed: then a commit fell between
	// the two, and resuming only at the replica's return is the bug.
	if fr := sum.Events[1]; fr.ResumedS == nil || fr.DownS == nil || fr.ReadyS == nil || *fr.ResumedS < *fr.DownS {
		t.Errorf("fail-replica: resumed %v s, want after the replica's down %v s", show(fr.ResumedS), show(fr.DownS))
	} else if whole := int(*fr.DownS) + 1; float64(whole+1) <= *fr.ReadyS && *fr.ResumedS >= *fr.ReadyS {
		all := true
		for _, tn := range fr.Tenants {
			if s := perTenant(obs.Workload.Series, tn); whole >= len(s) || s[whole] == 0 {
				all = false
			}
		}
		if all {
			t.Errorf("fail-replica: resumed %.3f s, when the replica was back (ready %.3f s), though the tenants committed in second %d of its restart (down %.3f s)",
				*fr.ResumedS, *fr.ReadyS, whole, *fr.DownS)
		}
	}
	select {
	case <-prim.Exited:
	default:
		t.Error("the failed primary still runs")
	}
	// The tenants wrote on the promoted server, and the other replica
	// has what they wrote.
	ctx := context.Background()
	db := ex.placements[0].Database
	count := func(inst *provider.Instance) int64 {
		t.Helper()
		conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(db))
		if err != nil {
			t.Fatalf("%s: %v", inst.Name, err)
		}
		defer conn.Close(ctx)
		s, err := conn.QueryStrings(ctx, "SELECT count(*)::text FROM "+ex.placements[0].Schema+".pgbench_history")
		if err != nil || len(s) != 1 {
			t.Fatalf("%s: %v %v", inst.Name, s, err)
		}
		n, _ := strconv.ParseInt(s[0], 10, 64)
		return n
	}
	written := count(promoted)
	if written == 0 {
		t.Error("no history row on the promoted server")
	}
	deadline := time.Now().Add(10 * time.Second)
	for count(other) != written && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := count(other); got != written {
		t.Errorf("the other replica has %d history rows, the promoted server %d", got, written)
	}
	if sum.Provider.FScoreS == nil {
		t.Error("no F-Score")
	}
	if err := ex.teardown(); err != nil {
		t.Fatal(err)
	}
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		args, _ := p.CmdLine()
		for _, d := range dirs {
			if strings.Contains(strings.Join(args, " "), d) {
				t.Errorf("process %d still runs on %s: %v", p.PID, d, args)
			}
		}
	}
	for i, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data directory %s is left (%v)", d, err)
		}
		if groups[i] == "" {
			continue
		}
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory"} {
			if _, err := os.Stat(root + groups[i]); err == nil {
				t.Errorf("cgroup %s%s is left", root, groups[i])
			}
		}
	}
}

// TestFailOverPooledRun fails over a server with a pgbouncer in front of
// it: the tenants' clients keep the pooler's endpoint, which the provider
// re-points at the promoted replica, and commit again there; the results
// list the pooler under the promoted server.
func TestFailOverPooledRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers")
	}
	if _, err := exec.LookPath("pgbouncer"); err != nil {
		t.Skip(err)
	}
	ex := newExecution(t, `name: t
sut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 2}}
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 8s}
interference:
  - {kind: fail-primary, at: 3s, target: t02}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload")
	if err := ex.healthAfterWorkload(); err != nil {
		t.Errorf("a fail-over asked for failed the run: %v", err)
	}
	obs := ex.observations(time.Now(), nil)
	sum := results.Summarize(obs)
	if len(sum.Events) != 1 {
		t.Fatalf("events %+v", sum.Events)
	}
	ev := sum.Events[0]
	t.Logf("%s at %.2f s: resumed %v F %v promoted %q in %v ms; %s %s", ev.Kind, ev.AtS, show(ev.ResumedS), show(ev.FS),
		ev.Promoted, show(ev.PromotionMS), ev.Observed, ev.Error)
	if ev.Error != "" || ev.Promoted != "shared-r1" || ev.FS == nil {
		t.Fatalf("fail-primary: error %q, promoted %q, F %v", ev.Error, ev.Promoted, show(ev.FS))
	}
	for _, tn := range ev.Tenants {
		s := perTenant(obs.Workload.Series, tn)
		if sumOf(s[int(*ev.ResumedS)+1:]) == 0 {
			t.Errorf("tenant %s committed nothing after the fail-over: %v", tn, s)
		}
	}
	promoted := ex.instances[1]
	if ex.pools[promoted.Name] == nil || ex.pools["shared"] != nil || promoted.Pool == nil {
		t.Errorf("pools %v: want the pooler under %s", ex.pools, promoted.Name)
	}
	if c := connectTenant(t, ex.placements[0]); c.Ping(context.Background()) != nil {
		t.Error("the tenant's placement does not reach the promoted server")
	}
}
