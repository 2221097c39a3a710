// Package driver runs every tenant's workload at once under its load shape
// (closed loop: closed.go; open loop: open.go) and schedule, and records
// what happens: per tenant, transaction type, second and slot.
package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/rawsock"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Tenant is one tenant's share of the workload phase.
type Tenant struct {
	Name    string
	Connect workload.Connect // opens a connection as the tenant
	// Replicas open a connection as the tenant to each replica of its
	// server, which each client holds beside its own (ClientInfo.Replicas);
	// nil when the tenant's reads stay on its server.
	Replicas []workload.Connect
	Workload workload.Workload
	// Clients is how many connections the tenant opens: its clients
	// (closed) or its pool (open).
	Clients int
	Seed    uint64
	// Load is the tenant's schedule (from spec.Run.Load); nil runs Clients
	// clients back to back over the whole phase. An open load needs one.
	Load *load.Tenant
}

// Options shape the workload phase.
type Options struct {
	Warmup   time.Duration // run but not counted
	Duration time.Duration // counted
	Progress time.Duration // a line per tenant this often; 0 for none
	Out      io.Writer     // where progress lines go
	Label    string        // prefix of progress lines
	// Grace is how long transactions still in flight at the end may take
	// before their connections are closed under them (a stalled server
	// must not hang the run). Default 10 s.
	Grace time.Duration
	// Started, when not nil, is called as the phase's clock starts (all
	// clients connected) with its start and the watch of the tenants'
	// commits (by index in the tenants given to Run), for what runs on
	// the phase's timeline (package interfere).
	Started func(start time.Time, w *Watch)
	// Shape is the load shape of every tenant (load.Closed, load.Open);
	// its Loop says which loop runs the clients. nil is a closed loop
	// without think time.
	Shape load.Shape
	// StopAtFail ends the phase at the first failed attempt of any client
	// (connection failures included), as a cancel would, and Run returns
	// an error naming it: --fail-fast in a run with faults, whose failed
	// attempts would otherwise only be counted.
	StopAtFail bool
	// Live, when not nil, is told of the phase's measurements as they
	// are merged (live metrics, --metrics-addr).
	Live Live
	// Loops is how many rawsock.Loops run the clients that can run on
	// one (workload.Looped): 0 is one per GOMAXPROCS; a negative count
	// none (every client on a goroutine of its own).
	Loops int
	// Procs is the GOMAXPROCS of the phase (tenantbench run --procs),
	// restored when it ends. 0 keeps the caller's, but for a closed loop
	// without think time on Loops, which gets one per CPU (phaseProcs).
	Procs int
}

// Live is told of the workload phase's measurements as the collector
// merges each client's second: off the clients' path, which only counts
// each transaction into one more bucket (the bounds'). Package live is
// one, serving them to Prometheus.
type Live interface {
	// LatencyBounds are the upper bounds, ascending, of the latency
	// buckets Committed counts by.
	LatencyBounds() []time.Duration
	// Begin starts the phase at start (its first warmup not measured)
	// with these tenants and transaction types, which the other calls
	// give by index.
	Begin(start time.Time, warmup time.Duration, tenants, txns []string)
	// Committed adds committed transactions of one client's second:
	// counts by latency bucket (len(LatencyBounds())+1, the last above
	// every bound; the slice is reused after the call), sumUs the sum of
	// their latencies in microseconds.
	Committed(tenant, txn int, counts []int64, sumUs int64)
	// Failed adds n failed attempts of class (a SQLSTATE class or
	// "connection"); txn is -1 for failures to (re)connect.
	Failed(tenant, txn int, class string, n int64)
}

// connectTxn marks failures to (re)connect, which belong to no
// transaction type.
const connectTxn = -1

