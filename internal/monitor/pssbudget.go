package monitor

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// smaps_rollup makes the kernel walk a process's page tables: about 0.35
// ms of CPU per server process at 100 servers of 16MB of buffers, 250 ms
// for a round of all 700, which every 10 s was 1.25 % of 2 cores by
// itself (BENCHMARKS.md). So PSS is read every PSSInterval only while
// that costs little: the monitor keeps the CPU its servers' latest PSS
// reads took, summed over the servers, and a server's next PSS round
// waits until that sum is at most pssShare of the time since the last.

// pssShare is the share of one CPU the PSS reads of all servers together
// may take: 0.5 % of one CPU, 0.25 % of the project's 2 cores.
const pssShare = 0.005

// pssBudget is the monitor-wide sum of each server's latest PSS round's
// CPU, in ns.
type pssBudget struct{ cost atomic.Int64 }

// every is the time between a server's PSS rounds: the configured
// interval, longer when the servers' latest PSS rounds together took
// more than pssShare of it.
func (b *pssBudget) every(configured time.Duration) time.Duration {
	if b == nil {
		return configured
	}
	return max(configured, time.Duration(float64(b.cost.Load())/pssShare))
}

// pssClock measures the CPU a sampler's PSS reads take: the thread's, as
// the kernel's page table walk is charged to the reading thread.
type pssClock struct {
	ts   unix.Timespec // reused: a round allocates nothing
	took time.Duration
	last int64 // this sampler's part of the budget
}

// start locks the goroutine to its thread for the round (so that the
// thread's CPU is the reads'); stop unlocks it.
func (c *pssClock) start() { runtime.LockOSThread(); c.took = 0 }
func (c *pssClock) stop()  { runtime.UnlockOSThread() }

// now is the thread's CPU time: CLOCK_THREAD_CPUTIME_ID brings the
// kernel's count up to date, where getrusage(RUSAGE_THREAD) lags by up to
// a tick, longer than a read.
func (c *pssClock) now() time.Duration {
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &c.ts) != nil {
		return 0
	}
	return time.Duration(c.ts.Nano())
}

// add counts the CPU since t0 (a now) as PSS reads'.
func (c *pssClock) add(t0 time.Duration) { c.took += max(c.now()-t0, 0) }

// publish puts the round's CPU into the monitor's budget in place of the
// sampler's previous one.
func (c *pssClock) publish(b *pssBudget) {
	if b == nil {
		return
	}
	b.cost.Add(int64(c.took) - c.last)
	c.last = int64(c.took)
}
