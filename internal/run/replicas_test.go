package run

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
)

// TestLagRun runs the lag workload on two tenants of a server with one
// replica, made at the end of post-ingest: the replica is one of the
// run's instances with its primary's limits, monitored (its role, the
// primary's view of its lag each round), every operation's lag and the
// C-Score are measured, and after teardown no process, cgroup or
// directory of the replica is left.
func TestLagRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers")
	}
	ex := newExecution(t, `name: t
sut: {replicas: 1, resources: {cpus: 1}}
tenancy: {model: database, tenants: 2}
workload: {name: lag, scale: 0.01, clients: 2, duration: 2s}
`)
	ex.steps(t, "provision")
	ex.opts.Monitor = true
	if err := ex.startMonitor(context.Background()); err != nil || ex.mon == nil {
		t.Fatalf("monitor: %v", err)
	}
	ex.steps(t, "setup", "ingest", "post-ingest")
	if len(ex.instances) != 2 || ex.instances[1].Name != "shared-r1" || provider.Role(ex.instances[1]) != "replica" {
		t.Fatalf("instances %v", ex.instances)
	}
	if cpus, _, _ := local.Of(ex.instances[1]).Limits(); cpus != 1 || ex.limits[1].CPUs != 1 {
		t.Errorf("replica's CPUs %v (limits %v), want its primary's 1", cpus, ex.limits[1].CPUs)
	}
	ex.steps(t, "workload", "check")
	samples, err := ex.mon.Stop()
	if err != nil {
		t.Errorf("monitor: %v", err)
	}
	ex.samples = samples
	roles, lags := map[string]string{}, 0
	for _, is := range samples.Instances {
		roles[is.Name] = is.Role
		lags += len(is.Replication)
	}
	if roles["shared"] != "primary" || roles["shared-r1"] != "replica" || lags == 0 {
		t.Errorf("monitor: roles %v, %d replication samples", roles, lags)
	}
	sum := results.Summarize(ex.observations(time.Now(), nil))
	a := sum.Provider
	if a.LagInsertMs == nil || a.LagUpdateMs == nil || a.LagDeleteMs == nil || a.CScoreMs == nil ||
		*a.CScoreMs <= 0 || *a.CScoreMs != *a.LagInsertMs+*a.LagUpdateMs+*a.LagDeleteMs {
		t.Errorf("lags %v %v %v, C %v", a.LagInsertMs, a.LagUpdateMs, a.LagDeleteMs, a.CScoreMs)
	}
	if len(sum.Lag) != 3 || sum.Replicas != 1 || len(sum.Instances) != 2 {
		t.Errorf("lag rows %+v, replicas %d, instances %d", sum.Lag, sum.Replicas, len(sum.Instances))
	}
	rep := local.Of(ex.instances[1])
	dataDir, group := rep.DataDir, rep.CgroupPath
	if err := ex.teardown(); err != nil {
		t.Fatal(err)
	}
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if args, _ := p.CmdLine(); strings.Contains(strings.Join(args, " "), dataDir) {
			t.Errorf("process %d still runs on the replica's data: %v", p.PID, args)
		}
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replica's data directory is left (%v)", err)
	}
	if group != "" {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory"} {
			if _, err := os.Stat(root + group); err == nil {
				t.Errorf("the replica's cgroup %s%s is left", root, group)
			}
		}
	}
}

// TestReadsOnReplicasRun runs tpcb's select-only with workload.reads:
// replicas on a server with two replicas: every committed transaction
// ran on a replica (each counts thousands in its tenant's database, the
// primary's count stays flat), and a client's connection to each is
// held beside its own.
func TestReadsOnReplicasRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers")
	}
	ex := newExecution(t, `name: t
sut: {replicas: 2}
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 2s, reads: replicas, options: {scripts: {select-only: 1}}}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	if len(ex.instances) != 3 {
		t.Fatalf("instances %v", ex.instances)
	}
	if got := ex.replicaConnects(0); len(got) != 2 {
		t.Fatalf("%d replica connections per client, want 2", len(got))
	}
	ctx := context.Background()
	db := ex.placements[0].Database
	commits := func(i int) int64 {
		t.Helper()
		s, err := adminStrings(ctx, ex.instances[i], "SELECT xact_commit::text FROM pg_stat_database WHERE datname = $1", db)
		if err != nil || len(s) != 1 {
			t.Fatalf("%s: %v %v", ex.instances[i].Name, s, err)
		}
		n, _ := strconv.ParseInt(s[0], 10, 64)
		return n
	}
	before := []int64{commits(0), commits(1), commits(2)}
	ex.steps(t, "workload")
	var committed int64
	for _, tn := range ex.result.Result.Figures().Tenants {
		committed += tn.All.Committed
	}
	// The clients' backends flush their counts as they exit, a moment
	// after the phase.
	deadline := time.Now().Add(10 * time.Second)
	var d []int64
	for {
		d = []int64{commits(0) - before[0], commits(1) - before[1], commits(2) - before[2]}
		if d[1]+d[2] >= committed || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d committed; transactions on the primary %d, on the replicas %d and %d", committed, d[0], d[1], d[2])
	if committed == 0 || d[1] == 0 || d[2] == 0 || d[1]+d[2] < committed || d[0] > committed/10 {
		t.Errorf("%d committed; transactions on the primary %d, on the replicas %d and %d", committed, d[0], d[1], d[2])
	}
}
