package monitor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// script is a UsageSampler that answers the readings it is given, in
// turn: the kubelet's answers over a run, without a cluster.
type script struct {
	readings []provider.Usage
	errs     []error
	n        int
}

func (s *script) Usage(context.Context) (provider.Usage, error) {
	i := s.n
	s.n++
	return s.readings[i], s.errs[i]
}
func (s *script) UsageSource() string { return "script" }

// TestReadUsage: a round takes the source's latest measurement, counts
// CPU from the first one (not the server's life before it), keeps the
// last one when the source has nothing newer or fails, and says the
// memory is unknown until the first.
func TestReadUsage(t *testing.T) {
	at := time.Unix(1000, 0)
	src := &script{
		readings: []provider.Usage{{}, {CPUSeconds: 50, MemoryBytes: 100, At: at}, {}, {CPUSeconds: 53.5, MemoryBytes: 120, At: at.Add(10 * time.Second)}},
		errs:     []error{nil, nil, errors.New("kubelet away"), nil},
	}
	s := &sampler{usage: src}
	want := []struct {
		cpu float64
		mem int64
	}{{0, -1}, {0, 100}, {0, 100}, {3.5, 120}}
	for i, w := range want {
		var c counters
		smp := ResourceSample{MemCurrent: -1}
		s.readUsage(context.Background(), time.Duration(i)*time.Second, &c, &smp)
		if !c.haveCgCPU || c.cpuUser != w.cpu || c.cpuSys != 0 || smp.MemCurrent != w.mem || c.haveMem != (w.mem >= 0) {
			t.Errorf("round %d: cpu %v (have %v), memory %d (have %v); want %v, %d", i, c.cpuUser, c.haveCgCPU, smp.MemCurrent, c.haveMem, w.cpu, w.mem)
		}
	}
	if errs := s.errs.list(""); len(errs) != 1 {
		t.Errorf("errors %v, want the source's one", errs)
	}
}

// TestWindowWhole: a server measured whole (a pod) has its CPU and
// memory in the window, and neither IO nor a split by tenant or process
// class, which no process of it could give.
func TestWindowWhole(t *testing.T) {
	origin := time.Unix(1000, 0)
	is := &InstanceSeries{Name: "shared", Whole: true, Tenants: append(pseudoTenants(), "t01"), SharedExceptBuffers: -1,
		Samples: []ResourceSample{
			{T: 0, MemCurrent: -1, IOReadOps: -1, IOWriteOps: -1},
			{T: 10 * time.Second, CPUUser: 4, MemCurrent: 80 << 20, IOReadOps: -1, IOWriteOps: -1},
			{T: 20 * time.Second, CPUUser: 9, MemCurrent: 60 << 20, IOReadOps: -1, IOWriteOps: -1},
		}}
	w := (&Samples{Origin: origin, Instances: []*InstanceSeries{is}}).Window(origin.Add(10*time.Second), origin.Add(20*time.Second))
	u := w.Instances[0]
	if !u.Whole || u.CPU != 5 || u.MemPeakMB != 80 || u.IOOps != -1 || w.Total.IOOps != -1 || len(w.TenantCPU) != 0 {
		t.Errorf("usage %+v, tenants %v: want whole, 5 CPU-s, 80 MiB, no IO, no tenant CPU", u, w.TenantCPU)
	}
}
