package run

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

// TestNoiseBesideDriver runs a real tpcb workload with cpu noise beside
// the driver, then inside its cgroup: during the phase this process is in
// the driver's group (its CPU hierarchy), the noise ran and its load was
// measured, the tenants' load too; after it, the process is back where it
// was and the group is gone, also when the phase is cut (Ctrl-C).
func TestNoiseBesideDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if sys := cgroup.Detect(); sys.Mode == cgroup.None {
		t.Skip(sys.Reason)
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 8s}
interference:
  - {kind: cpu, at: 1s, duration: 3s, target: driver, params: {load: 30}}
  - {kind: cpu, at: 5s, duration: 2s, target: driver, params: {load: 20, share: true}}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	// A ledger of its own (its registry too), to see the driver's group
	// in live.json while it exists.
	res := withLedger(t, ex)
	inLedger := false
	before, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	// Watch where this process is while the phase runs.
	seen := map[string]bool{}
	stop := poll(100*time.Millisecond, func() {
		if book, err := ReadLive(res); err == nil && book != nil {
			for _, p := range book.Stressors {
				if strings.HasSuffix(p.Cgroup, "/driver") {
					inLedger = true
				}
			}
		}
		b, _ := os.ReadFile("/proc/self/cgroup")
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(line, "/driver") {
				seen[line] = true
			}
		}
	})
	err = ex.workload(context.Background())
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Error("this process was never in a driver cgroup during the workload phase")
	}
	if !inLedger {
		t.Error("the driver's cgroup was never in live.json")
	}
	if book, err := ReadLive(res); err != nil || len(book.Stressors) != 0 {
		t.Errorf("live.json after the phase: %+v, %v", book.Stressors, err)
	}
	var group string
	for line := range seen {
		t.Logf("during the phase: %s", line)
		group = line[strings.LastIndex(line, ":")+1:]
		if !strings.HasPrefix(group, cgroup.Root+"/") {
			t.Errorf("driver group %s is not below %s", group, cgroup.Root)
		}
	}
	after, _ := os.ReadFile("/proc/self/cgroup")
	if string(after) != string(before) {
		t.Errorf("not moved back:\nbefore %s\nafter %s", before, after)
	}
	if group != "" {
		for _, dir := range cgroup.Detect().Open(group).Dirs() {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the driver's cgroup %s is still there (%v)", dir, err)
			}
		}
	}
	if len(ex.events) != 2 {
		t.Fatalf("events %+v", ex.events)
	}
	for _, ev := range ex.events {
		t.Logf("%s %s %s: requested %v achieved %v; %s %s", ev.Kind, ev.Target, ev.Params, show(ev.Requested), show(ev.Achieved), ev.Observed, ev.Error)
		if ev.Error != "" || ev.Target != "driver" || ev.Achieved == nil || *ev.Achieved <= 0 {
			t.Errorf("noise on the driver: %+v", ev)
		}
	}
	if !strings.Contains(ex.events[0].Observed, "cgroup "+cgroup.Root) || !strings.Contains(ex.events[1].Observed, "driver's own cgroup") {
		t.Errorf("where the noise ran: %q, %q", ex.events[0].Observed, ex.events[1].Observed)
	}
	if ex.result == nil || ex.result.Result.Tenants[0].All.Committed == 0 {
		t.Error("the driver's load was not measured")
	}

	// Ctrl-C in the middle of the noise: the process is moved back and
	// the group removed all the same.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := ex.workload(ctx); err == nil {
		t.Error("a cancelled workload phase did not say so")
	}
	if after, _ := os.ReadFile("/proc/self/cgroup"); string(after) != string(before) {
		t.Errorf("not moved back after Ctrl-C:\nbefore %s\nafter %s", before, after)
	}
	for _, dir := range cgroup.Detect().Open(group).Dirs() {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("after Ctrl-C the driver's cgroup %s is still there (%v)", dir, err)
		}
	}
}
