package netns

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

// queueNet makes a Net with link on the queue emulator for the test; it
// skips, saying why, where that cannot run, and checks at the end that
// Remove leaves nothing: namespace, veth, delayer, its cgroup and files.
func queueNet(t *testing.T, link Link) *Net {
	t.Helper()
	link.Emulator = "queue"
	if why := Usable(context.Background(), link); why != "" {
		t.Skip("sut.network " + link.String() + ": " + why)
	}
	n, err := Create(context.Background(), "test-queue", link, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rec := n.Record
		if err := n.Remove(); err != nil {
			t.Error(err)
		}
		if Exists(rec) {
			t.Errorf("%s left behind", rec.Name)
		}
		if d := rec.Delayer; d != nil {
			if startTime(d.Pid) != 0 {
				t.Errorf("delayer pid %d still runs", d.Pid)
			}
			if _, err := os.Stat(d.Dir); err == nil {
				t.Errorf("delayer directory %s left", d.Dir)
			}
			if d.Cgroup != "" {
				for _, dir := range cgroup.Detect().Open(d.Cgroup).Dirs() {
					if _, err := os.Stat(dir); err == nil {
						t.Errorf("delayer cgroup %s left", dir)
					}
				}
			}
		}
	})
	return n
}

// listenIn listens on TCP in n's namespace: the socket is made from a
// thread moved into it (a socket stays in the namespace it was made in).
func listenIn(t *testing.T, n *Net) net.Listener {
	t.Helper()
	target, err := os.Open(filepath.Join(nsDir, n.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	var l net.Listener
	done := make(chan error)
	go func() {
		// Never unlocked: the thread, left in the namespace, ends with
		// the goroutine.
		runtime.LockOSThread()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		l, err = net.Listen("tcp", n.NSAddr+":0")
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// echo answers each line with the same line; sink reads all and answers
// with the count of bytes read.
func serveConns(l net.Listener, handle func(net.Conn)) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handle(c) }()
		}
	}()
}

func echo(c net.Conn) { _, _ = io.Copy(c, c) }

