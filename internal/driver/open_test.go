package driver

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

// instant is a client whose transactions take no time.
type instant struct{ n int64 }

func (c *instant) Pick() int                          { return 0 }
func (c *instant) Run(_ context.Context, _ int) error { c.n++; return nil }

// openWorker runs one open-loop client with a fake transaction for d at
// rate, and returns what it ran and the collector's result.
func openWorker(t *testing.T, rate float64, d time.Duration, onFull string) (*instant, *arrivals, *Result) {
	t.Helper()
	lt := &load.Tenant{Profile: load.Constant(rate, d), Conns: 1}
	tn := &Tenant{Name: "t01", Clients: 1, Load: lt}
	q := newArrivals(lt, load.Loop{Runner: load.ArrivalLoop, Arrivals: load.ArrivalsUniform, OnFull: onFull}, 1, d)
	start := time.Now()
	col := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "")
	c := &instant{}
	w := &worker{tenant: tn, client: c, rec: col.Recorder(0)}
	w.sleep.usePrecise()
	defer w.sleep.close()
	var stopped atomic.Bool
	w.openLoop(q, &stopped, context.Background(), start, start.Add(d))
	q.finish(d)
	return c, q, col.Close()
}

// The open loop's own steps allocate nothing per transaction: claiming an
// arrival, waiting for it (a reused timer), recording latency and service
// time.
func TestOpenLoopNoAllocs(t *testing.T) {
	openWorker(t, 2000, 100*time.Millisecond, load.OnFullQueue) // warm the runtime's timers
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, _, _ := openWorker(t, 5000, 400*time.Millisecond, load.OnFullQueue)
	runtime.ReadMemStats(&after)
	// The collector and its buckets are set up once per run: a fixed
	// amount, not per transaction.
	per := float64(after.Mallocs-before.Mallocs) / float64(c.n)
	if c.n < 1500 || per > 0.05 {
		t.Errorf("%d transactions, %.3f allocations per transaction; want ~2000 and ~0", c.n, per)
	}
}

func TestRecordOpenNoAllocs(t *testing.T) {
	start := time.Now()
	c := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "")
	r := c.Recorder(0)
	end := start.Add(100 * time.Millisecond)
	r.RecordOpen(0, end, 2*time.Millisecond, time.Millisecond)
	allocs := testing.AllocsPerRun(1000, func() { r.RecordOpen(0, end, 3*time.Millisecond, time.Millisecond) })
	lt := &load.Tenant{Profile: load.Constant(1e6, time.Hour)}
	q := newArrivals(lt, load.Loop{Runner: load.ArrivalLoop, Arrivals: load.ArrivalsPoisson}, 1, time.Hour)
	claims := testing.AllocsPerRun(1000, func() { q.claim(0) })
	r.Flush()
	c.Close()
	if allocs != 0 || claims != 0 {
		t.Errorf("RecordOpen allocates %v times per call, claim %v; want 0", allocs, claims)
	}
}

// A client that is (nearly) always free runs (nearly) every arrival; every
// arrival is counted, per second of its intended start, and is either run
// or dropped. Timing depends on the machine's load: the bounds are loose.
func TestOpenLoopCounts(t *testing.T) {
	c, q, res := openWorker(t, 1000, 500*time.Millisecond, load.OnFullQueue)
	var arrived, dropped, queued int64
	for i := range q.arrived {
		arrived += q.arrived[i]
		dropped += q.dropped[i]
		queued += q.queued[i]
	}
	if arrived != 500 || c.n+dropped != 500 {
		t.Errorf("arrived %d, ran %d, dropped %d: want 500 = ran + dropped", arrived, c.n, dropped)
	}
	all := res.Tenants[0].All
	t.Logf("dropped %d of 500; latency from the intended start (the timer's lateness) p50 %.3f ms, p99 %.3f ms",
		dropped, all.QuantileMs(50), all.QuantileMs(99))
	if c.n < 450 {
		t.Errorf("only %d of 500 instant transactions ran", c.n)
	}
	if got := res.Tenants[0].All.Committed; got < c.n-5 {
		t.Errorf("committed %d of %d run", got, c.n)
	}
	if res.Tenants[0].All.Service == nil || res.Tenants[0].All.Service.TotalCount() != res.Tenants[0].All.Committed {
		t.Error("service times not recorded beside latency")
	}
}

// slow takes d per transaction.
type slow struct {
	d time.Duration
	n int64
}

