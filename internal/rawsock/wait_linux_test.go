package rawsock

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// pair is a connected pair of non-blocking Unix stream sockets, closed
// when the test ends (unless closed before).
func pair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	return fds[0], fds[1]
}

// withProcs runs the test at GOMAXPROCS n, which sets how many threads
// may wait at once.
func withProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// A wait ends when the peer writes, gives up after MaxWait when it does
// not, and ends when the peer goes away (a killed server).
func TestAwaitReadable(t *testing.T) {
	withProcs(t, 4)
	a, b := pair(t)
	var w Waiter

	start := time.Now()
	if w.AwaitReadable(uintptr(a)) {
		t.Fatal("readable with nothing sent")
	}
	if d := time.Since(start); d < MaxWait*time.Millisecond/2 || d > 2*time.Second {
		t.Errorf("an unanswered wait took %v, want about %d ms", d, MaxWait)
	}

	go func() {
		time.Sleep(5 * time.Millisecond)
		syscall.Write(b, []byte("reply"))
	}()
	if !waitLong(&w, a) {
		t.Fatal("the reply was not seen")
	}
	buf := make([]byte, 16)
	if n, err := Read(uintptr(a), buf); err != nil || string(buf[:n]) != "reply" {
		t.Fatalf("read %q %v", buf[:n], err)
	}

	syscall.Close(b)
	if !w.AwaitReadable(uintptr(a)) {
		t.Fatal("the peer's close was not seen")
	}
	if n, err := Read(uintptr(a), buf); n != 0 || err != nil {
		t.Fatalf("after the peer's close: %d %v, want end of stream", n, err)
	}
	if got := blocked.Load(); got != 0 {
		t.Errorf("%d waits counted after all ended", got)
	}
}

// waitLong waits as a client does: blocking waits until one sees the fd
// readable, for at most a second.
func waitLong(w *Waiter, fd int) bool {
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		if w.AwaitReadable(uintptr(fd)) {
			return true
		}
	}
	return false
}

// At most GOMAXPROCS-1 threads wait at once; beyond that, and at
// GOMAXPROCS 1 or 2 always, AwaitReadable returns false at once, so that
// waiting threads never hold every P.
func TestAwaitReadableBounded(t *testing.T) {
	withProcs(t, 1)
	a, _ := pair(t)
	var w Waiter
	start := time.Now()
	if w.AwaitReadable(uintptr(a)) {
		t.Fatal("readable with nothing sent")
	}
	if d := time.Since(start); d >= MaxWait*time.Millisecond/2 {
		t.Errorf("waited %v at GOMAXPROCS 1, want no wait", d)
	}

	runtime.GOMAXPROCS(3) // two may wait
	blocked.Store(2)      // as if two threads were waiting
	defer blocked.Store(0)
	start = time.Now()
	if w.AwaitReadable(uintptr(a)) {
		t.Fatal("a third wait saw a reply that was never sent")
	}
	if d := time.Since(start); d >= MaxWait*time.Millisecond/2 {
		t.Errorf("a third thread waited %v with two waiting at GOMAXPROCS 3, want no wait", d)
	}
	if got := blocked.Load(); got != 2 {
		t.Errorf("%d waits counted after a refused one, want 2", got)
	}
}
