//go:build linux

package rawsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// echoServer answers every byte a client sends on loopback, after delay;
// it stops with the test.
func echoServer(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				b := make([]byte, 256)
				for {
					n, err := c.Read(b)
					if err != nil {
						return
					}
					select {
					case <-time.After(delay):
					case <-quit:
						return
					}
					if _, err := c.Write(b[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// exchanger sends a request and reads its echo through a Socket, as
// workload.Wire's fdWire does: the write inside the exchange, then reads
// until the whole echo is in.
type exchanger struct {
	sock      *Socket
	req, resp []byte
	sent, got int
	err       error
	step      func(uintptr) bool
}

func newExchanger(t *testing.T, addr string) (*exchanger, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	wc := Wrap(c)
	e := &exchanger{sock: SocketOf(wc)}
	if e.sock == nil {
		t.Fatal("a TCP connection has no Socket")
	}
	e.step = e.run
	return e, wc
}

func (e *exchanger) run(fd uintptr) bool {
	if e.sent < len(e.req) {
		if err := SendRest(fd, e.req, &e.sent); err != nil {
			e.err = err
			return true
		}
		return false
	}
	for e.got < len(e.resp) {
		n, err := Read(fd, e.resp[e.got:])
		switch {
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			e.err = err
			return true
		case n == 0:
			e.err = io.ErrUnexpectedEOF
			return true
		}
		e.got += n
	}
	return true
}

func (e *exchanger) roundTrip(req []byte) ([]byte, error) {
	e.req, e.sent, e.got, e.err = req, 0, 0, nil
	if cap(e.resp) < len(req) {
		e.resp = make([]byte, len(req))
	}
	e.resp = e.resp[:len(req)]
	if err := e.sock.Exchange(e.step); err != nil {
		return nil, err
	}
	return e.resp, e.err
}

func newLoop(t testing.TB) *Loop {
	t.Helper()
	l, err := NewLoop()
	if err != nil {
		t.Skipf("no event loop on this system: %v", err)
	}
	return l
}

// TestLoopExchanges: clients on one Loop each make their round trips
// through their own Socket, every echo whole and their own, and Run
// returns when every client has.
func TestLoopExchanges(t *testing.T) {
	addr := echoServer(t, 0)
	l := newLoop(t)
	const clients, trips = 8, 200
	errs := make([]error, clients)
	for i := range clients {
		e, c := newExchanger(t, addr)
		task := l.Add(func() {
			for k := range trips {
				req := []byte{byte(i), byte(k), byte(k >> 8), 'x'}
				resp, err := e.roundTrip(req)
				if err == nil && !bytes.Equal(resp, req) {
					err = errors.New("echo is not the request")
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
		if !Attach(c, task) {
			t.Fatal("a wrapped connection would not take a task")
		}
	}
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not finish its clients' round trips in 30 s")
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
}

// TestLoopSleepAndStop: a client sleeps on the Loop to the time it asks,
// never before; Stop ends a sleep and a wait for a reply that is not
// coming, each with its stopped result, and the Loop's Run returns.
func TestLoopSleepAndStop(t *testing.T) {
	addr := echoServer(t, time.Hour)
	l := newLoop(t)
	var early, slept atomic.Bool
	var sleepOK atomic.Bool
	var tripErr error
	l.Add(func() {
		task := l.tasks[0]
		at := time.Now().Add(20 * time.Millisecond)
		woke, ok := task.Sleep(at)
		early.Store(woke.Before(at))
		slept.Store(ok)
		_, ok = task.Sleep(time.Now().Add(time.Hour))
		sleepOK.Store(ok)
	})
	e, c := newExchanger(t, addr)
	Attach(c, l.Add(func() { _, tripErr = e.roundTrip([]byte("ping")) }))
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	time.Sleep(200 * time.Millisecond)
	l.Stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the loop's waits within 10 s")
	}
	if early.Load() || !slept.Load() {
		t.Errorf("the first sleep woke before its time (%v) or failed (ok %v)", early.Load(), slept.Load())
	}
	if sleepOK.Load() {
		t.Error("a sleep that Stop ended returned ok")
	}
	if !errors.Is(tripErr, ErrStopped) {
		t.Errorf("a round trip that Stop ended returned %v, want ErrStopped", tripErr)
	}
}

// TestLoopAwait: a client's Await runs its function off the Loop, while
// the Loop's other clients go on with their round trips.
func TestLoopAwait(t *testing.T) {
	addr := echoServer(t, 0)
	l := newLoop(t)
	release := make(chan struct{})
	var during atomic.Int64 // round trips made while the function ran
	var inAwait atomic.Bool
	var tripErr error
	l.Add(func() {
		l.tasks[0].Await(func() {
			inAwait.Store(true)
			<-release
			inAwait.Store(false)
		})
	})
	e, c := newExchanger(t, addr)
	Attach(c, l.Add(func() {
		for range 50 {
			if _, err := e.roundTrip([]byte("ping")); err != nil {
				tripErr = err
				break
			}
			if inAwait.Load() {
				during.Add(1)
			}
		}
		close(release)
	}))
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not finish in 30 s: Await held it up")
	}
	if tripErr != nil {
		t.Fatal(tripErr)
	}
	if during.Load() == 0 {
		t.Error("no round trip was made while another client awaited its function")
	}
}
