package rawsock

import (
	"container/heap"
	"errors"
	"iter"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Loop runs clients as coroutines on one goroutine that waits for all of
// their sockets and timers in one epoll_pwait2(2), as each of pgbench's
// threads waits for its share of the connections in one ppoll. On Go's
// own netpoller each client is a goroutine that the runtime parks on a
// reply and hands between OS threads when it comes; on one Loop a reply
// resumes its client on the thread that waited for it, and a client that
// waits switches to the next ready one without the scheduler
// (iter.Pull's coroutines). A wait's timeout has the kernel's timer
// slack (50 us by default), as pgbench -R's ppoll has. Every wait of a client on a Loop must go
// through its Task: a client that blocks otherwise (on Go's netpoller)
// holds up the Loop's other clients until it returns.
type Loop struct {
	epfd, wakefd int
	tickfd       int           // a one-shot timerfd for the next yield (bound)
	ticking      bool          // tickfd is armed
	nextYield    time.Duration // since base; when Run yields next
	base         time.Time
	tasks        []*Task
	ready        []*Task
	timers       timerHeap
	events       []unix.EpollEvent
	live         int
	stopped      bool // the loop's own copy of stopping
	mu           sync.Mutex
	woken        []*Task // by Await's goroutines
	stopping     bool
	closed       bool     // the descriptors are closed: kick no more
	pin          *pinning // nil: the thread is not pinned (Pin)
	// beside is the epoll descriptor (a duplicate) on Go's netpoller,
	// and its RawConn, and onefd a one-shot timerfd in the epoll set,
	// while goroutines wait there (waitBeside); onefd -1 otherwise.
	beside   *os.File
	besideRC syscall.RawConn
	onefd    int
	noBeside bool // the netpoller would not wait for it: never again
	ownP     bool // it keeps its P while it runs (OwnP)
}

// Task is one client on a Loop. Its methods are for the client's own
// coroutine, but Stop and Await's function.
type Task struct {
	loop    *Loop
	id      int32
	body    func()
	next    func() (struct{}, bool)
	yield   func(struct{}) bool
	fd      int32 // the socket it waits for; -1 none
	when    time.Duration
	at      int // in loop.timers; -1 none
	queued  bool
	done    bool
	awaited chan struct{} // set while Await's function runs
}

// ErrStopped is a wait's error once the Loop was stopped: the run is
// ending, and the client returns what it was doing.
var ErrStopped = errors.New("stopped")

// wakeID marks the eventfd's epoll events, tickID the yield's
// timerfd's, oneID the one-shot's of waitBeside.
const (
	wakeID = -1
	tickID = -2
	oneID  = -3
)

// NewLoop makes a Loop; nil (with the error) where the system lacks
// epoll_pwait2 (Linux 5.11), whose timeout in nanoseconds, not
// milliseconds, the open loop's intended starts need.
func NewLoop() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	l := &Loop{epfd: epfd, wakefd: wakefd, tickfd: -1, onefd: -1, base: time.Now(), events: make([]unix.EpollEvent, 64)}
	if l.tickfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		l.close()
		return nil, err
	}
	for _, fe := range []struct {
		fd int
		id int32
	}{{wakefd, wakeID}, {l.tickfd, tickID}} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fe.fd), Pad: fe.id}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fe.fd, &ev); err != nil {
			l.close()
			return nil, err
		}
	}
	if _, err := l.wait(0); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// HasLoops says whether NewLoop makes Loops on this system: false where
// the kernel lacks epoll_pwait2 (before Linux 5.11). Asked anew each
// time (a few system calls), so that a shortage of files at one moment
// is not taken for the kernel's answer.
func HasLoops() bool {
	l, err := NewLoop()
	if err != nil {
		return false
	}
	l.close()
	return true
}

// OwnP makes the Loop keep its P for as long as it runs: it never yields,
// its waits have no bound (bound), and its thread sleeps only for its
// clients. For a process that has a P beside its Loops for every other goroutine
// (GOMAXPROCS above their number: the driver's Loop per client), where
// a yield would only cost a hand-over of the P and a wake-up of the
// thread every millisecond; the clients' sockets must then be off Go's
// netpoller (Unpoll), or the spare P's thread, asleep in the runtime's
// epoll, wakes for each of their replies. Call it before Run.
func (l *Loop) OwnP() { l.ownP = true }

// OwnsP says whether OwnP was called.
func (l *Loop) OwnsP() bool { return l.ownP }

