// Package elastic changes the servers' resources while the workload runs,
// as a serverless database's change (Zhang et al. 2025, section III-C):
// a schedule of limits applied slot by slot (sut.resources.schedule), or
// a policy that raises and lowers each server's CPU quota from the
// utilization it measures (sut.resources.autoscale). It records every
// change (limits.csv), from which the run integrates the resource cost
// of E1 (metrics.Integrate). It acts through a Resizer, which the
// local provider's servers are (provider.Resizer); it knows no provider.
package elastic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Resizer is a running server whose limits can change: provider.Resizer.
type Resizer interface {
	Resize(cpus float64, memoryBytes int64) error
	CPUSeconds() (float64, error)
}

// Server is one server under the policy, with the limits in force when
// the policy starts (0: none), which Stop puts back.
type Server struct {
	Name        string
	Resizer     Resizer
	CPUs        float64
	MemoryBytes int64
}

// Step is one slot of a schedule: from At after the start, every server
// gets CPUs and MemoryBytes (0: no limit).
type Step struct {
	At          time.Duration
	CPUs        float64
	MemoryBytes int64
}

// Autoscale raises and lowers each server's CPU quota every Interval
// (Decide), within [Min, Max].
type Autoscale struct {
	Min, Max float64
	// Target is the share of the quota the policy aims the servers'
	// use at (0.7: a server using 0.7 of its quota keeps it).
	Target   float64
	Interval time.Duration
}

// Policy is a schedule or an autoscale policy (not both; the spec says
// so at plan).
type Policy struct {
	Schedule  []Step
	Autoscale *Autoscale
}

// The reasons of a Change.
const (
	ReasonStart     = "start"     // the limits in force when the policy started
	ReasonSchedule  = "schedule"  // a slot of the schedule began
	ReasonAutoscale = "autoscale" // the policy's decision
	ReasonRestore   = "restore"   // the phase ended: the starting limits again
)

// Change is one change of a server's limits, a row of limits.csv.
type Change struct {
	At     time.Duration // since the start
	Server string
	Reason string
	// Old and new limits (0: none).
	OldCPUs, NewCPUs     float64
	OldMemory, NewMemory int64
	// Utilization is what autoscale measured over the interval before:
	// the CPU used over the quota in force; NaN for other reasons.
	Utilization float64
	// Err is why the change could not be made ("" when it was).
	Err string
}

// Tolerance is how far (a share of the quota) the CPUs autoscale wants
// may be from the quota in force before it changes it: less is noise
// of one interval's measure, and each change is a row and a write.
const Tolerance = 0.1

// Decide is autoscale's next quota for a server that used used CPUs
// (CPU-seconds per second) over the last interval under quota: used /
// Target, within [Min, Max], to 0.01 CPU; quota itself when that is
// within Tolerance of it. A server held at its quota (used = quota)
// gets quota / Target: more by 1/Target each interval until it uses
// less than it has; an idle one falls to Min at once, as Zhang et al.'s
// (2025) CDB3 adapts "immediately" both ways (section III-A), rather than
// CDB1's gradual scaling down.
func Decide(a Autoscale, quota, used float64) float64 {
	want := math.Round(math.Min(math.Max(used/a.Target, a.Min), a.Max)*100) / 100
	want = math.Min(math.Max(want, a.Min), a.Max)
	if quota > 0 && math.Abs(want-quota) <= Tolerance*quota {
		return quota
	}
	return want
}

// Controller applies a Policy to servers from Start until Stop.
type Controller struct {
	servers []Server
	start   time.Time
	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	changes []Change
	now     []Server // the limits in force, by server
	errs    []error
}

// Start applies p to servers from start (the workload phase's clock) on:
// it records each server's limits then, applies the schedule's first
// slot (or, under autoscale, a quota within its bounds: Max for a server
// without one) at once, and goes on in the background until Stop or ctx
// ends.
func Start(ctx context.Context, p Policy, servers []Server, start time.Time) *Controller {
	ctx, cancel := context.WithCancel(ctx)
	c := &Controller{servers: servers, start: start, cancel: cancel, done: make(chan struct{}),
		now: append([]Server(nil), servers...)}
	for _, s := range servers {
		c.record(Change{Server: s.Name, Reason: ReasonStart, OldCPUs: s.CPUs, NewCPUs: s.CPUs,
			OldMemory: s.MemoryBytes, NewMemory: s.MemoryBytes, Utilization: math.NaN()})
	}
	go func() {
		defer close(c.done)
		switch {
		case p.Autoscale != nil:
			c.autoscale(ctx, *p.Autoscale)
		case len(p.Schedule) > 0:
			c.schedule(ctx, p.Schedule)
		}
	}()
	return c
}

