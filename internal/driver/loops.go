package driver

import (
	"context"
	"runtime"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/rawsock"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// loopable is the workers whose clients can run on a rawsock.Loop
// (workload.Looped, with every socket of theirs attachable); none when
// loops, Options.Loops, is negative.
func loopable(loops int, ws []*worker) []*worker {
	if loops < 0 {
		return nil
	}
	var out []*worker
	for _, w := range ws {
		if l, ok := w.client.(workload.Looped); ok && l.Looped() && w.sock != nil && rawsock.Attach(w.sock, nil) {
			out = append(out, w)
		}
	}
	return out
}

// onLoops gives the loopable workers n Loops, in turn, so that each
// Loop's thread waits for its share of the replies in one system call, as
// pgbench's threads do; the other workers keep a goroutine each. n 0 is
// one Loop per GOMAXPROCS (a sleeping Loop keeps its P, and an idle P
// would wake for every reply: rawsock.Loop.wait), never more than the
// workers. own (ownLoops) gives each worker a Loop of its own that owns
// its P; else two Loops or more are pinned. Where the system has no
// Loops (rawsock.NewLoop fails) every worker keeps its goroutine.
func onLoops(n int, ws []*worker, own bool) []*rawsock.Loop {
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if own {
		n = len(ws)
	}
	var loops []*rawsock.Loop
	for k, w := range ws {
		if len(loops) < n {
			l, err := rawsock.NewLoop()
			if err != nil {
				break
			}
			loops = append(loops, l)
		}
		w.loop = loops[k%len(loops)]
	}
	if !own {
		pin(loops)
		return loops
	}
	for _, l := range loops {
		l.OwnP()
	}
	return loops
}

// maxOwnLoops bounds the clients that get a Loop, and so an OS thread,
// each (ownLoops); more share one pinned Loop per CPU.
const maxOwnLoops = 256

// ownLoops says whether each looped client gets a Loop of its own, and
// takes their sockets out of Go's netpoller for it (rawsock.Unpoll): at
// the default Procs and Loops, for a closed loop without think time,
// when every looped client's sockets can be taken out. Each client's
// thread then sleeps in its own wait for its own reply, as sysbench's
// threads do, and the backend's reply wakes it on the backend's CPU,
// where the next request reaches the backend before it looks for one;
// with two or more clients sharing a Loop a backend more often sleeps
// and is woken for its next request. On 2 cores, against two pinned
// Loops (the default before) in the same rounds, tpcb select-only made
// 6-28 % more transactions on PostgreSQL at a fifth less client CPU
// per transaction, level with pgbench (BENCHMARKS.md, "A Loop per
// client"), the server working less per transaction. The Loops hold one P
// each and the process keeps one more for its other goroutines
// (phaseProcs), so none ever yields (rawsock.Loop.OwnP); that spare P's
// thread sleeps in the runtime's epoll, which is why no client's socket
// may stay there.
// Where the system makes no Loops (hasLoops) the sockets stay where
// they are: taken out, each client would hold a thread asleep in poll(2).
func ownLoops(o Options, loop load.Loop, looped []*worker) bool {
	if o.Procs != 0 || o.Loops != 0 || !saturating(loop) || len(looped) == 0 || len(looped) > maxOwnLoops || !hasLoops() {
		return false
	}
	for _, w := range looped {
		if !rawsock.Unpoll(w.sock) {
			return false
		}
	}
	return true
}

// hasLoops is rawsock.HasLoops; a test's stand-in for a kernel without
// epoll_pwait2.
var hasLoops = rawsock.HasLoops

// saturating is a closed loop without think time: each client sends its
// next transaction as soon as the last ends, and keeps the servers busy.
func saturating(loop load.Loop) bool {
	return loop.Runner == load.ClientLoop && loop.Think == 0
}

// DefaultProcs is how many OS threads run Go code in the driver
// (GOMAXPROCS) unless told otherwise: half the machine's CPUs, at least
// one. On a machine shared with the servers under test the driver competes
// with them for CPU; fewer threads also mean fewer scheduler wake-ups per
// transaction (measured in BENCHMARKS.md: on 2 cores one thread gave more
// throughput and less client CPU per transaction than two). pgbench's -j
// plays the same role. A saturating closed loop on Loops takes more
// (phaseProcs).
func DefaultProcs() int { return max(1, runtime.NumCPU()/2) }

// phaseProcs sets the driver's GOMAXPROCS for a workload phase and
// returns what undoes it. procs, Options.Procs, fixes it when above 0.
// At 0 the caller's stays, but for a closed loop without think time whose
// clients run on Loops (looped of them): with a Loop per client (own,
// ownLoops) it gets a P per Loop and one more for the process's other
// goroutines; else one P, and so one Loop, per CPU (no more than the
// clients), pinned (pin), which on 2 cores beat one Loop in 27 of 30
// rounds (BENCHMARKS.md, "Loops pinned to CPUs" and "Loops by the load's
// shape"). Below saturation (an open load, think time) a second Loop
// only adds wake-ups (1.4x pgbench -R's CPU per transaction), so those
// keep the caller's.
func phaseProcs(procs int, loop load.Loop, looped int, own bool) (undo func()) {
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
		switch {
		case own:
			procs = looped + 1
		case saturating(loop) && looped > 0:
			procs = max(procs, min(runtime.NumCPU(), looped))
		}
	}
	was := runtime.GOMAXPROCS(procs)
	return func() { runtime.GOMAXPROCS(was) }
}