// Add makes body a client of the Loop, run when Run starts.
func (l *Loop) Add(body func()) *Task {
	t := &Task{loop: l, id: int32(len(l.tasks)), body: body, fd: -1, at: -1}
	l.tasks = append(l.tasks, t)
	return t
}

// Run runs the Loop's clients until each has returned, on the calling
// goroutine, and closes the Loop when they have. It locks the goroutine
// to its thread only when pinned (Pin): a locked goroutine that yields
// (below) hands its P to another thread and waits to get it back, and
// that thread would wait in Go's netpoller meanwhile (see wait). Pinned
// without the lock (the thread let go of its CPU at each yield), two
// rounds of three lost what pinning won (BENCHMARKS.md, "Loops pinned to
// CPUs").
func (l *Loop) Run() {
	defer l.close()
	if l.pin != nil {
		// Locked while pinned: the thread the Loop pinned is the one it
		// comes back to after each yield, and no other goroutine runs
		// on it meanwhile. Unlocked before the goroutine ends, or the
		// runtime would end the thread, and with it a server it started
		// with a parent-death signal.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l.pin.on()
		defer l.pin.off()
	}
	for _, t := range l.tasks {
		t.next, _ = iter.Pull(func(yield func(struct{}) bool) {
			t.yield = yield
			t.body()
		})
		l.push(t)
	}
	l.live = len(l.tasks)
	yielded := time.Since(l.base)
	every := yieldEvery
	if l.pin != nil {
		every = pinnedYieldEvery
	}
	l.nextYield = yielded + every
	for l.live > 0 {
		// Only poll readies clients: none is added while these run.
		for _, t := range l.ready {
			// Whatever woke it, it waits for nothing else now: a wait
			// it resumes early from (a stale wake-up) it begins again.
			t.queued, t.fd = false, -1
			l.unsetTimer(t)
			if _, ok := t.next(); !ok {
				t.done = true
				l.live--
				l.unsetTimer(t)
			}
		}
		l.ready = l.ready[:0]
		if l.live == 0 {
			break
		}
		// The Loop keeps its P while it waits (wait), so the process's
		// other goroutines (the collector, the monitor, an Await's
		// function, timers) get a P when it yields: every millisecond,
		// or every pinnedYieldEvery when pinned. While one waits on Go's
		// netpoller (Beside) the Loop yields every millisecond, waits
		// there too and gives its P up (waitBeside).
		// A Loop that owns its P (OwnP) has none to give.
		now := time.Since(l.base)
		if !l.ownP && (now-yielded >= every || (now-yielded >= yieldEvery && netWaiters.Load() > 0)) {
			l.yield()
			yielded = now
			l.nextYield = now + every
			now = time.Since(l.base) // the yield may have taken a while
		}
		l.poll(now)
	}
}

// yieldEvery is how often a Loop lets the scheduler run other goroutines
// on its P, and so how long it sleeps at most (bound).
const yieldEvery = time.Millisecond

// pinnedYieldEvery is yieldEvery for a pinned Loop while nothing waits
// Beside it. Its goroutine is locked to its thread, so each yield hands
// the P to another thread and back (the runtime's stoplockedm and
// startlockedm: futex wake-ups and two thread switches), even when
// nothing else is to run. At every millisecond the runtime's hand-over
// paths held up to a tenth of two pinned Loops' samples (perf), and a
// pinned Loop's ping-pong took a median 6.5 % longer per exchange than
// at 5 ms (8 pairs, 0.98-1.29x; BenchmarkPinnedYield, BENCHMARKS.md "A
// pinned Loop's yields"). It stays under the 10 ms after which the
// runtime preempts a goroutine (the same hand-over, by a signal); other
// goroutines, timers among them, wait at most this long for a P.
var pinnedYieldEvery = 5 * time.Millisecond // a variable for BenchmarkPinnedYield

// netWaiters counts the goroutines in Beside (Await's among them).
var netWaiters atomic.Int32

// Beside runs f, which waits on Go's netpoller (a connection made or
// closed beside the Loops, a fault's steps, a probe), and meanwhile has
// every Loop wait and yield so that the scheduler runs f and polls the
// network for it (waitBeside, Loop.yield). Otherwise, with every P held
// by Loops, f runs only when a Loop yields, a millisecond apart, and
// learns that its socket is ready only when sysmon polls the network,
// every 10 ms: a client's reconnection beside a busy Loop took 35 ms in
// the median, and 10.5 ms in Beside, where on a goroutine of its own it
// took 12-16 ms (BENCHMARKS.md, "beside the event loops").
func Beside(f func()) {
	netWaiters.Add(1)
	defer netWaiters.Add(-1)
	f()
}