// medianRTT is the median of 50 round trips of one byte to l's echo.
func medianRTT(t *testing.T, l net.Listener) time.Duration {
	t.Helper()
	c, err := net.DialTimeout("tcp", l.Addr().String(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	b := []byte{1}
	var ds []time.Duration
	for range 50 {
		t0 := time.Now()
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// TestQueueDelay: 2 ms each way on the queue emulator adds 4 ms (and
// less than 6) to the median round trip over a plain link; jitter keeps
// the packets in order (TCP sees no reordering: nothing to test but the
// same bytes back) and stays within delay ± jitter.
func TestQueueDelay(t *testing.T) {
	n := queueNet(t, Link{Delay: 2 * time.Millisecond})
	if n.Delayer == nil || n.Queue < queueBase || n.Emulator != "queue" {
		t.Fatalf("record %+v", n.Record)
	}
	plain, err := Create(context.Background(), "test-queue", Link{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Remove()
	other := queueNet(t, Link{Delay: time.Millisecond})
	if other.Queue == n.Queue || other.Subnet == n.Subnet {
		t.Errorf("two Nets share queue %d or subnet %s", n.Queue, n.Subnet)
	}
	ld, lp := listenIn(t, n), listenIn(t, plain)
	serveConns(ld, echo)
	serveConns(lp, echo)
	// A busy machine only ever adds (late wake-ups, the delayer's and
	// the test's): up to 3 measures, the least added counts.
	added, near := time.Hour, time.Duration(0)
	for range 3 {
		var far time.Duration
		far, near = medianRTT(t, ld), medianRTT(t, lp)
		t.Logf("median round trip: %v through 2 ms each way, %v over a plain link", far, near)
		if added = min(added, far-near); added < 6*time.Millisecond {
			break
		}
	}
	if b, err := os.ReadFile(filepath.Join(n.Delayer.Dir, "delayer.log")); err == nil && len(b) > 0 {
		t.Logf("delayer log: %s", b)
	}
	if added < 4*time.Millisecond || added >= 6*time.Millisecond {
		t.Errorf("the delayer added %v to a round trip, want 4 ms to 6 ms", added)
	}
	if err := n.Remove(); err != nil { // its last counts
		t.Fatal(err)
	}
	st, ok := n.DelayerCounts()
	t.Logf("delayer: %+v", st)
	if !ok || st.In.Passed < 50 || st.Out.Passed < 50 || st.In.Dropped+st.Out.Dropped != 0 || st.In.LateMaxUs <= 0 {
		t.Errorf("delayer counts %+v, %v", st, ok)
	}
	j := queueNet(t, Link{Delay: 2 * time.Millisecond, Jitter: time.Millisecond})
	lj := listenIn(t, j)
	serveConns(lj, echo)
	rtt := medianRTT(t, lj)
	t.Logf("median round trip through 2 ms ± 1 ms each way: %v", rtt)
	// ± 1 ms each way, in order: never below 2 ms (1 ms each way).
	if added := rtt - near; added < 2*time.Millisecond || added >= 8*time.Millisecond {
		t.Errorf("2 ms ± 1 ms each way added %v to a round trip", added)
	}
}

// TestQueueLoss: with 20 % loss each way, a transfer still completes
// (TCP retransmits) and the delayer counts the drops, about a fifth.
func TestQueueLoss(t *testing.T) {
	n := queueNet(t, Link{Loss: 20})
	l := listenIn(t, n)
	serveConns(l, echo)
	c, err := net.DialTimeout("tcp", l.Addr().String(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(120 * time.Second))
	b := make([]byte, 100)
	// Few: each loss costs TCP a retransmission timeout (200 ms and up).
	for i := range 30 {
		b[0] = byte(i)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil || b[0] != byte(i) {
			t.Fatalf("round trip %d: %v", i, err)
		}
	}
	if err := n.Remove(); err != nil { // its last counts
		t.Fatal(err)
	}
	st, _ := n.DelayerCounts()
	all := st.In.Passed + st.In.Dropped + st.Out.Passed + st.Out.Dropped
	drops := st.In.Dropped + st.Out.Dropped
	t.Logf("delayer: %+v; %d of %d packets dropped", st, drops, all)
	if !st.Ended || all < 60 || float64(drops) < 0.08*float64(all) || float64(drops) > 0.35*float64(all) {
		t.Errorf("dropped %d of %d packets with 20 %% loss", drops, all)
	}
}

// TestQueueRate: a bulk transfer each way over a 16 mbit/s link runs at
// about that rate (HTB on each end), not at the veth's speed.
func TestQueueRate(t *testing.T) {
	const rate = 16e6
	n := queueNet(t, Link{Rate: rate})
	if n.Delayer != nil {
		t.Errorf("a rate alone started a delayer: %+v", n.Delayer)
	}
	l := listenIn(t, n)
	serveConns(l, func(c net.Conn) {
		k, _ := io.Copy(io.Discard, c)
		fmt.Fprintf(c, "%d", k)
	})
	c, err := net.DialTimeout("tcp", l.Addr().String(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const size = 4 << 20
	t0 := time.Now()
	if _, err := c.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	took := time.Since(t0)
	if err != nil || strings.TrimSpace(string(got)) != fmt.Sprint(size) {
		t.Fatalf("sink read %q, %v", got, err)
	}
	bits := float64(size*8) / took.Seconds()
	t.Logf("%d bytes in %v: %.1f Mbit/s over a %g Mbit/s link", size, took, bits/1e6, rate/1e6)
	if bits > 1.1*rate || bits < 0.6*rate {
		t.Errorf("throughput %.1f Mbit/s, want about %g", bits/1e6, rate/1e6)
	}
}

// TestDeparture: each packet leaves delay ± jitter after its arrival, but
// never before the one ahead of it: with packets arriving faster than
// the jitter spreads them, the order holds and only later ones wait.
func TestDeparture(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const delay, jitter = 2 * time.Millisecond, time.Millisecond
	var last int64
	waited := 0
	for i := range 10000 {
		arrival := int64(i) * int64(100*time.Microsecond)
		var drawn int64
		at := departure(arrival, last, delay, jitter, func(n int64) int64 { drawn = r.Int64N(n); return drawn })
		own := arrival + int64(delay) + drawn - int64(jitter) // its own draw, alone
		if own < arrival+int64(delay-jitter) || own > arrival+int64(delay+jitter) {
			t.Fatalf("packet %d drew %v, outside delay ± jitter", i, time.Duration(own-arrival))
		}
		switch {
		case at < last:
			t.Fatalf("packet %d leaves at %d, before the one ahead (%d)", i, at, last)
		case at > own:
			if at != last {
				t.Fatalf("packet %d leaves later than its draw without waiting for the one ahead", i)
			}
			waited++
		case at != own:
			t.Fatalf("packet %d leaves before its draw", i)
		}
		last = at
	}
	if waited == 0 {
		t.Error("no packet ever waited for the one ahead: the test shows nothing")
	}
	if got := departure(5, 0, 0, 0, nil); got != 5 {
		t.Errorf("no delay: leaves at %d, want its arrival", got)
	}
}

// TestArrival: a packet's delay counts from the kernel's stamp of its
// reception; a packet without one (or with one not to be believed) counts
// from now less the stamped packets' mean wait.
func TestArrival(t *testing.T) {
	var wait atomic.Int64
	d := &direction{wait: &wait}
	stamp := time.Now().Add(-300 * time.Microsecond)
	before := monotonic()
	got := d.arrival(&stamp)
	if waited := time.Duration(before - got); waited < 250*time.Microsecond || waited > 50*time.Millisecond {
		t.Errorf("stamped 300 us ago: arrival %v before now", waited)
	}
	if d.stamped.Load() != 1 || wait.Load() <= 0 {
		t.Errorf("stamped %d, mean wait %d ns", d.stamped.Load(), wait.Load())
	}
	wait.Store(int64(200 * time.Microsecond))
	out := &direction{wait: &wait}
	for _, s := range []*time.Time{nil, {}, ptr(time.Now().Add(time.Minute)), ptr(time.Now().Add(-time.Minute))} {
		before = monotonic()
		got = out.arrival(s)
		if early := time.Duration(before - got); early < 150*time.Microsecond || early > 50*time.Millisecond {
			t.Errorf("stamp %v: arrival %v before now, want about the mean wait, 200 us", s, early)
		}
	}
	if out.stamped.Load() != 0 {
		t.Errorf("%d unbelievable stamps counted", out.stamped.Load())
	}
}

func ptr[T any](v T) *T { return &v }

// TestWakeAt: a release never comes before the departure, even with an
// aim learnt on a busy machine (here 1 ms, the most it learns), and a
// wake-up that came early lowers the aim.
func TestWakeAt(t *testing.T) {
	aim := int64(time.Millisecond)
	for i := range 20 {
		depart := monotonic() + int64(2*time.Millisecond)
		late := wakeAt(depart, &aim)
		if now := monotonic(); late < 0 || now < depart {
			t.Fatalf("wake-up %d: %v late, %v before the departure", i, time.Duration(late), time.Duration(depart-now))
		}
	}
	if aim >= int64(time.Millisecond) {
		t.Errorf("the aim stayed at %v after 20 early wake-ups", time.Duration(aim))
	}
}
