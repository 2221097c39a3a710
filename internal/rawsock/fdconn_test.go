//go:build linux

package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpPair is a loopback TCP connection: its client end, and its server
// end, closed when the test ends.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return c, srv
}

// detachedPair is tcpPair with its client end detached.
func detachedPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	c, srv := tcpPair(t)
	d, err := detach(c)
	if err != nil || d == nil {
		t.Fatalf("detach: %v, %v", d, err)
	}
	return d, srv
}

func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestFdConnExchange: bytes go both ways, including more than the
// socket buffers hold (a write that must wait), and a read waits for
// the reply; the original descriptor is gone and Close leaves none.
func TestFdConnExchange(t *testing.T) {
	before := openFds(t)
	c, srv := detachedPair(t)
	if got := openFds(t); got != before+2 { // the detached end and the server's
		t.Errorf("%d descriptors open, want %d", got, before+2)
	}
	go func() {
		buf := make([]byte, 4)
		if _, err := io.ReadFull(srv, buf); err == nil {
			time.Sleep(50 * time.Millisecond)
			srv.Write([]byte("pong"))
		}
		io.Copy(io.Discard, srv)
	}()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("read %q, %v", buf, err)
	}
	big := make([]byte, 16<<20)
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("wrote %d of %d: %v", n, len(big), err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := openFds(t); got != before+1 {
		t.Errorf("%d descriptors open after Close, want %d", got, before+1)
	}
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
}

// TestFdConnDeadline: a deadline set while a read waits ends it (as
// workload.Watcher sets one from another goroutine), a deadline in the
// past fails the next call, and a cleared one lets reads work again.
func TestFdConnDeadline(t *testing.T) {
	c, srv := detachedPair(t)
	defer c.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	set := time.Now()
	c.SetDeadline(time.Unix(1, 0))
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v", err)
		}
		if took := time.Since(set); took > 10*waitSlice {
			t.Errorf("the read ended %v after the deadline was set", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a deadline set during a read did not end it")
	}
	srv.Write([]byte("x"))
	if _, err := c.Write([]byte("y")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("write past the deadline: %v", err)
	}
	c.SetDeadline(time.Time{})
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil || buf[0] != 'x' {
		t.Errorf("read after the deadline was cleared: %q %v", buf, err)
	}
}

// TestFdConnCloseWakes: Close from another goroutine ends a read that
// waits (the driver's watchdog closing a stuck client's socket).
func TestFdConnCloseWakes(t *testing.T) {
	c, _ := detachedPair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a read ended by Close returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a waiting read")
	}
	if err := <-done; err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestFdConnSocket: the hot path's exchange (Socket) runs on a detached
// connection, its wait in poll(2).
func TestFdConnSocket(t *testing.T) {
	c, srv := detachedPair(t)
	defer c.Close()
	go func() {
		buf := make([]byte, 3)
		for {
			if _, err := io.ReadFull(srv, buf); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
			srv.Write(buf)
		}
	}()
	s := NewSocket(c)
	if s == nil {
		t.Fatal("no Socket")
	}
	out, sent := []byte("abc"), 0
	got := make([]byte, 0, 3)
	err := s.Exchange(func(fd uintptr) bool {
		if sent < len(out) {
			if err := SendRest(fd, out, &sent); err != nil {
				t.Error(err)
				return true
			}
			return false
		}
		n, err := Read(fd, got[len(got):cap(got)])
		if err != nil {
			return false
		}
		got = got[:len(got)+n]
		return len(got) == cap(got)
	})
	if err != nil || string(got) != "abc" {
		t.Fatalf("exchange: %q %v", got, err)
	}
}

// TestUnpoll: a wrapped connection's socket taken out of Go's netpoller
// in place: the Conn and its Socket keep working (the Socket's raw
// exchange, the Conn's own calls), on the duplicate descriptor alone;
// a second Unpoll finds it out already.
func TestUnpoll(t *testing.T) {
	before := openFds(t)
	nc, srv := tcpPair(t)
	c := Wrap(nc)
	sock := SocketOf(c)
	if sock == nil || Detached(c.(*Conn).Conn) {
		t.Fatalf("Wrap gave %T, its socket %v", c, sock)
	}
	if !Unpoll(c) || !Detached(c.(*Conn).Conn) || SocketOf(c) != sock {
		t.Fatalf("Unpoll did not take the socket out in place: %T", c.(*Conn).Conn)
	}
	if got := openFds(t); got != before+2 { // the duplicate and the server's end
		t.Errorf("%d descriptors open, want %d: the original is not closed", got, before+2)
	}
	if !Unpoll(c) {
		t.Error("a second Unpoll failed")
	}
	go func() { // an echo
		b := make([]byte, 4)
		for {
			if _, err := io.ReadFull(srv, b); err != nil {
				return
			}
			srv.Write(b)
		}
	}()
	got := make([]byte, 4)
	n := 0
	sent := false
	if err := sock.Exchange(func(fd uintptr) bool {
		if !sent {
			if _, err := Write(fd, []byte("ping")); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
		m, err := Read(fd, got[n:])
		n += max(m, 0)
		return err == nil && n == 4
	}); err != nil || string(got) != "ping" {
		t.Fatalf("the Socket's exchange: %q, %v", got, err)
	}
	if _, err := c.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "pong" {
		t.Fatalf("the Conn's own calls: %q, %v", got, err)
	}
	c.Close()
	if got := openFds(t); got != before+1 {
		t.Errorf("%d descriptors open after Close, want %d", got, before+1)
	}
	if Unpoll(&net.TCPConn{}) {
		t.Error("Unpoll of a connection that is no Unpoller succeeded")
	}
}
