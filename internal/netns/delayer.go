package netns

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	nfqueue "github.com/florianl/go-nfqueue/v2"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// delayerArg, as a program's first argument, makes it the queue
// emulator's delayer instead of itself. The hook is in this package's
// init, so that every program that can make a Net (tenantbench, and the
// test binaries of the packages that make one) can start its delayer
// from its own executable: no second program to install or find.
const delayerArg = "__tenantbench-netns-delayer"

func init() {
	if len(os.Args) > 1 && os.Args[1] == delayerArg {
		os.Exit(delayerMain(os.Args[2:]))
	}
}

// Counts are what the delayer did with the packets of one direction.
type Counts struct {
	Passed  uint64 `json:"passed"`
	Dropped uint64 `json:"dropped"` // drawn with the link's loss
	// LateUs is how late, on average, the delayer gave a verdict after
	// the packet's departure, in microseconds: its wake-up's error, never
	// below 0 (it wakes early by what it learnt and sleeps again to the
	// departure when it woke before it); LateMaxUs the latest.
	LateUs    float64 `json:"late_us"`
	LateMaxUs float64 `json:"late_max_us"`
	// Stamped are the packets the kernel stamped with the time it
	// received them (into the namespace); the delay counts from that
	// time, and ReadUs is how long, on average, they waited to be read.
	// The packets out of the namespace carry no such stamp: their wait is
	// taken to be the stamped ones' (the same reading path).
	Stamped uint64  `json:"stamped"`
	ReadUs  float64 `json:"read_us"`
}

// DelayerStatus is the delayer's status file: written once both queues
// are served (Ready), then every second and at its end.
type DelayerStatus struct {
	Ready bool `json:"ready"`
	// In are the packets into the namespace (client to server), Out
	// those out of it.
	In     Counts `json:"in"`
	Out    Counts `json:"out"`
	Errors uint64 `json:"errors"` // verdicts the kernel refused
	Ended  bool   `json:"ended"`
}

// direction is one queue of the delayer: packets are held in arrival
// order and released in that order.
type direction struct {
	nf      *nfqueue.Nfqueue
	held    chan heldPacket
	last    int64 // the previous packet's departure, CLOCK_MONOTONIC ns
	passed  atomic.Uint64
	dropped atomic.Uint64
	lateSum atomic.Int64 // ns, over passed + dropped
	lateMax atomic.Int64 // ns
	aim     int64        // ns the release wakes early by (wakeAt); release's alone
	stamped atomic.Uint64
	readSum atomic.Int64 // ns, over stamped
	// wait is the mean wait to be read, shared by both directions.
	wait *atomic.Int64
}

func (d *direction) counts() Counts {
	c := Counts{Passed: d.passed.Load(), Dropped: d.dropped.Load(), LateMaxUs: float64(d.lateMax.Load()) / 1e3}
	if n := c.Passed + c.Dropped; n > 0 {
		c.LateUs = float64(d.lateSum.Load()) / 1e3 / float64(n)
	}
	if c.Stamped = d.stamped.Load(); c.Stamped > 0 {
		c.ReadUs = float64(d.readSum.Load()) / 1e3 / float64(c.Stamped)
	}
	return c
}

type heldPacket struct {
	id     uint32
	depart int64 // CLOCK_MONOTONIC ns
	drop   bool
}

