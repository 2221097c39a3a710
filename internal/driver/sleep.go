package driver

import (
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// sleeper waits for a client: until its next arrival (open loop), the end
// of its think time, its next slot. One per client, reused: no timer is
// made per wait.
type sleeper struct {
	t *time.Timer
	// precise, when set, serves the waits of untilPrecise (the open
	// loop's arrivals); see timerfd.
	mu      sync.Mutex // guards precise against interrupt
	precise *timerfd
	stopped bool
	// task, when set, is the client's on a rawsock.Loop, whose waits
	// serve both kinds, ending in the Loop's own epoll_pwait2 (within
	// the kernel's timer slack, 50 us, as pgbench -R's in ppoll), and end
	// when the Loop is stopped with the run.
	task *rawsock.Task
}

// until waits until at, or until stop is closed (then it returns false).
// It may wake up to a millisecond late: fine for think times and slots.
func (s *sleeper) until(at time.Time, stop <-chan struct{}) bool {
	if s.task != nil {
		_, ok := s.task.Sleep(at)
		return ok
	}
	d := time.Until(at)
	if d <= 0 {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	if s.t == nil {
		s.t = time.NewTimer(d)
	} else {
		s.t.Reset(d)
	}
	select {
	case <-s.t.C:
		return true
	case <-stop:
		s.t.Stop()
		return false
	}
}

// usePrecise makes untilPrecise wait on a timerfd where there is one.
func (s *sleeper) usePrecise() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.precise == nil && !s.stopped {
		s.precise = newTimerfd()
	}
}

// untilPrecise is until, within microseconds of at (timerfd), for a
// caller whose clock read now. It returns the time it woke (not before
// at), and false once interrupt was called.
func (s *sleeper) untilPrecise(at, now time.Time, stop <-chan struct{}) (time.Time, bool) {
	if s.task != nil {
		return s.task.Sleep(at)
	}
	p := s.precise
	if p == nil || !now.Before(at) {
		ok := s.until(at, stop)
		return time.Now(), ok
	}
	return p.wait(at, at.Sub(now))
}

// interrupt ends the current and every later precise wait; call it from
// the watchdog when the run stops early.
func (s *sleeper) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.precise != nil {
		s.precise.interrupt()
	}
}

// close releases the timerfd.
func (s *sleeper) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.precise != nil {
		s.precise.close()
		s.precise = nil
	}
}
