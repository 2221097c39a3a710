package monitor

import (
	"context"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// usageState is what a sampler keeps of a UsageSampler's measurements.
type usageState struct {
	// last is the latest measurement, base its CPU at the first one:
	// CPU is counted from then (what ran before, as the server's start,
	// is not the run's).
	last provider.Usage
	base float64
	seen bool
}

// readUsage sets a round's CPU and memory from the instance's
// UsageSampler: its latest measurement, whenever its source made it (a
// kubelet refreshes a pod's every 10 to 15 s, so a round holds figures
// up to that old, and the CPU of a window comes in steps). Before the
// first measurement the CPU counts nothing and the memory is unknown.
func (s *sampler) readUsage(ctx context.Context, t time.Duration, c *counters, smp *ResourceSample) {
	uctx, cancel := context.WithTimeout(ctx, queryTimeout)
	u, err := s.usage.Usage(uctx)
	cancel()
	switch {
	case err != nil:
		if ctx.Err() == nil {
			s.errs.add(t, "%s: %v", s.usage.UsageSource(), err)
		}
	case !u.At.IsZero():
		if !s.used.seen {
			s.used.base, s.used.seen = u.CPUSeconds, true
		}
		s.used.last = u
	}
	c.haveCgCPU = true
	if !s.used.seen {
		return
	}
	c.cpuUser = s.used.last.CPUSeconds - s.used.base
	if m := s.used.last.MemoryBytes; m >= 0 {
		c.haveMem = true
		smp.MemCurrent = m
	}
}