// yield lets the process's other goroutines run on the Loop's P. Gosched
// runs those ready to run. While a goroutine waits on the netpoller
// (Beside) the Loop then sleeps a moment too: the scheduler polls the
// network only when its run queues are empty, and would find the Loop's
// goroutine, which Gosched put on the global queue, first. The one-shot
// timer ends the runtime's wait on time (waitBeside).
func (l *Loop) yield() {
	runtime.Gosched()
	if netWaiters.Load() > 0 && l.enterNetpoller() {
		l.armOne(netYield)
		time.Sleep(netYield)
	}
}

// netYield is how long a yielding Loop sleeps while a goroutine waits on
// Go's netpoller: a tenth of the time between yields, which a busy Loop
// gives up while a goroutine waits there, and the most its clients'
// timers (an open loop's arrivals) are late meanwhile. At 20 us a
// goroutine beside a busy pinned Loop, whose every sleep hands its P to
// another thread and back, made 21 round trips in 300 ms (16 outside
// Beside); at 100 us 860, and 1,820 beside an unpinned Loop.
const netYield = 100 * time.Microsecond

// Stop ends every wait on the Loop and every later one with ErrStopped;
// any goroutine may call it.
func (l *Loop) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopping = true
	l.kick()
}

// poll waits for the next socket, timer or wake-up and readies the
// clients it concerns; now is the time since base, read by Run just
// before (one clock read per turn of the Loop).
func (l *Loop) poll(now time.Duration) {
	timeout := time.Duration(-1)
	if len(l.ready) > 0 {
		timeout = 0
	} else {
		if len(l.timers) > 0 {
			timeout = max(l.timers[0].when-now, 0)
		}
		timeout = l.bound(timeout, now)
	}
	var n int
	var err error
	if timeout != 0 && netWaiters.Load() > 0 && !l.ownP {
		n, err = l.waitBeside(timeout)
	} else {
		l.leaveNetpoller()
		n, err = l.wait(timeout)
	}
	if err != nil && err != unix.EINTR {
		// Not expected of a valid epoll fd: stop rather than spin.
		l.halt()
		return
	}
	for _, ev := range l.events[:max(n, 0)] {
		switch ev.Pad {
		case wakeID:
			l.woke()
			continue
		case tickID, oneID:
			fd := l.tickfd
			if ev.Pad == oneID {
				fd = l.onefd
			} else {
				l.ticking = false
			}
			var b [8]byte
			_, _ = unix.Read(fd, b[:])
			continue
		}
		t := l.tasks[ev.Pad]
		if !t.done && t.fd == ev.Fd {
			t.fd = -1
			l.unsetTimer(t)
			l.push(t)
		}
	}
	if len(l.timers) > 0 {
		now := time.Since(l.base)
		for len(l.timers) > 0 && l.timers[0].when <= now {
			t := heap.Pop(&l.timers).(*Task)
			t.fd = -1
			l.push(t)
		}
	}
}

// bound keeps a wait of timeout (negative: none), at now since base,
// from running past the Loop's next yield (Run). A wait with a timer
// of its own (an open loop's next arrival, a think time) ends by then;
// one without arms the one-shot tickfd for that time, unless it is
// armed already, so that a Loop whose clients only wait for replies
// makes one system call more per yield, not per wait: a timeout given to
// each such wait arms and cancels a timer in every one, which cost a
// busy closed Loop 6 % more CPU per transaction (BENCHMARKS.md, "event
// loops"). A periodic tick, as before, also fired while every wait had
// a timer: 1,000 timer interrupts a second and a read of the timerfd
// each, which cost the open loop 1.4 % of its CPU per transaction
// (BENCHMARKS.md, "the open loop's tick"). A Loop that owns its P never
// yields, and has no bound.
func (l *Loop) bound(timeout, now time.Duration) time.Duration {
	if l.ownP {
		return timeout
	}
	left := max(l.nextYield-now, 0)
	if timeout >= 0 {
		return min(timeout, left)
	}
	if !l.ticking {
		// 0 would disarm it. Should arming fail, the next such wait
		// tries again; a Loop asleep past its yield still wakes when
		// the runtime preempts its goroutine (EINTR, wait).
		ts := unix.NsecToTimespec(max(int64(left), 1))
		l.ticking = unix.TimerfdSettime(l.tickfd, 0, &unix.ItimerSpec{Value: ts}, nil) == nil
	}
	return timeout
}

