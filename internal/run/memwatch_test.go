package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestMemoryKill limits a server's cgroup to 96 MiB and runs a sort that
// needs far more (work_mem 2GB): the kernel kills the backend, the server
// goes through crash recovery, and the memory watch records the kill for
// the instance; the lost query is attributed to the instance's tenant.
func TestMemoryKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t, pgtest.Resources(0, 96<<20),
		pgtest.Settings(map[string]string{"shared_buffers": "16MB", "work_mem": "2GB"}))
	if _, mode := provider.CgroupOf(inst); !inst.LimitsEnforced || mode == "none" {
		t.Skipf("cgroups are not writable here (mode %s, limits enforced %v): no memory limit to exceed", mode, inst.LimitsEnforced)
	}
	m := startMemWatch(time.Now())
	conn := pgtest.Connect(t, inst, "postgres")
	start := time.Now()
	_, err := conn.Exec(context.Background(), "select g from generate_series(1, 30000000) g order by random() limit 1")
	end := time.Now()
	if err == nil {
		t.Fatal("a 30-million-row in-memory sort ran within 96 MiB")
	}
	// The postmaster reports its killed child and restarts.
	deadline := time.Now().Add(10 * time.Second)
	for {
		log, _ := os.ReadFile(inst.LogFile)
		if strings.Contains(string(log), "terminated by signal 9") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server log does not report the kill:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.finish([]*provider.Instance{inst})
	kills := m.kills()
	if len(kills) != 1 || kills[0].Instance != inst.Name || kills[0].Source != "cgroup" || kills[0].Kills < 1 ||
		kills[0].AtS <= 0 || kills[0].AtS > end.Sub(m.start).Seconds()+1 {
		t.Fatalf("memory kills %+v after %v (the query: %v)", kills, end.Sub(start), err)
	}

	// The run names the query lost, of the instance's tenant.
	e := &execution{memWatch: m, placements: []tenancy.Placement{{Tenant: "t01", Instance: inst},
		{Tenant: "t02", Instance: &provider.Instance{Name: "other"}}}}
	lost := workload.Exec{Query: "q18", Start: start, End: end, Err: err.Error()}
	e.streams = []results.TenantStreams{
		{Tenant: "t01", Streams: []workload.Stream{{Number: 1, Execs: []workload.Exec{{Query: "q01", Start: start.Add(-time.Minute), End: start.Add(-50 * time.Second)}, lost}}}},
		{Tenant: "t02", Streams: []workload.Stream{{Number: 2, Execs: []workload.Exec{lost}}}},
	}
	ks := e.memoryKills()
	if len(ks) != 1 || len(ks[0].Lost) != 1 || !strings.HasPrefix(ks[0].Lost[0], "t01 stream 1 q18 at ") {
		t.Errorf("lost queries %+v", ks)
	}
	if errs := e.memoryKillErrors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "killed for memory (cgroup OOM killer)") {
		t.Errorf("errors %v", errs)
	}
	t.Logf("%+v", ks[0])
}

// TestCounter reads the kill counters of both cgroup versions' files.
func TestCounter(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "memory.oom_control")
	v2 := filepath.Join(dir, "memory.events")
	os.WriteFile(v1, []byte("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), 0o644)
	os.WriteFile(v2, []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n"), 0o644)
	if n := counter(v1, "oom_kill"); n != 3 {
		t.Errorf("v1: %d", n)
	}
	if n := counter(v2, "oom_kill"); n != 2 {
		t.Errorf("v2: %d", n)
	}
	if n := counter(filepath.Join(dir, "none"), "oom_kill"); n != -1 {
		t.Errorf("missing file: %d", n)
	}
}
