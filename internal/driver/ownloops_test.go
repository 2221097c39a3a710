//go:build linux

package driver

import (
	"net"
	"testing"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// TestOwnLoopsNeedsLoops: a saturating closed loop at the default Procs
// and Loops takes its clients' sockets out of Go's netpoller for a Loop
// each, but not where the system makes no Loops (a kernel before 5.11):
// there the sockets stay on the netpoller, where a client's wait holds
// no thread.
func TestOwnLoopsNeedsLoops(t *testing.T) {
	if !rawsock.HasLoops() {
		t.Skip("this system makes no Loops")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	workers := func() []*worker {
		var ws []*worker
		for range 2 {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			w := rawsock.Wrap(c)
			t.Cleanup(func() { w.Close() })
			ws = append(ws, &worker{sock: w})
		}
		return ws
	}
	detached := func(ws []*worker) (n int) {
		for _, w := range ws {
			if rawsock.Detached(w.sock.(*rawsock.Conn).Conn) {
				n++
			}
		}
		return n
	}
	closed := load.Closed{}.Loop()

	ws := workers()
	if own := ownLoops(Options{}, closed, ws); !own || detached(ws) != 2 {
		t.Errorf("with Loops: own %v, %d of 2 sockets out of the netpoller; want a Loop each, both out", own, detached(ws))
	}

	defer func(was func() bool) { hasLoops = was }(hasLoops)
	hasLoops = func() bool { return false }
	ws = workers()
	if ownLoops(Options{}, closed, ws) || detached(ws) != 0 {
		t.Errorf("without Loops: %d of 2 sockets out of the netpoller; want none, and no Loop each", detached(ws))
	}
}