// woke takes the wake-ups other goroutines sent.
func (l *Loop) woke() {
	var b [8]byte
	_, _ = unix.Read(l.wakefd, b[:])
	l.mu.Lock()
	woken, stopping := l.woken, l.stopping
	l.woken = nil
	l.mu.Unlock()
	for _, t := range woken {
		if !t.done {
			l.push(t)
		}
	}
	if stopping {
		l.halt()
	}
}

// halt ends every wait, and every later one, with ErrStopped.
func (l *Loop) halt() {
	if l.stopped {
		return
	}
	l.stopped = true
	for _, t := range l.tasks {
		if !t.done && (t.fd >= 0 || t.at >= 0) {
			t.fd = -1
			l.unsetTimer(t)
			l.push(t)
		}
	}
}

// wait is epoll_pwait2 with timeout (negative: none), made as a raw
// system call: the Loop's thread keeps its P while it sleeps, as
// pgbench's thread sleeps in ppoll. Through the scheduler's bookkeeping
// for calls that may block, sysmon took the P of a thread asleep in it
// for over 20 us whenever no P was idle, and with every thread asleep
// that kept sysmon waking every 20 us: twice the voluntary context
// switches per transaction of the raw call, and half again the user
// time (BENCHMARKS.md, "event loops"). A sleeping Loop's P cannot run
// other goroutines, so it sleeps a millisecond at most (bound) and then
// yields (Run). Nor may a P be left idle beside the Loops: its thread would wait
// in Go's own netpoller, where the clients' sockets are registered too,
// and wake with every reply for nothing. A signal (the runtime
// preempting the Loop's goroutine, a stop-the-world) interrupts the wait
// with EINTR.
func (l *Loop) wait(timeout time.Duration) (int, error) {
	var ts *unix.Timespec
	if timeout >= 0 {
		t := unix.NsecToTimespec(int64(timeout))
		ts = &t
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])),
		uintptr(len(l.events)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// waitBeside is wait on Go's netpoller, for while other goroutines wait
// there (Beside): asleep there the Loop's goroutine gives up its P, and
// the scheduler runs the others and polls the network as it does without
// Loops; in the raw wait the Loop keeps its P for up to a millisecond.
// The runtime's own wait counts in milliseconds, rounded up, so the
// Loop's timeout is a one-shot timerfd in its epoll set: its expiry is an
// event of the Loop's descriptor, on time, as a socket's reply is.
func (l *Loop) waitBeside(timeout time.Duration) (int, error) {
	if !l.enterNetpoller() {
		return l.wait(timeout)
	}
	if timeout > 0 {
		l.armOne(timeout)
	}
	var n int
	var werr error
	err := l.besideRC.Read(func(uintptr) bool {
		n, werr = l.wait(0)
		return n > 0 || (werr != nil && werr != unix.EINTR)
	})
	if err != nil {
		// Not expected (the runtime could not wait for the descriptor):
		// the Loop waits as it does alone from now on.
		l.noBeside = true
		l.leaveNetpoller()
		return l.wait(timeout)
	}
	return n, werr
}

// enterNetpoller puts the Loop's epoll descriptor on Go's netpoller, and
// the one-shot timerfd in its set; false where it cannot (the Loop then
// waits as it does alone). They come off once no goroutine waits on the
// netpoller (leaveNetpoller): a descriptor on it makes a P idle in the
// runtime's epoll wake for every event of the Loop's.
func (l *Loop) enterNetpoller() bool {
	if l.beside == nil && !l.noBeside {
		l.beside, l.besideRC, l.onefd = netpollerFile(l.epfd)
		l.noBeside = l.beside == nil // not again: the Loop waits as it does alone
	}
	return l.beside != nil
}

// netpollerFile is a duplicate of epfd on Go's netpoller, its RawConn,
// and a one-shot timerfd added to epfd's set; nil where one of them
// cannot be made.
func netpollerFile(epfd int) (*os.File, syscall.RawConn, int) {
	one, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, nil, -1
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(one), Pad: oneID}
	fd := -1
	if err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, one, &ev); err == nil {
		fd, err = unix.FcntlInt(uintptr(epfd), unix.F_DUPFD_CLOEXEC, 0)
	}
	if err == nil {
		// os.NewFile puts only a non-blocking descriptor on the
		// netpoller. The flag is the duplicate's and the original's
		// (one open file); epoll_pwait2 does not read it.
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		unix.Close(one) // out of the set with it
		return nil, nil, -1
	}
	f := os.NewFile(uintptr(fd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		unix.Close(one)
		return nil, nil, -1
	}
	return f, rc, one
}