// Run connects every client of every tenant, then runs them all for
// warmup+duration and returns the measurements. All clients connect before
// the clock starts, so every tenant starts loaded (the workload barrier of
// Erdelt and Rabl 2026, section 4.2). A cancelled ctx stops the clients at
// once; the result so far is returned with ctx's error.
func Run(ctx context.Context, tenants []Tenant, o Options) (*Result, error) {
	if o.Grace == 0 {
		o.Grace = 10 * time.Second
	}
	loop := load.Loop{Runner: load.ClientLoop}
	if o.Shape != nil {
		loop = o.Shape.Loop()
	}
	if loop.Runner != load.ClientLoop && loop.Runner != load.ArrivalLoop {
		return nil, fmt.Errorf("load shape %s: no loop for runner %d", o.Shape.Name(), loop.Runner)
	}
	open := loop.Runner == load.ArrivalLoop
	phase := o.Warmup + o.Duration
	// halted ends when the clients are stopped: their pauses, their
	// reconnects and their tenants' probes of the replicas end with it.
	halted, stopClients := context.WithCancel(context.Background())
	defer stopClients()
	var workers []*worker
	var probes []*replicaProbe
	names := make([]string, len(tenants))
	slots := make([][]time.Duration, len(tenants))
	queues := make([]*arrivals, len(tenants))
	for ti := range tenants {
		t := &tenants[ti]
		names[ti] = t.Name
		if t.Load != nil {
			slots[ti] = t.Load.Windows
		}
		if open {
			if t.Load == nil {
				return nil, fmt.Errorf("tenant %s: an open load needs a rate profile", t.Name)
			}
			queues[ti] = newArrivals(t.Load, loop, mix(t.Seed, 1<<32), phase)
		}
		var probe *replicaProbe
		if len(t.Replicas) > 0 {
			probe = newReplicaProbe(halted, t.Replicas)
			probes = append(probes, probe)
		}
		for i := 0; i < t.Clients; i++ {
			workers = append(workers, &worker{tenant: t, tenantIdx: ti, index: i, seed: mix(t.Seed, uint64(i)), think: loop.Think, probe: probe})
		}
	}
	if len(workers) == 0 {
		return nil, errors.New("no clients to run")
	}
	txns, remap := txnUnion(tenants)

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, w := range workers {
		g.Go(func() error {
			if err := w.connect(gctx); err != nil {
				return fmt.Errorf("tenant %s: connecting a client: %w", w.tenant.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		closeAll(workers)
		return nil, err
	}

	start := time.Now()
	cpu := startCPU(o.Warmup)
	end := start.Add(o.Warmup + o.Duration)
	if o.Live != nil {
		o.Live.Begin(start, o.Warmup, names, txns)
	}
	col := newCollector(start, o.Warmup, names, txns, len(workers), o.Out, o.Progress, o.Label, slots, phase, o.Live)
	var failed <-chan struct{} // nil, never ready, unless StopAtFail
	if o.StopAtFail {
		col.firstFail = &firstFail{at: make(chan struct{})}
		failed = col.firstFail.at
	}
	if o.Started != nil {
		col.watch = newWatch(len(tenants))
		o.Started(start, col.watch)
	}
	var stopped atomic.Bool
	var wg sync.WaitGroup
	looped := loopable(o.Loops, workers)
	own := ownLoops(o, loop, looped)
	defer phaseProcs(o.Procs, loop, len(looped), own)()
	loops := onLoops(o.Loops, looped, own)
	for _, w := range workers {
		w.rec = col.Recorder(w.tenantIdx)
		w.rec.remap = remap[w.tenantIdx]
		if open && w.loop == nil {
			w.sleep.usePrecise()
		}
		wg.Add(1)
		w.start(func() {
			defer wg.Done()
			if open {
				w.openLoop(queues[w.tenantIdx], &stopped, halted, start, end)
			} else {
				w.closedLoop(&stopped, halted, start, end)
			}
		})
	}
	for _, l := range loops {
		go l.Run()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	// The watchdog: on cancel, or when in-flight transactions overstay the
	// grace period, close the sockets under the clients (net.Conn, unlike
	// pgx.Conn, may be closed from another goroutine).
	grace := time.NewTimer(time.Until(end) + o.Grace)
	defer grace.Stop()
	var runErr error
	cut := end // when the clients were stopped: the phase's end unless cancelled
	// halt stops the clients, their sockets closed under them, and waits
	// for them to return.
	halt := func() {
		stopped.Store(true)
		stopClients()
		for _, l := range loops {
			l.Stop()
		}
		closeSockets(workers)
		<-finished
	}
	// cutShort halts the clients for err, recording when if before the
	// phase's end.
	cutShort := func(err error) {
		runErr = err
		if now := time.Now(); now.Before(end) {
			cut = now
		}
		col.cutAt(cut)
		halt()
	}
	select {
	case <-finished:
	case <-ctx.Done():
		cutShort(ctx.Err())
	case <-failed:
		cutShort(col.firstFail.err)
	case <-grace.C:
		halt()
	}
	driverCPU, cpuKnown := cpu.stop()
	closeAll(workers)
	stopClients()
	for _, p := range probes {
		p.wait()
	}
	res := col.Close()
	if cpuKnown {
		res.DriverCPU = &driverCPU
	}
	th := &res.Threads
	th.Procs, th.Loops = runtime.GOMAXPROCS(0), len(loops)
	for _, l := range loops {
		if l.Pinned() {
			th.PinnedLoops++
		}
	}
	for _, w := range workers {
		if w.loop != nil {
			th.LoopedClients++
		}
	}
	// A cancelled phase measured only until it was cut: its rates divide
	// by the time it ran, not by the duration it was planned for.
	res.Warmup, res.Duration = o.Warmup, results.Ran(start, o.Warmup, o.Duration, cut)
	for _, w := range workers {
		tr := &res.Tenants[w.tenantIdx]
		for typ, n := range w.retries {
			tr.Txns[w.rec.global(typ)].Retries += n
			tr.All.Retries += n
		}
		if w.lost != "" && (tr.ConnLost == "" || w.lostAt < tr.ConnLostAt) {
			tr.ConnLost, tr.ConnLostAt = w.lost, w.lostAt
		}
	}
	if cut.Before(end) {
		res.Slots = cutSlots(res.Slots, cut.Sub(start))
	}
	addLoad(res, tenants, queues, o.Warmup, cut.Sub(start))
	return res, runErr
}

// txnUnion are the transaction types of every tenant's workload, the
// first tenant's first, and for each tenant the run's type of each of its
// own (nil for a tenant whose types are the run's first ones): tenants of
// different classes may run different workloads.
func txnUnion(tenants []Tenant) ([]string, [][]int) {
	names := append([]string(nil), tenants[0].Workload.TxnNames()...)
	at := map[string]int{}
	for i, n := range names {
		at[n] = i
	}
	remap := make([][]int, len(tenants))
	for ti := range tenants {
		own := tenants[ti].Workload.TxnNames()
		m, same := make([]int, len(own)), true
		for j, n := range own {
			k, ok := at[n]
			if !ok {
				k = len(names)
				at[n] = k
				names = append(names, n)
			}
			m[j] = k
			same = same && k == j
		}
		if !same {
			remap[ti] = m
		}
	}
	return names, remap
}

type worker struct {
	tenant    *Tenant
	tenantIdx int
	index     int // within the tenant
	seed      uint64
	rec       *Recorder
	client    workload.Client
	fin       workload.Finisher // client's, when it has an end; nil otherwise
	pacer     workload.Pacer    // client's, when it keys and thinks; nil otherwise
	conn      workload.Session
	mu        sync.Mutex // guards sock, which the watchdog may close
	sock      net.Conn
	lost      string        // first lost-connection error
	lostAt    time.Duration // when, since the phase started
	retries   []int64       // per type, of clients dropped so far
	connects  uint64
	think     time.Duration
	sleep     sleeper
	backoff   time.Duration // before the next reconnect
	// loop, when not nil, runs the client as task (onLoops).
	loop *rawsock.Loop
	task *rawsock.Task
	// probe is the tenant's probe of its replicas (probe.go), nil
	// without replicas; missed says the client lacks some of them, since
	// the probe's generation missedGen.
	probe     *replicaProbe
	missed    bool
	missedGen uint64
}

// redialDue drops a client that lacks a replica once its tenant's probe
// has reached them all (probe.go); its next connection opens them all.
func (w *worker) redialDue() {
	if w.missed && w.client != nil && w.probe.reachedSince(w.missedGen) {
		w.release()
	}
}

func (w *worker) connect(ctx context.Context) error {
	// A reconnected client draws from a fresh stream, so a replay after an
	// outage is still deterministic for the same outage.
	client, conn, err := w.tenant.Connect.OpenReplicated(ctx, w.tenant.Workload, w.tenant.Replicas, func() workload.ClientInfo {
		seed := mix(w.seed, w.connects)
		w.connects++
		return workload.ClientInfo{Index: w.index, Clients: w.tenant.Clients, Seed: seed}
	})
	if err != nil {
		return err
	}
	w.missed = false
	if err := workload.Missed(conn); err != nil {
		if w.rec == nil {
			// Connecting before the phase: a run starts with every
			// replica its clients read from, or not at all.
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(closeCtx)
			cancel()
			return fmt.Errorf("a replica of the tenant's server could not be reached as the phase began: %w", err)
		}
		w.rec.Fail(connectTxn, time.Now(), "connection", err)
		w.missed, w.missedGen = true, w.probe.miss()
	}
	w.mu.Lock()
	w.conn, w.client, w.sock = conn, client, conn.Socket()
	// Asserted once per connection, not per transaction (the hot path).
	w.fin, _ = client.(workload.Finisher)
	w.pacer, _ = client.(workload.Pacer)
	w.mu.Unlock()
	return nil
}

func (w *worker) drop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		w.conn.Close(ctx)
		cancel()
	}
	w.keepRetries()
	w.conn, w.client, w.sock, w.fin, w.pacer = nil, nil, nil, nil, nil
}

// keepRetries adds up the retries of a client about to be dropped.
func (w *worker) keepRetries() {
	r, ok := w.client.(workload.Retrier)
	if !ok {
		return
	}
	counts := r.Retries()
	if w.retries == nil {
		w.retries = make([]int64, len(counts))
	}
	for i, n := range counts {
		w.retries[i] += n
	}
}

func closeSockets(ws []*worker) {
	for _, w := range ws {
		w.sleep.interrupt()
		w.mu.Lock()
		if w.sock != nil {
			w.sock.Close()
		}
		w.mu.Unlock()
	}
}

func closeAll(ws []*worker) {
	for _, w := range ws {
		w.drop()
		w.sleep.close()
	}
}

// engines class the server errors a failure may be; read only.
var engines = engine.Builtin()

// Classify names the class of a failure: the engine's class of a server
// error (PostgreSQL: the SQLSTATE class, e.g. "40" transaction rollback),
// else "connection".
func Classify(err error) string {
	if c := engines.ErrorClass(err); c != "" {
		return c
	}
	return "connection"
}

// mix derives a seed from a seed and an index (splitmix64 finaliser), so
// neighbouring clients draw unrelated streams.
func mix(seed, i uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15*(i+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
