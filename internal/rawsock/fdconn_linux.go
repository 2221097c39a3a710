package rawsock

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FdConn is a connection's socket out of Go's netpoller: a goroutine
// that waits for it sleeps in poll(2) on its own thread, as a client
// thread of libmariadb (sysbench's) does. On the netpoller a socket's
// every reply is an event for the runtime's epoll, and a thread idle in
// it wakes for each, though no goroutine waits there: a context switch
// per round trip for nothing. A client on a Loop waits in the Loop's own
// epoll either way.
//
// A wait sleeps at most waitSlice, so that a deadline set while it
// sleeps (workload.Watcher's, from another goroutine) ends it within
// that time. Close shuts the socket down first, which ends a wait at
// once, and closes the descriptor when no call is left on it.
type FdConn struct {
	fd           int
	mu           sync.RWMutex // shared by each call on fd, exclusive by Close
	closed       atomic.Bool
	rd, wd       atomic.Int64 // deadlines, Unix nanoseconds; 0 none
	rpoll, wpoll [1]unix.PollFd
	laddr, raddr net.Addr
}

// waitSlice bounds one sleep in poll(2): how late a deadline set during
// a wait takes effect.
const waitSlice = 20 * time.Millisecond

// detach takes c's socket out of Go's netpoller: an FdConn on a
// duplicate of c's descriptor, c closed (which removes its own from the
// netpoller; the socket stays open through the duplicate). A failure
// before c is closed leaves c open and as it was; f is nil (no error)
// when c has no descriptor.
func detach(c net.Conn) (f *FdConn, err error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, nil
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	f = &FdConn{fd: fd, laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
	f.rpoll[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	f.wpoll[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	if err := c.Close(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return f, nil
}

// Detached says whether c is a socket out of Go's netpoller (an FdConn).
func Detached(c net.Conn) bool {
	_, ok := c.(*FdConn)
	return ok
}

// Unpolled is c out of Go's netpoller for a connection that keeps s, c's
// Socket, in place: the FdConn that replaces c (closed), with s's raw
// calls moved to its descriptor, or c itself when it is out already.
// False, with c as it was, when it cannot be taken out. Call it only
// between exchanges, from the goroutine that makes them.
func Unpolled(c net.Conn, s *Socket) (net.Conn, bool) {
	if Detached(c) {
		return c, true
	}
	f, err := detach(c)
	if err != nil || f == nil {
		return c, false
	}
	s.rc, _ = f.SyscallConn()
	return f, true
}

// Unpoll takes the Conn's socket out of Go's netpoller in place
// (Unpolled): pgx keeps the Conn, whose calls then go to the FdConn.
func (c *Conn) Unpoll() bool {
	var ok bool
	c.Conn, ok = Unpolled(c.Conn, c.sock)
	return ok
}

// usable fails a call on a closed connection or past its deadline dl, as
// Go's own sockets do before they try the call.
func (c *FdConn) usable(dl *atomic.Int64) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	if d := dl.Load(); d != 0 && time.Now().UnixNano() >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// wait sleeps until the socket is ready for pfd's events, the deadline
// dl passes, or the connection is closed.
func (c *FdConn) wait(pfd *[1]unix.PollFd, dl *atomic.Int64) error {
	for {
		if c.closed.Load() {
			return net.ErrClosed
		}
		ms := int(waitSlice / time.Millisecond)
		if d := dl.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			ms = min(ms, int((left+time.Millisecond-1)/time.Millisecond))
		}
		n, err := unix.Poll(pfd[:], ms)
		if err != nil && err != unix.EINTR {
			return os.NewSyscallError("poll", err)
		}
		if n > 0 {
			return nil // ready, or an error or hang-up the next call reports
		}
	}
}

func (c *FdConn) Read(p []byte) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for {
		if err := c.usable(&c.rd); err != nil {
			return 0, err
		}
		n, err := Read(uintptr(c.fd), p)
		switch {
		case err == nil && n == 0 && len(p) > 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case err == syscall.EINTR:
			continue
		case err != syscall.EAGAIN:
			return 0, os.NewSyscallError("read", err)
		}
		if err := c.wait(&c.rpoll, &c.rd); err != nil {
			return 0, err
		}
	}
}

func (c *FdConn) Write(p []byte) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	sent := 0
	for sent < len(p) {
		if err := c.usable(&c.wd); err != nil {
			return sent, err
		}
		n, err := Write(uintptr(c.fd), p[sent:])
		if n > 0 {
			sent += n
		}
		switch {
		case err == nil || err == syscall.EINTR:
			continue
		case err != syscall.EAGAIN:
			return sent, os.NewSyscallError("write", err)
		}
		if err := c.wait(&c.wpoll, &c.wd); err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// Close shuts the socket down, which ends a wait in another goroutine,
// and closes the descriptor once that call has returned.
func (c *FdConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	c.mu.Lock()
	defer c.mu.Unlock()
	return unix.Close(c.fd)
}

func (c *FdConn) LocalAddr() net.Addr  { return c.laddr }
func (c *FdConn) RemoteAddr() net.Addr { return c.raddr }

func (c *FdConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *FdConn) SetReadDeadline(t time.Time) error {
	c.rd.Store(unixNano(t))
	return nil
}

func (c *FdConn) SetWriteDeadline(t time.Time) error {
	c.wd.Store(unixNano(t))
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// SyscallConn gives the descriptor to Socket (NewSocket): its Read's
// callback runs until it is done, with the waits it asks for in poll(2).
func (c *FdConn) SyscallConn() (syscall.RawConn, error) { return fdRaw{c}, nil }

type fdRaw struct{ c *FdConn }

func (r fdRaw) Control(f func(uintptr)) error {
	r.c.mu.RLock()
	defer r.c.mu.RUnlock()
	if r.c.closed.Load() {
		return net.ErrClosed
	}
	f(uintptr(r.c.fd))
	return nil
}

func (r fdRaw) Read(f func(uintptr) bool) error {
	return r.c.raw(f, &r.c.rpoll, &r.c.rd)
}

func (r fdRaw) Write(f func(uintptr) bool) error {
	return r.c.raw(f, &r.c.wpoll, &r.c.wd)
}

func (c *FdConn) raw(f func(uintptr) bool, pfd *[1]unix.PollFd, dl *atomic.Int64) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for {
		if err := c.usable(dl); err != nil {
			return err
		}
		if f(uintptr(c.fd)) {
			return nil
		}
		if err := c.wait(pfd, dl); err != nil {
			return err
		}
	}
}
