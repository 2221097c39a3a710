package mariadb

import (
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// sendOnRead is a connection's socket as go-sql-driver/mysql uses it,
// made to cost what libmariadb's blocking socket costs sysbench: a
// request's bytes are kept until the driver reads its reply, then
// written, waited on and read inside one syscall.RawConn.Read, as
// workload.Wire's fdWire does for PostgreSQL. Go's own read tries the
// socket first, and right after a request that try almost always fails:
// a wasted system call per statement. RawConn.Read forgets any earlier
// readiness before its callback runs, so the write must happen in the
// callback (after that), or the reply's readiness could be missed.
//
// A request the driver sends without waiting for a reply (closing a
// statement) goes with the next one; large writes (LOAD DATA's stream)
// go out at once, through the socket's own Write. Close sends what is
// kept (COM_QUIT) before closing, unless another goroutine is reading or
// writing (the driver's watchdog closing a stuck client's socket).
type sendOnRead struct {
	net.Conn
	sock *rawsock.Socket
	mu   sync.Mutex // held by Read and Write; Close only tries it
	out  []byte     // written, not yet sent
	sent int
	step func(uintptr) bool // run, bound once
	p    []byte             // the current Read's buffer
	n    int                // bytes read into p
	err  error
}

// maxKept bounds the bytes kept before a read: a request of a workload
// is far smaller; LOAD DATA's packets are written through at once.
const maxKept = 64 << 10

// sendingOnRead wraps c when its raw socket can be had and this system
// allows raw reads and writes (rawsock.Supported); else c itself.
func sendingOnRead(c net.Conn) net.Conn {
	sock := rawsock.NewSocket(c)
	if sock == nil {
		return c
	}
	s := &sendOnRead{Conn: c, sock: sock, out: make([]byte, 0, 4096)}
	s.step = s.run
	return s
}

func (s *sendOnRead) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.out)+len(p) <= maxKept {
		s.out = append(s.out, p...)
		return len(p), nil
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.Conn.Write(p)
}

// flush writes what is kept the ordinary way.
func (s *sendOnRead) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	_, err := s.Conn.Write(s.out)
	s.out = s.out[:0]
	return err
}

func (s *sendOnRead) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.out) == 0 {
		return s.Conn.Read(p)
	}
	s.p, s.n, s.err, s.sent = p, 0, nil, 0
	defer func() { s.p, s.out = nil, s.out[:0] }()
	for {
		if err := s.sock.Exchange(s.step); err != nil {
			return 0, err
		}
		if s.err != rawsock.ErrShortWrite {
			return s.n, s.err
		}
		// The socket's send buffer was full (never, for requests this
		// small): write the rest the ordinary way, then read.
		if _, err := s.Conn.Write(s.out[s.sent:]); err != nil {
			return 0, err
		}
		s.sent, s.err = len(s.out), nil
	}
}

// run is the RawConn.Read callback; false asks to wait for readability.
func (s *sendOnRead) run(fd uintptr) bool {
	if s.sent < len(s.out) {
		if err := rawsock.SendRest(fd, s.out, &s.sent); err != nil {
			s.err = err
			return true
		}
		return false // the reply cannot be there yet: wait for it
	}
	for {
		n, err := rawsock.Read(fd, s.p)
		switch {
		case err == syscall.EAGAIN:
			return false
		case err == syscall.EINTR:
			continue
		case err != nil:
			s.err = err
		case n == 0 && len(s.p) > 0:
			s.err = io.EOF
		}
		s.n = max(n, 0)
		return true
	}
}

// Unpoll takes the socket out of Go's netpoller in place
// (rawsock.Unpolled), for a client on a Loop of its own.
func (s *sendOnRead) Unpoll() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok bool
	s.Conn, ok = rawsock.Unpolled(s.Conn, s.sock)
	return ok
}

// RawSocket is the connection's socket (rawsock.SocketOf).
func (s *sendOnRead) RawSocket() *rawsock.Socket { return s.sock }

// Attach gives the socket's waits to t (rawsock.Attach): the driver's,
// between statements.
func (s *sendOnRead) Attach(t *rawsock.Task) bool {
	s.sock.Attach(t)
	return true
}

// Close sends what is kept, unless a read or write is under way in
// another goroutine, and closes the socket.
func (s *sendOnRead) Close() error {
	if s.mu.TryLock() {
		_ = s.flush()
		s.mu.Unlock()
	}
	return s.Conn.Close()
}