// pin puts each Loop on a CPU of its own, in turn, when there are two or
// more of them and of the CPUs the process may use (rawsock.Loop.Pin:
// each client then hands its requests and replies to its backend on one
// CPU). One Loop stays free to move: pinned alone it was no faster
// (BENCHMARKS.md, "Loops pinned to CPUs").
func pin(loops []*rawsock.Loop) {
	if len(loops) < 2 {
		return
	}
	cpus, mask := rawsock.CPUs()
	if len(cpus) < 2 {
		return
	}
	for i, l := range loops {
		l.Pin(cpus[i%len(cpus)], mask)
	}
}

// Beside runs f, which waits on Go's netpoller while the clients run (a
// fault's steps, a probe of replicas, a reconnection): the event loops,
// which hold every P of the process when there are as many as
// GOMAXPROCS, then let the scheduler run f and poll the network for it
// (rawsock.Beside). Outside it f runs only when a Loop yields, and learns
// that its socket is ready only when the runtime's sysmon polls, every
// 10 ms.
func Beside(f func()) { rawsock.Beside(f) }

// start runs body as the worker's client: a coroutine on its Loop, or a
// goroutine of its own.
func (w *worker) start(body func()) {
	if w.loop == nil {
		go body()
		return
	}
	w.task = w.loop.Add(body)
	w.sleep.task = w.task
	rawsock.Attach(w.sock, w.task)
}

// redial is connect for a client that lost its connection. On a Loop the
// connection is made on a goroutine of its own (pgx waits on Go's
// netpoller), while the Loop's other clients run on; the new socket is
// then attached to the client's Task.
func (w *worker) redial(ctx context.Context) error {
	if w.task == nil {
		return w.connect(ctx)
	}
	var err error
	w.task.Await(func() { err = w.connect(ctx) })
	if err == nil {
		if w.loop.OwnsP() {
			// Left on the netpoller should it fail: slower, not wrong.
			rawsock.Unpoll(w.sock)
		}
		rawsock.Attach(w.sock, w.task)
	}
	return err
}

// release is drop for a running client: on a Loop the connection is
// closed on a goroutine of its own, as redial opens it.
func (w *worker) release() {
	if w.task == nil {
		w.drop()
		return
	}
	w.task.Await(w.drop)
}
