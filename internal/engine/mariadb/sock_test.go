package mariadb

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// loopback is a connected pair of TCP sockets on 127.0.0.1: the client's
// end wrapped by sendingOnRead, the server's end as it is.
func loopback(t *testing.T) (client, server net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return sendingOnRead(c), s
}

// A request is kept until the reply is read, then sent and the reply
// read; a second request the first did not wait for goes with it.
func TestSendOnRead(t *testing.T) {
	c, s := loopback(t)
	if _, ok := c.(*sendOnRead); !ok && rawsock.Supported {
		t.Fatalf("a TCP socket was not wrapped: %T", c)
	}
	go func() {
		buf := make([]byte, 64)
		var got []byte
		for len(got) < len("closequery") {
			n, err := s.Read(buf)
			if err != nil {
				return
			}
			got = append(got, buf[:n]...)
		}
		s.Write(append([]byte("reply to "), got...))
	}()
	for _, p := range []string{"close", "query"} {
		if n, err := c.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("write %q: %d %v", p, n, err)
		}
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	want := "reply to closequery"
	got := make([]byte, 0, 64)
	buf := make([]byte, 64)
	for len(got) < len(want) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("read after %q: %v", got, err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

// Close sends what was kept; a write larger than what is kept goes out
// at once, in order after what was kept.
func TestSendOnReadCloseAndLarge(t *testing.T) {
	c, s := loopback(t)
	large := bytes.Repeat([]byte("x"), maxKept+1)
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(s)
		read <- b
	}()
	if _, err := c.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(large); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("quit")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte("a"), large...), "quit"...)
	select {
	case got := <-read:
		if !bytes.Equal(got, want) {
			t.Errorf("the server read %d bytes, want %d in order", len(got), len(want))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server read nothing")
	}
}

// A deadline in the past fails a read that waits for its reply, as a
// workload's watcher sets it when its context ends.
func TestSendOnReadDeadline(t *testing.T) {
	c, _ := loopback(t)
	if _, err := c.Write([]byte("query")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	c.SetDeadline(time.Unix(1, 0))
	select {
	case err := <-done:
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			t.Errorf("read: %v, want a timeout", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the deadline did not end the read")
	}
}

// Unpoll takes a wrapped socket out of Go's netpoller in place: the
// wrapper and its Socket stay, a request and its reply still go through
// it, and a second Unpoll finds it out already.
func TestSendOnReadUnpoll(t *testing.T) {
	c, s := loopback(t)
	so, ok := c.(*sendOnRead)
	if !ok {
		t.Skip("no raw sockets here")
	}
	sock := so.sock
	if rawsock.Detached(so.Conn) {
		t.Fatal("out of the netpoller before Unpoll")
	}
	if !rawsock.Unpoll(c) || !rawsock.Detached(so.Conn) || so.sock != sock || !rawsock.Unpoll(c) {
		t.Fatalf("Unpoll: %T", so.Conn)
	}
	go func() {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(s, buf); err == nil {
			s.Write(append([]byte("reply to "), buf...))
		}
	}()
	if _, err := c.Write([]byte("query")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len("reply to query"))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "reply to query" {
		t.Fatalf("read %q: %v", got, err)
	}
}
