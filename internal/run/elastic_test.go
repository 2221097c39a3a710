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
