package rawsock

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// MaxWait bounds one blocking wait (AwaitReadable): a deadline set on the
// socket or a Close from another goroutine (a run's end, a cancelled
// context, a fault) is not seen by poll(2), so a waiting client notices
// it at most this late, when it falls back to Go's poller, which does.
const MaxWait = 20 // milliseconds

// blocked counts the threads waiting in AwaitReadable.
var blocked atomic.Int32

// Waiter waits for the replies on one socket; a client keeps one per
// connection. Its zero value is ready.
type Waiter struct {
	waits uint32
}

// yieldEvery: a client waits for a few hundred microseconds at most per
// reply on a busy server, so 16 waits are well inside sysmon's 10 ms.
const yieldEvery = 16

// AwaitReadable waits for fd to become readable in a blocking poll(2) on
// the calling OS thread, as a client thread of libpq or libmariadb does,
// instead of parking the goroutine on Go's poller: the kernel then wakes
// this thread itself when the reply arrives, with no epoll_wait and no
// scheduler hand-over in between. It is made as an ordinary (not raw)
// system call, so the runtime marks the thread's P as in a system call.
//
// The runtime hands that P to another thread only when sysmon retakes it
// (20 us to 10 ms later), so while a thread waits here its P runs nothing
// else: a wait is taken only while fewer than GOMAXPROCS-1 threads wait,
// which leaves one P for every other goroutine. Beyond that (and always
// at GOMAXPROCS 1 or 2) it returns false at once and the caller waits on
// Go's poller as before. false also when MaxWait passed without a reply.
// true: fd is readable (a reply, an EOF or an error to read).
//
// A goroutine that only ever waits in system calls never passes through
// the scheduler, and sysmon takes one that kept its time slice 10 ms for
// a long-running one: it preempts it and takes its P while it waits,
// which then costs a hand-over, an idle thread's epoll_wait and sysmon
// polling every 20 us (a third of the client's CPU when measured). So
// every yieldEvery-th wait of a Waiter first yields (runtime.Gosched),
// which starts a new time slice.
func (w *Waiter) AwaitReadable(fd uintptr) bool {
	if w.waits++; w.waits%yieldEvery == 0 {
		runtime.Gosched()
	}
	limit := int32(runtime.GOMAXPROCS(0) - 1)
	if blocked.Add(1) > limit {
		blocked.Add(-1)
		return false
	}
	defer blocked.Add(-1)
	fds := [1]pollFd{{fd: int32(fd), events: pollIn}}
	ts := syscall.Timespec{Sec: 0, Nsec: MaxWait * 1e6}
	for {
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1,
			uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue // ppoll does not restart; the time left is not kept, a wait may last a little longer
		case e != 0 || n == 0:
			return false // the poller's path reports the error, or waits on
		}
		return true
	}
}

// pollFd is struct pollfd of poll(2).
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1