// Stop ends the policy, puts every server's starting limits back and
// returns every change, in order, and the errors of the changes that
// failed.
func (c *Controller) Stop() ([]Change, error) {
	c.cancel()
	<-c.done
	for i, s := range c.servers {
		c.resize(i, s.CPUs, s.MemoryBytes, ReasonRestore, math.NaN())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Change(nil), c.changes...), errors.Join(c.errs...)
}

// record adds a change at the time now; the starting limits are in force
// from 0 on.
func (c *Controller) record(ch Change) {
	if ch.Reason != ReasonStart {
		ch.At = time.Since(c.start)
	}
	c.mu.Lock()
	c.changes = append(c.changes, ch)
	c.mu.Unlock()
}

// resize gives server i new limits and records the change, also a
// failed one.
func (c *Controller) resize(i int, cpus float64, mem int64, reason string, util float64) {
	c.mu.Lock()
	old := c.now[i]
	c.mu.Unlock()
	if old.CPUs == cpus && old.MemoryBytes == mem {
		return // no change
	}
	ch := Change{Server: old.Name, Reason: reason, OldCPUs: old.CPUs, NewCPUs: cpus, OldMemory: old.MemoryBytes,
		NewMemory: mem, Utilization: util}
	if err := old.Resizer.Resize(cpus, mem); err != nil {
		ch.Err = err.Error()
		// What is in force is unknown: the old limits, or the CPU
		// quota written and the memory refused. Say the old.
		ch.NewCPUs, ch.NewMemory = old.CPUs, old.MemoryBytes
		c.mu.Lock()
		c.errs = append(c.errs, fmt.Errorf("server %s: %s to %v CPUs and %d bytes: %w", old.Name, reason, cpus, mem, err))
		c.mu.Unlock()
	} else {
		c.mu.Lock()
		c.now[i].CPUs, c.now[i].MemoryBytes = cpus, mem
		c.mu.Unlock()
	}
	c.record(ch)
}

// wait sleeps until at after the start; false when ctx ended first.
func (c *Controller) wait(ctx context.Context, at time.Duration) bool {
	t := time.NewTimer(time.Until(c.start.Add(at)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (c *Controller) schedule(ctx context.Context, steps []Step) {
	for _, st := range steps {
		if !c.wait(ctx, st.At) {
			return
		}
		for i := range c.servers {
			c.resize(i, st.CPUs, st.MemoryBytes, ReasonSchedule, math.NaN())
		}
	}
}

func (c *Controller) autoscale(ctx context.Context, a Autoscale) {
	type mark struct {
		cpu float64
		at  time.Time
		ok  bool
	}
	last := make([]mark, len(c.servers))
	read := func(i int) mark {
		s, err := c.servers[i].Resizer.CPUSeconds()
		return mark{cpu: s, at: time.Now(), ok: err == nil}
	}
	for i, s := range c.servers {
		if s.CPUs < a.Min || s.CPUs > a.Max { // none, or outside the bounds
			c.resize(i, a.Max, s.MemoryBytes, ReasonAutoscale, math.NaN())
		}
		last[i] = read(i)
	}
	for k := 1; ; k++ {
		if !c.wait(ctx, time.Duration(k)*a.Interval) {
			return
		}
		for i := range c.servers {
			m := read(i)
			prev := last[i]
			last[i] = m
			if !m.ok || !prev.ok || !m.at.After(prev.at) {
				continue
			}
			used := (m.cpu - prev.cpu) / m.at.Sub(prev.at).Seconds()
			c.mu.Lock()
			now := c.now[i]
			c.mu.Unlock()
			if next := Decide(a, now.CPUs, used); next != now.CPUs {
				c.resize(i, next, now.MemoryBytes, ReasonAutoscale, used/now.CPUs)
			}
		}
	}
}