// delayerMain serves the two queues of a Net until SIGTERM: each packet
// leaves at its arrival plus the delay plus a jitter drawn uniformly from
// ±jitter (netem's draw without a distribution table), but never before
// the packet queued ahead of it in its direction: the queue keeps each
// direction in order where netem would reorder. A packet is dropped with
// probability loss instead of accepted.
func delayerMain(args []string) int {
	fs := flag.NewFlagSet("delayer", flag.ContinueOnError)
	q := fs.Uint("queue", 0, "queue of packets into the namespace; queue+1 is out of it")
	delay := fs.Duration("delay", 0, "one-way delay")
	jitter := fs.Duration("jitter", 0, "jitter: delay ± jitter, uniform")
	loss := fs.Float64("loss", 0, "percentage of packets dropped")
	status := fs.String("status", "", "status file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *status == "" || *q > 65534 {
		fmt.Fprintln(os.Stderr, "delayer: -status and a -queue below 65535 are needed")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	// The kernel stamps received packets with their time of arrival only
	// while some socket asks for receive time stamps: hold one that does.
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
		defer unix.Close(fd)
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}
	var errCount atomic.Uint64
	var wait atomic.Int64
	dirs := make([]*direction, 2)
	for i := range dirs {
		d, err := serve(ctx, uint16(*q)+uint16(i), *delay, *jitter, *loss/100, fail, &errCount, &wait)
		if err != nil {
			fmt.Fprintf(os.Stderr, "delayer: queue %d: %v\n", uint16(*q)+uint16(i), err)
			return 1
		}
		defer d.nf.Close()
		dirs[i] = d
	}
	write := func(ended bool) {
		st := DelayerStatus{Ready: true, Ended: ended, Errors: errCount.Load(),
			In: dirs[0].counts(), Out: dirs[1].counts()}
		if err := writeStatus(*status, st); err != nil {
			fmt.Fprintf(os.Stderr, "delayer: %v\n", err)
		}
	}
	write(false)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			write(false)
			continue
		case <-ctx.Done():
		}
		break
	}
	write(true)
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "delayer: %v\n", err)
		return 1
	}
	return 0
}

// serve binds queue and releases its packets from a goroutine of its
// own, on a thread of its own that sleeps to each departure with
// clock_nanosleep (Go's timers may be late by a fraction of a millisecond).
func serve(ctx context.Context, queue uint16, delay, jitter time.Duration, loss float64, fail context.CancelCauseFunc, errs *atomic.Uint64, wait *atomic.Int64) (*direction, error) {
	nf, err := nfqueue.Open(&nfqueue.Config{
		NfQueue: queue,
		// Big enough for a fast link's packets in flight over the
		// delay; the kernel drops what a full queue cannot take.
		MaxQueueLen: 1 << 16,
		// The verdict needs no payload; GSO packets come whole (as netem
		// delays them), not cut into segments first.
		Copymode:     nfqueue.NfQnlCopyMeta,
		Flags:        nfqueue.NfQaCfgFlagGSO,
		AfFamily:     unix.AF_INET,
		WriteTimeout: time.Second,
	})
	if err != nil {
		return nil, err
	}
	// A lost notification would leave its packet queued for ever: ask
	// for a large buffer, and no ENOBUFS (the kernel then waits).
	_ = nf.Con.SetReadBuffer(16 << 20)
	_ = nf.SetOption(netlink.NoENOBUFS, true)
	d := &direction{nf: nf, held: make(chan heldPacket, 1<<16), wait: wait}
	go d.release(ctx, fail, errs)
	// The library's reading goroutine is left to Go's scheduler: locked
	// to a thread of its own, each wake-up became a hand-off between
	// threads and the packets waited twice as long to be read (160 us
	// against 80 us on a 2-core VM).
	hook := func(a nfqueue.Attribute) int {
		if a.PacketID == nil {
			return 0
		}
		d.last = departure(d.arrival(a.Timestamp), d.last, delay, jitter, rand.Int64N)
		d.held <- heldPacket{id: *a.PacketID, depart: d.last, drop: loss > 0 && rand.Float64() < loss}
		return 0
	}
	onErr := func(err error) int {
		if ctx.Err() != nil {
			return 1
		}
		var op *netlink.OpError
		if errors.As(err, &op) && (op.Timeout() || op.Temporary()) {
			return 0
		}
		fail(fmt.Errorf("queue %d: reading: %w", queue, err))
		return 1
	}
	if err := nf.RegisterWithErrorFunc(ctx, hook, onErr); err != nil {
		nf.Close()
		return nil, err
	}
	return d, nil
}

