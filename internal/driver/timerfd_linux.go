//go:build linux

package driver

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// timerfd is a precise timer for the open loop's waits. Go's timers fire
// up to a millisecond late when the process is idle (the runtime then
// waits in epoll_wait, whose timeout is in whole milliseconds), and an open
// loop times latency from the intended start, so that lateness would count
// as the server's. A timerfd is a file the same netpoller waits on: it
// wakes the client within microseconds of the intended start. A wait
// costs one system call (arming the timer); the expiry is never read,
// since arming again resets it.
type timerfd struct {
	fd    int
	f     *os.File
	rc    syscall.RawConn
	spec  unix.ItimerSpec
	armed bool
	err   error
	step  func(uintptr) bool // t.arm, bound once: no allocation per wait
}

func newTimerfd() *timerfd {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil // the caller falls back to a Go timer
	}
	t := &timerfd{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return nil
	}
	t.step = t.arm
	return t
}

// settime arms fd for spec (relative). timerfd_settime never blocks, so
// it is made raw, as rawsock's calls are: without the scheduler's
// bookkeeping for calls that may block.
func settime(fd int, spec *unix.ItimerSpec) error {
	_, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(fd), 0, uintptr(unsafe.Pointer(spec)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// arm is called by RawConn.Read: first to arm the timer (after the poller
// forgot any earlier readiness, so the expiry cannot be missed), then,
// once the timer fired, to end the wait.
func (t *timerfd) arm(uintptr) bool {
	if t.armed {
		return true
	}
	t.armed = true
	if err := settime(t.fd, &t.spec); err != nil {
		t.err = err
		return true
	}
	return false
}

// wait sleeps until at, which is d after the caller's clock read; it
// returns the time it woke (at or after at: the clock is read once per
// wake-up, which the caller takes as its own "now"), and false when
// interrupted or broken.
func (t *timerfd) wait(at time.Time, d time.Duration) (time.Time, bool) {
	for d > 0 {
		t.spec.Value = unix.NsecToTimespec(int64(d))
		t.armed, t.err = false, nil
		if err := t.rc.Read(t.step); err != nil || t.err != nil {
			return time.Time{}, false
		}
		now := time.Now()
		if d = at.Sub(now); d <= 0 {
			return now, true
		}
	}
	return time.Now(), true
}

// interrupt wakes a wait from another goroutine, for good.
func (t *timerfd) interrupt() { _ = t.f.SetReadDeadline(time.Unix(1, 0)) }

func (t *timerfd) close() { _ = t.f.Close() }
