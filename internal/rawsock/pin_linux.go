package rawsock

import (
	"golang.org/x/sys/unix"
)

// Pin makes the Loop's thread run on cpu while it runs the clients
// (Run); call it before Run. The aim is what pgbench gets in its fast
// rounds: the scheduler wakes a backend onto the CPU of the client that
// woke it (wake-affine placement), so with one Loop on each CPU a client
// and its backend can hand each request and reply over on one CPU while
// the client sleeps. On 2 cores two pinned Loops made 6-14 % more
// transactions than one Loop in the median of each run, unpinned ones
// 4 % (BENCHMARKS.md, "Loops pinned to CPUs"). allowed is the mask the
// thread returns to when Run ends: the process's own (CPUs, below).
func (l *Loop) Pin(cpu int, allowed unix.CPUSet) {
	var one unix.CPUSet
	one.Set(cpu)
	l.pin = &pinning{one: one, allowed: allowed}
}

// CPUs is the CPUs this process may run on, and their mask; none where
// the mask cannot be read.
func CPUs() ([]int, unix.CPUSet) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, set
	}
	var cpus []int
	for i := 0; len(cpus) < set.Count(); i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, set
}

// pinning is a Loop's CPU and the mask to go back to.
type pinning struct {
	one, allowed unix.CPUSet
	held         bool // the thread was pinned (on succeeded)
}

// on and off pin the calling thread and let it go. An error (a CPU
// taken away by a cpuset meanwhile) leaves the thread where the
// scheduler puts it: the Loop runs on, unpinned, and Pinned says so.
func (p *pinning) on()  { p.held = unix.SchedSetaffinity(0, &p.one) == nil }
func (p *pinning) off() { _ = unix.SchedSetaffinity(0, &p.allowed) }

// Pinned says whether the Loop's thread ran pinned to its CPU: asked for
// (Pin) and granted by the kernel. Read it once a client of the Loop
// has returned: Run pins its thread before it runs the first.
func (l *Loop) Pinned() bool { return l.pin != nil && l.pin.held }
