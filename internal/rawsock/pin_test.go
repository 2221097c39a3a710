//go:build linux

package rawsock

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLoopPin: a pinned Loop's clients run on its CPU alone, before and
// after the Loop yields to the scheduler, and the thread has the
// process's mask again once Run returns.
func TestLoopPin(t *testing.T) {
	cpus, mask := CPUs()
	if len(cpus) < 2 {
		t.Skipf("the process may run on %d CPU: nothing to pin to", len(cpus))
	}
	// Run's thread, as the test sees it after Run returns.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := newLoop(t)
	want := cpus[len(cpus)-1]
	l.Pin(want, mask)
	var before, after unix.CPUSet
	var errs [2]error
	l.Add(func() {
		errs[0] = unix.SchedGetaffinity(0, &before)
		// Past yieldEvery: the Loop yields (and lets go of the CPU)
		// before it resumes this client.
		l.tasks[0].Sleep(time.Now().Add(5 * yieldEvery))
		errs[1] = unix.SchedGetaffinity(0, &after)
	})
	if l.Pinned() {
		t.Error("a Loop not yet run says it ran pinned")
	}
	l.Run()
	if !l.Pinned() {
		t.Error("a pinned Loop says it ran unpinned")
	}
	for i, set := range []unix.CPUSet{before, after} {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if set.Count() != 1 || !set.IsSet(want) {
			t.Errorf("a client's thread (%s the Loop yielded) may run on %d CPUs, want CPU %d alone", []string{"before", "after"}[i], set.Count(), want)
		}
	}
	var back unix.CPUSet
	if err := unix.SchedGetaffinity(0, &back); err != nil {
		t.Fatal(err)
	}
	if back != mask {
		t.Errorf("after Run the thread may run on %d CPUs, want the process's %d", back.Count(), mask.Count())
	}
}
