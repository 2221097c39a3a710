//go:build linux

package rawsock

import (
	"runtime"
	"testing"
	"time"
)

// TestIdleLoopYields: a Loop whose clients all sleep, holding the only
// P, still lets a goroutine beside it run about once per yieldEvery,
// whether its client waits for a reply that does not come (no timer:
// the Loop arms its tickfd) or for a timer an hour away (the wait's own
// timeout ends at the yield). Without a bound a goroutine runs only
// when the runtime preempts the Loop's, every 10 ms or more.
func TestIdleLoopYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range []struct {
		name   string
		client func(l *Loop)
	}{
		{"reply", func(l *Loop) {
			conns := wrappedPair(t)
			e := &exchanger{sock: SocketOf(conns[0])}
			e.step = e.run
			// The peer never answers: the client waits until Stop.
			Attach(conns[0], l.Add(func() { _, _ = e.roundTrip([]byte("ping")) }))
		}},
		{"timer", func(l *Loop) {
			l.Add(func() { l.tasks[0].Sleep(time.Now().Add(time.Hour)) })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLoop(t)
			c.client(l)
			done := make(chan struct{})
			go func() { l.Run(); close(done) }()
			n := 0
			for end := time.Now().Add(besideFor); time.Now().Before(end); n++ {
				time.Sleep(100 * time.Microsecond)
			}
			l.Stop()
			<-done
			want := int(besideFor / yieldEvery / 3)
			t.Logf("a goroutine ran %d times in %v beside an idle Loop", n, besideFor)
			if n < want {
				t.Errorf("want at least %d (a yield every %v)", want, yieldEvery)
			}
		})
	}
}
