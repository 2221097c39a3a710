package run

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// TestAutoscaleDuringWorkload runs a real tpcb workload on a real server
// under sut.resources.autoscale, starting at 0.25 CPU, its clients busy
// for 6 s, gone for 6 s and back for 6 s (workload.schedule's slots: a
// zero valley): the server's cgroup quota, read from the kernel while the
// phase runs, rises under the load and falls to min_cpus without it; limits.csv's changes say the same; the starting
// quota is back for the check phase; E1 is priced from the limits in
// force.
func TestAutoscaleDuringWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if s := cgroup.Detect(); s.Mode == cgroup.None {
		t.Skip(s.Reason)
	}
	ex := newExecution(t, `name: t
sut:
  resources:
    cpus: 0.25
    memory: 512MiB
    autoscale: {min_cpus: 0.1, max_cpus: 1.5, target_utilization: 0.5, interval: 1s}
tenancy: {model: schema, tenants: 1}
workload:
  name: tpcb
  scale: 1
  schedule: {slot: 6s, slots: [4, 0, 4]}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	path, _ := provider.CgroupOf(ex.instances[0])
	g := cgroup.Detect().Open(path)
	var mu sync.Mutex
	var seen []float64 // the quota, every 250 ms
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
			if q, err := g.Quota(); err == nil {
				mu.Lock()
				seen = append(seen, q.CPUs)
				mu.Unlock()
			}
		}
	}()
	ex.steps(t, "workload")
	close(stop)
	<-done
	t.Logf("quota seen: %v", seen)
	// The kernel's quota rose from one reading to the next at least once
	// (under load: on a busy machine the server gets less than its quota
	// and the rise is slow, so no level is asked for), and reached
	// min_cpus (the idle slot).
	rose, least := false, math.Inf(1)
	for i, q := range seen {
		rose = rose || (i > 0 && q > seen[i-1] && q != 0.25) // not the restore
		least = math.Min(least, q)
	}
	if !rose {
		t.Errorf("the quota never rose under load: %v", seen)
	}
	if least != 0.1 {
		t.Errorf("the quota never fell to min_cpus 0.1 without clients: %v", seen)
	}
	if q, err := g.Quota(); err != nil || q.CPUs != 0.25 || q.MemoryBytes != 512<<20 {
		t.Errorf("after the phase the cgroup holds %+v (%v), want the starting 0.25 CPUs and 512MiB", q, err)
	}
	var up, down bool
	for _, c := range ex.limitChanges {
		t.Logf("%+v", c)
		if c.Reason == "autoscale" && c.Error == "" {
			up = up || c.NewCPUs > c.OldCPUs
			down = down || (c.NewCPUs < c.OldCPUs && c.AtS > 6)
		}
	}
	if !up || !down || ex.limitChanges[0].Reason != "start" || ex.limitChanges[len(ex.limitChanges)-1].Reason != "restore" {
		t.Errorf("limits.csv does not show the rise and the fall: %+v", ex.limitChanges)
	}
	sum := results.Summarize(ex.observations(time.Now(), nil))
	e := sum.Provider.Elastic
	if e == nil || sum.Provider.E1Score == nil || e.CPUFrom != "limit" || e.MemoryFrom != "limit" {
		t.Fatalf("no E1 from the limits: %+v", e)
	}
	// The quota held over the measured 18 s lies between min_cpus and
	// max_cpus throughout; memory stayed at 512 MiB.
	if e.CPUSeconds < 0.1*18 || e.CPUSeconds > 1.5*18 || math.Abs(e.MemoryGBSeconds-0.5*18) > 0.5*0.5 {
		t.Errorf("held %v CPU-s and %v GB-s over 18 s", e.CPUSeconds, e.MemoryGBSeconds)
	}
	d := &results.Dir{Path: t.TempDir()}
	if err := d.WriteLimits("001", ex.limitChanges); err != nil {
		t.Fatal(err)
	}
}

// TestScheduleDuringWorkload applies sut.resources.schedule to a real
// server during a real tpcb workload: the kernel's limits, read while the
// phase runs, follow the slots in order; limits.csv has each slot at its
// time; the starting limits are back after the phase.
func TestScheduleDuringWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if s := cgroup.Detect(); s.Mode == cgroup.None {
		t.Skip(s.Reason)
	}
	ex := newExecution(t, `name: t
sut:
  resources:
    cpus: 1
    memory: 512MiB
    schedule: {slot: 3s, slots: [{cpus: 0.3}, {cpus: 0.8, memory: 768MiB}, {cpus: 0.5}]}
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 9s}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	path, _ := provider.CgroupOf(ex.instances[0])
	g := cgroup.Detect().Open(path)
	type lim struct {
		cpus float64
		mem  int64
	}
	var seen []lim // each change of the kernel's limits, in order
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if q, err := g.Quota(); err == nil && (len(seen) == 0 || (lim{q.CPUs, q.MemoryBytes}) != seen[len(seen)-1]) {
				seen = append(seen, lim{q.CPUs, q.MemoryBytes})
			}
		}
	}()
	ex.steps(t, "workload")
	close(stop)
	<-done
	want := []lim{{1, 512 << 20}, {0.3, 512 << 20}, {0.8, 768 << 20}, {0.5, 512 << 20}, {1, 512 << 20}}
	// The first reading may come after the first slot began, and the
	// last before the restore.
	if len(seen) > 0 && seen[0] != want[0] {
		want = want[1:]
	}
	if len(seen) < 3 || len(seen) > len(want) {
		t.Fatalf("the kernel's limits went %+v, want %+v", seen, want)
	}
	for i := range seen {
		if seen[i] != want[i] {
			t.Errorf("limits change %d: %+v, want %+v (all: %+v)", i, seen[i], want[i], seen)
		}
	}
	if q, err := g.Quota(); err != nil || q.CPUs != 1 || q.MemoryBytes != 512<<20 {
		t.Errorf("after the phase: %+v, %v", q, err)
	}
	reasons := []string{"start", "schedule", "schedule", "schedule", "restore"}
	if len(ex.limitChanges) != len(reasons) {
		t.Fatalf("limits.csv rows %+v", ex.limitChanges)
	}
	for i, c := range ex.limitChanges {
		if c.Reason != reasons[i] || c.Error != "" {
			t.Errorf("row %d: %+v", i, c)
		}
		if i >= 1 && i <= 3 && math.Abs(c.AtS-float64(3*(i-1))) > 0.3 {
			t.Errorf("slot %d changed at %.3f s, want %d s", i-1, c.AtS, 3*(i-1))
		}
	}
	// E1's CPU: 3 s each of 0.3, 0.8 and 0.5 CPU = 4.8 CPU-s; memory 3 s
	// of 0.75 GB and 6 s of 0.5 GB = 5.25 GB-s.
	e := results.Summarize(ex.observations(time.Now(), nil)).Provider.Elastic
	if e == nil || math.Abs(e.CPUSeconds-4.8) > 0.1 || math.Abs(e.MemoryGBSeconds-5.25) > 0.1 {
		t.Errorf("E1 priced %+v, want about 4.8 CPU-s and 5.25 GB-s", e)
	}
}
