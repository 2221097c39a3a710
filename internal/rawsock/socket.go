package rawsock

import (
	"net"
	"syscall"
)

// Socket is a client connection's socket as its hot path uses it: the
// exchange of a request and its reply inside syscall.RawConn.Read, whose
// waits for the reply go to Go's netpoller, or to a Loop once the driver
// attached the client's Task.
type Socket struct {
	rc   syscall.RawConn
	task *Task
	loop *Loop // whose epoll has the socket; nil: none
	step func(uintptr) bool
	err  error
	// onLoop is s.exchangeOnLoop, bound once: no allocation per exchange.
	onLoop func(uintptr) bool
}

// NewSocket is c's Socket; nil when c has no raw socket, or this system
// no raw calls (Supported).
func NewSocket(c net.Conn) *Socket {
	sc, ok := c.(syscall.Conn)
	if !ok || !Supported {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	s := &Socket{rc: rc}
	s.onLoop = s.exchangeOnLoop
	return s
}

// Exchange calls step with the socket's descriptor inside
// RawConn.Read (which holds the descriptor open and forgets any earlier
// readiness before step first runs, so that a reply to a request step
// writes cannot be missed) until step returns true; false asks to wait
// until the socket is readable.
func (s *Socket) Exchange(step func(fd uintptr) bool) error {
	if s.task == nil {
		return s.rc.Read(step)
	}
	s.step, s.err = step, nil
	err := s.rc.Read(s.onLoop)
	s.step = nil
	if err != nil {
		return err
	}
	return s.err
}

func (s *Socket) exchangeOnLoop(fd uintptr) bool {
	for !s.step(fd) {
		if s.err = s.task.readable(s, fd); s.err != nil {
			break
		}
	}
	return true
}

// Attach makes the socket's waits t's (nil: Go's netpoller's again).
// Call it only between exchanges, from the goroutine that makes them.
func (s *Socket) Attach(t *Task) { s.task = t }

// Conn is a network connection with its Socket, as a PostgreSQL client
// dials it (engine/postgres), so that the driver can attach a Loop's Task
// to it and the protocol code find it (SocketOf).
type Conn struct {
	net.Conn
	sock *Socket
}

// Wrap is c with its Socket, or c itself where it has none.
func Wrap(c net.Conn) net.Conn {
	if s := NewSocket(c); s != nil {
		return &Conn{Conn: c, sock: s}
	}
	return c
}

func (c *Conn) RawSocket() *Socket { return c.sock }

// SocketOf is c's Socket, nil if it has none.
func SocketOf(c net.Conn) *Socket {
	if r, ok := c.(interface{ RawSocket() *Socket }); ok {
		return r.RawSocket()
	}
	return nil
}

// Attacher is a connection whose sockets' waits a Task can take over:
// every socket of a client (its replicas' too) must, or none.
type Attacher interface {
	Attach(t *Task) bool
}

func (c *Conn) Attach(t *Task) bool {
	c.sock.Attach(t)
	return true
}

// Attach gives c's sockets' waits to t (nil: back to Go's netpoller);
// false when c cannot (a TLS connection, another engine's client).
func Attach(c net.Conn, t *Task) bool {
	if a, ok := c.(Attacher); ok {
		return a.Attach(t)
	}
	return false
}

// Unpoller is a connection whose sockets can be taken out of Go's
// netpoller (FdConn), so that no thread idle in the runtime's epoll wakes
// for their replies: every socket of a client, or none.
type Unpoller interface {
	Unpoll() bool
}

// Unpoll takes c's sockets out of Go's netpoller, or finds them out
// already; false when c cannot (a TLS connection, a system without raw
// calls). Call it only between exchanges, from the goroutine that makes
// them.
func Unpoll(c net.Conn) bool {
	if u, ok := c.(Unpoller); ok {
		return u.Unpoll()
	}
	return false
}