func (c *slow) Pick() int { return 0 }
func (c *slow) Run(_ context.Context, _ int) error {
	time.Sleep(c.d)
	c.n++
	return nil
}

// Overload: one connection, 10 ms per transaction, 200 arrivals per
// second. With queue the backlog grows and the latency from the intended
// start with it, while service time stays 10 ms; with drop, about half the
// arrivals are dropped and latency stays near service time.
func TestOpenLoopOverload(t *testing.T) {
	for _, onFull := range []string{load.OnFullQueue, load.OnFullDrop} {
		d := time.Second
		lt := &load.Tenant{Profile: load.Constant(200, d)}
		q := newArrivals(lt, load.Loop{Runner: load.ArrivalLoop, Arrivals: load.ArrivalsUniform, OnFull: onFull}, 1, d)
		start := time.Now()
		col := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 1, nil, 0, "")
		c := &slow{d: 10 * time.Millisecond}
		w := &worker{tenant: &Tenant{Name: "t01", Load: lt}, client: c, rec: col.Recorder(0)}
		w.sleep.usePrecise()
		var stopped atomic.Bool
		w.openLoop(q, &stopped, context.Background(), start, start.Add(d))
		q.finish(d)
		res := col.Close()
		all := res.Tenants[0].All
		var arrived, dropped, queued int64
		for i := range q.arrived {
			arrived, dropped, queued = arrived+q.arrived[i], dropped+q.dropped[i], queued+q.queued[i]
		}
		lat, svc := all.QuantileMs(99), all.ServiceQuantileMs(99)
		t.Logf("%s: arrived %d, ran %d, queued %d, dropped %d, p99 latency %.1f ms, service %.1f ms", onFull, arrived, c.n, queued, dropped, lat, svc)
		if arrived != 200 || c.n+dropped != arrived {
			t.Errorf("%s: arrived %d = ran %d + dropped %d?", onFull, arrived, c.n, dropped)
		}
		if svc < 9 || svc > 100 {
			t.Errorf("%s: service p99 %.1f ms, want ~10", onFull, svc)
		}
		switch onFull {
		case load.OnFullQueue:
			if queued < 50 || lat < 300 {
				t.Errorf("queue: %d queued, p99 latency %.1f ms; want a growing backlog (~500 ms)", queued, lat)
			}
		case load.OnFullDrop:
			if dropped < 70 || queued != 0 || lat > 2*svc+20 {
				t.Errorf("drop: %d dropped, %d queued, p99 latency %.1f ms", dropped, queued, lat)
			}
		}
	}
}

// A closed client under a schedule runs only in its slots: client 1 of
// (2, 0, 1) slots runs in the first slot only, client 0 in the first and
// the last.
func TestClosedSchedule(t *testing.T) {
	slot := 200 * time.Millisecond
	lt := &load.Tenant{Profile: load.Slots(slot, []float64{2, 0, 1}), Varies: true, Windows: load.SlotStarts(slot, 3)}
	start := time.Now()
	end := start.Add(3 * slot)
	col := NewCollector(start, 0, []string{"t01"}, []string{"a"}, 2, nil, 0, "")
	var runs [2][3]int
	var stopped atomic.Bool
	done := make(chan struct{})
	for k := range 2 {
		c := &probe{start: start, slot: slot, hits: &runs[k]}
		w := &worker{tenant: &Tenant{Name: "t01", Load: lt}, index: k, client: c, rec: col.Recorder(0)}
		go func() { w.closedLoop(&stopped, context.Background(), start, end); done <- struct{}{} }()
	}
	<-done
	<-done
	col.Close()
	// A transaction may start within microseconds after its slot ended
	// (checked just before): at most one per client.
	if runs[0][0] == 0 || runs[0][1] > 1 || runs[0][2] == 0 || runs[1][0] == 0 || runs[1][1] > 1 || runs[1][2] > 1 {
		t.Errorf("transactions per slot: client 0 %v, client 1 %v", runs[0], runs[1])
	}
}

// probe notes which slot each transaction started in, and takes 1 ms.
type probe struct {
	start time.Time
	slot  time.Duration
	hits  *[3]int
}

func (p *probe) Pick() int { return 0 }
func (p *probe) Run(_ context.Context, _ int) error {
	if i := int(time.Since(p.start) / p.slot); i < 3 {
		p.hits[i]++
	}
	time.Sleep(time.Millisecond)
	return nil
}

