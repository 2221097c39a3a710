//go:build linux

package rawsock

import (
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBeside: with every P held by a Loop, idle (one client asleep) or
// busy (two clients in a ping-pong), pinned to a CPU or not, a goroutine that waits on Go's
// netpoller makes its round trips to an echo server several times as
// fast in Beside as outside it. Outside, it learns of each reply only
// when sysmon polls the network, every 10 ms.
func TestBeside(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	addr := echoServer(t, 0)
	for _, c := range []struct {
		name         string
		busy, pinned bool
	}{{"idle", false, false}, {"busy", true, false}, {"idle pinned", false, true}, {"busy pinned", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			plain := besideTrips(t, addr, c.busy, c.pinned, false)
			beside := besideTrips(t, addr, c.busy, c.pinned, true)
			t.Logf("round trips in %v: %d in Beside, %d outside", besideFor, beside, plain)
			if beside < 3*plain || beside < 30 {
				t.Errorf("%d round trips in Beside against %d outside it: want at least 3 times as many, and 30", beside, plain)
			}
		})
	}
}

const besideFor = 300 * time.Millisecond

// besideTrips counts the round trips a goroutine makes to the echo server
// at addr over besideFor while a Loop runs, in Beside or not.
func besideTrips(t *testing.T, addr string, busy, pinned, beside bool) int {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l := newLoop(t)
	if pinned {
		cpus, mask := CPUs()
		if len(cpus) == 0 {
			t.Skip("the process's CPUs cannot be read")
		}
		l.Pin(cpus[0], mask)
	}
	l.Add(func() { l.tasks[0].Sleep(time.Now().Add(time.Hour)) })
	if busy {
		pingPong(t, l)
	}
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	n := 0
	trips := func() {
		b := []byte("ping")
		for end := time.Now().Add(besideFor); time.Now().Before(end); n++ {
			if _, err := c.Write(b); err != nil {
				t.Error(err)
				return
			}
			if _, err := io.ReadFull(c, b); err != nil {
				t.Error(err)
				return
			}
		}
	}
	if beside {
		Beside(trips)
	} else {
		trips()
	}
	l.Stop()
	<-done
	if pinned && !l.Pinned() {
		t.Error("the Loop did not run pinned")
	}
	return n
}

// pingPong adds two clients to l that send a message back and forth over
// a socket pair until the Loop stops: a Loop always busy, on no socket
// of Go's netpoller.
func pingPong(t testing.TB, l *Loop) (exchanges *int) {
	conns := wrappedPair(t)
	e := &exchanger{sock: SocketOf(conns[0])}
	e.step = e.run
	exchanges = new(int)
	Attach(conns[0], l.Add(func() {
		for ; ; *exchanges++ {
			if _, err := e.roundTrip([]byte("ping")); err != nil {
				return
			}
		}
	}))
	sock := SocketOf(conns[1])
	var buf [16]byte
	var have, sent int
	var failed bool
	echo := func(fd uintptr) bool {
		if have == 0 {
			n, err := Read(fd, buf[:])
			if err == syscall.EAGAIN {
				return false
			}
			if err != nil || n == 0 {
				failed = true
				return true
			}
			have, sent = n, 0
		}
		if err := SendRest(fd, buf[:have], &sent); err != nil {
			failed = true
			return true
		}
		if sent < have {
			return false
		}
		have = 0
		return true
	}
	Attach(conns[1], l.Add(func() {
		for !failed {
			if err := sock.Exchange(echo); err != nil {
				return
			}
		}
	}))
	return exchanges
}

// wrappedPair is a connected pair of Unix sockets, each Wrapped; they
// close with the test.
func wrappedPair(t testing.TB) [2]net.Conn {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = Wrap(c)
	}
	return conns
}