// armOne sets the one-shot timerfd to fire after d.
func (l *Loop) armOne(d time.Duration) {
	ts := unix.NsecToTimespec(max(int64(d), 1)) // 0 would disarm it
	_ = unix.TimerfdSettime(l.onefd, 0, &unix.ItimerSpec{Value: ts}, nil)
}

// leaveNetpoller takes the epoll descriptor off Go's netpoller, and the
// one-shot timerfd out of its set, once no goroutine waits there.
func (l *Loop) leaveNetpoller() {
	if l.beside != nil && (netWaiters.Load() == 0 || l.noBeside) {
		l.beside.Close()
		unix.Close(l.onefd) // its last descriptor: out of the epoll set
		l.beside, l.besideRC, l.onefd = nil, nil, -1
	}
}

func (l *Loop) push(t *Task) {
	if !t.queued {
		t.queued = true
		l.ready = append(l.ready, t)
	}
}

func (l *Loop) unsetTimer(t *Task) {
	if t.at >= 0 {
		heap.Remove(&l.timers, t.at)
	}
}

// kick wakes the Loop's wait from another goroutine; call it with mu
// held, which keeps the eventfd open meanwhile.
func (l *Loop) kick() {
	if l.closed {
		return // Run has returned: nobody waits
	}
	one := [8]byte{1}
	_, _ = unix.Write(l.wakefd, one[:])
}

func (l *Loop) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.beside != nil {
		l.beside.Close()
		unix.Close(l.onefd)
	}
	unix.Close(l.wakefd)
	if l.tickfd >= 0 {
		unix.Close(l.tickfd)
	}
	unix.Close(l.epfd)
}

// park gives the thread to the Loop's other clients until the Loop
// resumes this one; ErrStopped once the Loop was stopped.
func (t *Task) park() error {
	if t.loop.stopped {
		return ErrStopped
	}
	t.yield(struct{}{})
	if t.loop.stopped {
		return ErrStopped
	}
	return nil
}

// readable waits until fd, s's socket, may be read.
func (t *Task) readable(s *Socket, fd uintptr) error {
	if s.loop != t.loop {
		// Edge-triggered: a reply is one event, whenever it comes; a
		// wake-up without one (data the client read already) costs a
		// read that finds nothing.
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(fd), Pad: t.id}
		err := unix.EpollCtl(t.loop.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
		if err == unix.EEXIST {
			err = unix.EpollCtl(t.loop.epfd, unix.EPOLL_CTL_MOD, int(fd), &ev)
		}
		if err != nil {
			return err
		}
		s.loop = t.loop
	}
	t.fd = int32(fd)
	return t.park()
}

// Sleep waits until at; it returns the time it woke (at or after at),
// and false once the Loop was stopped.
func (t *Task) Sleep(at time.Time) (time.Time, bool) {
	l := t.loop
	for {
		now := time.Now()
		if !now.Before(at) || l.stopped {
			return now, !l.stopped
		}
		t.when = at.Sub(l.base)
		heap.Push(&l.timers, t)
		if t.park() != nil {
			return time.Now(), false
		}
	}
}

// Await runs f on a goroutine of its own and waits until it returns,
// while the Loop's other clients run: for what blocks on Go's own
// netpoller (connecting, closing a connection).
func (t *Task) Await(f func()) {
	done := make(chan struct{})
	go func() {
		defer func() {
			close(done) // before the wake-up, which must find it closed
			l := t.loop
			l.mu.Lock()
			l.woken = append(l.woken, t)
			l.kick()
			l.mu.Unlock()
		}()
		Beside(f)
	}()
	for {
		_ = t.park() // a stopped Loop still waits for f: it owns the client's state
		select {
		case <-done:
			return
		default:
			if t.loop.stopped {
				<-done
				return
			}
		}
	}
}

// timerHeap orders the sleeping clients by when they wake.
type timerHeap []*Task

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*Task)
	t.at = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.at = -1
	return t
}