// A wait for an arrival far ahead ends at once when the run is cancelled
// (the watchdog interrupts the timer), and stays ended.
func TestPreciseWaitInterrupt(t *testing.T) {
	var s sleeper
	s.usePrecise()
	defer s.close()
	done := make(chan bool)
	go func() {
		_, ok := s.untilPrecise(time.Now().Add(10*time.Second), time.Now(), make(chan struct{}))
		done <- ok
	}()
	time.Sleep(50 * time.Millisecond)
	s.interrupt()
	select {
	case ok := <-done:
		if ok {
			t.Error("an interrupted wait reported success")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("interrupt did not end the wait")
	}
	if _, ok := s.untilPrecise(time.Now().Add(time.Second), time.Now(), make(chan struct{})); ok {
		t.Error("a wait after interrupt should end at once, false")
	}
	// precise: a 3 ms wait ends within a millisecond of its time
	var p sleeper
	p.usePrecise()
	defer p.close()
	late := time.Duration(0)
	for range 20 {
		at := time.Now().Add(3 * time.Millisecond)
		woke, _ := p.untilPrecise(at, time.Now(), nil)
		if woke.Before(at) {
			t.Errorf("the wait reports waking %v before its time", at.Sub(woke))
		}
		late = max(late, time.Since(at))
	}
	t.Logf("latest wake-up %v after its time", late)
	if late < 0 || late > 20*time.Millisecond {
		t.Errorf("woke %v late", late)
	}
}

// openPool runs n open-loop clients whose transactions take txn each, at
// rate for d, and returns how many each ran and the arrival counts.
func openPool(t *testing.T, n int, rate float64, d, txn time.Duration, onFull string) ([]int64, *arrivals) {
	t.Helper()
	lt := &load.Tenant{Profile: load.Constant(rate, d), Conns: n}
	tn := &Tenant{Name: "t01", Clients: n, Load: lt}
	q := newArrivals(lt, load.Loop{Runner: load.ArrivalLoop, Arrivals: load.ArrivalsUniform, OnFull: onFull}, 1, d)
	start := time.Now()
	col := NewCollector(start, 0, []string{"t01"}, []string{"a"}, n, nil, 0, "")
	var stopped atomic.Bool
	clients := make([]*slow, n)
	done := make(chan struct{}, n)
	for i := range n {
		clients[i] = &slow{d: txn}
		w := &worker{tenant: tn, index: i, client: clients[i], rec: col.Recorder(0)}
		w.sleep.usePrecise()
		defer w.sleep.close()
		go func() { w.openLoop(q, &stopped, context.Background(), start, start.Add(d)); done <- struct{}{} }()
	}
	for range n {
		select {
		case <-done:
		case <-time.After(d + 10*time.Second):
			t.Fatal("an idle client did not end with the arrivals")
		}
	}
	q.finish(d)
	col.Close()
	ran := make([]int64, n)
	for i, c := range clients {
		ran[i] = c.n
	}
	return ran, q
}

func totals(q *arrivals) (arrived, queued, dropped int64) {
	for i := range q.arrived {
		arrived, queued, dropped = arrived+q.arrived[i], queued+q.queued[i], dropped+q.dropped[i]
	}
	return
}

// Several connections under overload: 4 connections of 10 ms
// transactions take 400/s, and 800/s arrive. With drop, about half are
// dropped; with queue, none are, the backlog grows and only what is still
// waiting at the end counts as not served. Either way every arrival is
// run or counted, and every client ends with the arrivals.
func TestOpenPoolOverload(t *testing.T) {
	for _, onFull := range []string{load.OnFullDrop, load.OnFullQueue} {
		ran, q := openPool(t, 4, 800, time.Second, 10*time.Millisecond, onFull)
		arrived, queued, dropped := totals(q)
		var sum int64
		for _, n := range ran {
			sum += n
		}
		t.Logf("%s: ran per connection %v; arrived %d, queued %d, dropped %d", onFull, ran, arrived, queued, dropped)
		if arrived != 800 || sum+dropped != arrived {
			t.Errorf("%s: arrived %d = ran %d + dropped %d?", onFull, arrived, sum, dropped)
		}
		for i, n := range ran {
			if n < 30 {
				t.Errorf("%s: connection %d ran only %d under overload", onFull, i, n)
			}
		}
		switch onFull {
		case load.OnFullDrop:
			if queued != 0 || dropped < 250 || dropped > 550 {
				t.Errorf("drop: %d queued, %d dropped; want 0 and about 400", queued, dropped)
			}
		case load.OnFullQueue:
			if queued < 300 {
				t.Errorf("queue: %d queued; want most of the 800", queued)
			}
		}
	}
}
