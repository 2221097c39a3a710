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

// TestPinnedYields: a busy pinned Loop yields its P every
// pinnedYieldEvery, not every yieldEvery as an unpinned one does (each
// yield of a pinned Loop hands the P to another thread and back), but
// every yieldEvery again while a goroutine waits Beside it. What is
// counted is how often a goroutine that sleeps 100 us at a time gets to
// run beside a Loop holding GOMAXPROCS 1: once per yield.
func TestPinnedYields(t *testing.T) {
	if cpus, _ := CPUs(); len(cpus) == 0 {
		t.Skip("the process's CPUs cannot be read")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	plain := yieldTurns(t, false, false, false)
	pinned := yieldTurns(t, true, false, false)
	beside := yieldTurns(t, true, true, false)
	t.Logf("turns in %v: %d beside an unpinned Loop, %d beside a pinned one, %d in Beside a pinned one", besideFor, plain, pinned, beside)
	if pinned*2 > plain || pinned < 10 {
		t.Errorf("a pinned Loop yielded %d times against an unpinned one's %d: want at most half as often, and at least 10 times", pinned, plain)
	}
	if beside < 2*pinned {
		t.Errorf("a pinned Loop yielded %d times with a goroutine in Beside against %d without: want twice as often", beside, pinned)
	}
}

// TestOwnP: a Loop that owns its P never yields it. At GOMAXPROCS 1 a
// goroutine beside it runs only when the runtime preempts the Loop's
// goroutine (every 10 ms or so); with a P to spare, as the driver gives a
// Loop per client, it runs as often as beside a Loop that yields.
func TestOwnP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	plain := yieldTurns(t, false, false, false)
	owning := yieldTurns(t, false, false, true)
	runtime.GOMAXPROCS(2)
	spare := yieldTurns(t, false, false, true)
	t.Logf("turns in %v: %d beside a Loop that yields, %d beside one that owns the only P, %d beside one with a P to spare", besideFor, plain, owning, spare)
	if owning*4 > plain {
		t.Errorf("a goroutine ran %d times beside a Loop that owns the only P, against %d beside one that yields: want under a quarter", owning, plain)
	}
	if spare*2 < plain {
		t.Errorf("a goroutine ran %d times beside a Loop that owns its P with a P to spare, against %d beside one that yields: want at least half", spare, plain)
	}
}

// yieldTurns counts how often a goroutine sleeping 100 us at a time runs
// over besideFor beside a busy Loop, pinned or not, in Beside or not,
// owning its P or not.
func yieldTurns(t *testing.T, pinned, beside, own bool) int {
	l := newLoop(t)
	if pinned {
		cpus, mask := CPUs()
		l.Pin(cpus[0], mask)
	}
	if own {
		l.OwnP()
	}
	l.Add(func() { l.tasks[0].Sleep(time.Now().Add(time.Hour)) })
	pingPong(t, l)
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	n := 0
	turns := func() {
		for end := time.Now().Add(besideFor); time.Now().Before(end); n++ {
			time.Sleep(100 * time.Microsecond)
		}
	}
	if beside {
		Beside(turns)
	} else {
		turns()
	}
	l.Stop()
	<-done
	return n
}

// BenchmarkPinnedYield: what a pinned Loop's yields cost it. A
// ping-pong on a pinned Loop holding GOMAXPROCS 1, yielding every
// millisecond (as an unpinned Loop does) or every pinnedYieldEvery, for
// a second per iteration; ns/exchange is the Loop's time per round trip.
//
//	go test -run XXX -bench PinnedYield -count 5 ./internal/rawsock
func BenchmarkPinnedYield(b *testing.B) {
	cpus, mask := CPUs()
	if len(cpus) == 0 {
		b.Skip("the process's CPUs cannot be read")
	}
	for _, every := range []time.Duration{yieldEvery, pinnedYieldEvery} {
		b.Run(every.String(), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			defer func(was time.Duration) { pinnedYieldEvery = was }(pinnedYieldEvery)
			pinnedYieldEvery = every
			var n int
			var took time.Duration
			for range b.N {
				l := newLoop(b)
				l.Pin(cpus[0], mask)
				exchanges := pingPong(b, l)
				done := make(chan struct{})
				start := time.Now()
				go func() { l.Run(); close(done) }()
				time.Sleep(time.Second)
				l.Stop()
				<-done
				took += time.Since(start)
				n += *exchanges
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(n), "ns/exchange")
		})
	}
}