// arrival is when a packet entered the queue, on CLOCK_MONOTONIC: the
// kernel's stamp of its reception (CLOCK_REALTIME) moved to that clock,
// or, for a packet without one, now less the mean wait of the stamped
// ones. Counting from there takes the time the packet waited to be read
// off the delay instead of adding it. A stamp in the future or older than
// a second (a clock step) is not believed.
func (d *direction) arrival(stamp *time.Time) int64 {
	now := monotonic()
	if stamp == nil || stamp.IsZero() {
		return now - d.wait.Load()
	}
	waited := time.Since(*stamp)
	if waited < 0 || waited > time.Second {
		return now - d.wait.Load()
	}
	d.stamped.Add(1)
	d.readSum.Add(int64(waited))
	// A moving mean over some 16 packets, for the unstamped direction.
	w := d.wait.Load()
	d.wait.Store(w + (int64(waited)-w)/16)
	return now - int64(waited)
}

// departure is when a packet that arrived at arrival leaves: arrival +
// delay + a draw from ±jitter (draw(n) is uniform in [0, n)), but never
// before last, the departure of the packet ahead of it in its direction.
func departure(arrival, last int64, delay, jitter time.Duration, draw func(int64) int64) int64 {
	at := arrival + int64(delay)
	if jitter > 0 {
		at += draw(2*int64(jitter)+1) - int64(jitter)
	}
	return max(at, last)
}

// release gives each held packet its verdict at its departure, in order.
func (d *direction) release(ctx context.Context, fail context.CancelCauseFunc, errs *atomic.Uint64) {
	runtime.LockOSThread()
	realtime()
	for {
		var p heldPacket
		select {
		case p = <-d.held:
		case <-ctx.Done():
			return
		}
		late := wakeAt(p.depart, &d.aim)
		verdict := nfqueue.NfAccept
		if p.drop {
			verdict = nfqueue.NfDrop
		}
		if err := d.nf.SetVerdict(p.id, verdict); err != nil {
			if ctx.Err() != nil {
				return
			}
			errs.Add(1)
			if errs.Load() > 1000 {
				fail(fmt.Errorf("verdicts refused: %w", err))
				return
			}
			continue
		}
		d.lateSum.Add(late)
		if late > d.lateMax.Load() {
			d.lateMax.Store(late) // this goroutine alone writes it
		}
		if p.drop {
			d.dropped.Add(1)
		} else {
			d.passed.Add(1)
		}
	}
}

// wakeAt sleeps until depart (CLOCK_MONOTONIC) and returns how late it
// woke. Wake-ups come late by a few tens of microseconds (the timer's
// slack, the scheduler), so it wakes early by *aim, what they were late,
// learnt over some 16 packets. A wake-up before the departure sleeps
// again to it, so no packet leaves early (as with netem): without that,
// an aim learnt while the machine was busy sent packets early once it
// was quiet, by up to the aim, for the dozens of packets it takes to
// unlearn it.
func wakeAt(depart int64, aim *int64) int64 {
	sleepUntil(depart - *aim)
	woke := monotonic() - depart
	*aim = min(max(*aim+woke/16, 0), int64(time.Millisecond))
	if woke < 0 {
		sleepUntil(depart)
	}
	return monotonic() - depart
}

// realtime makes the calling thread SCHED_FIFO (lowest priority) where
// the delayer may, so that a busy machine's other work does not make
// its wake-ups late; it mostly sleeps, and the kernel's RT throttling
// bounds what it could take. Where it may not (no CAP_SYS_NICE, or a v1
// cpu cgroup with no RT time), it runs as an ordinary thread and says
// so once on its log.
func realtime() {
	err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}, 0)
	if err != nil {
		rtOnce.Do(func() { fmt.Fprintf(os.Stderr, "delayer: ordinary scheduling (SCHED_FIFO refused: %v)\n", err) })
	}
}

var rtOnce sync.Once

func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

func sleepUntil(ns int64) {
	ts := unix.NsecToTimespec(ns)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// writeStatus replaces the status file whole (a reader never sees half).
func writeStatus(path string, st DelayerStatus) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Clean(path))
}

// readStatus reads a delayer's status file.
func readStatus(path string) (DelayerStatus, error) {
	var st DelayerStatus
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}
