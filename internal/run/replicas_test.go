package run

import (
	"context"
	"errors"
	"os"
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
