package driver

import (
	"context"
	"math"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/rawsock"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

// TestServer runs the driver's tests that need PostgreSQL on one server,
// loaded once with tpcb at scale 1 (select-only, well below saturation at
// the rates used).
func TestServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	tn := loadTpcb(t, inst)
	t.Run("ArrivalAccuracy", func(t *testing.T) { testArrivalAccuracy(t, tn) })
	t.Run("PoissonDelivered", func(t *testing.T) { testPoissonDelivered(t, tn) })
	t.Run("RateHeld", func(t *testing.T) { testRateHeld(t, tn) })
	t.Run("CoordinatedOmission", func(t *testing.T) { testCoordinatedOmission(t, tn, inst) })
	t.Run("ClosedSlots", func(t *testing.T) { testClosedSlots(t, tn) })
	t.Run("Pacing", func(t *testing.T) { testPacing(t, tn) })
	t.Run("Cancelled", func(t *testing.T) { testCancelled(t, tn) })
	t.Run("DriverCPUCutInWarmup", func(t *testing.T) { testDriverCPUCutInWarmup(t, tn) })
	t.Run("StallZeroRows", func(t *testing.T) { testStallZeroRows(t, tn, inst) })
	t.Run("CancelledSlots", func(t *testing.T) { testCancelledSlots(t, tn) })
	t.Run("Loops", func(t *testing.T) { testLoops(t, tn) })
	t.Run("PhaseProcs", func(t *testing.T) { testPhaseProcs(t, tn) })
	t.Run("ReconnectBounded", func(t *testing.T) { testReconnectBounded(t, tn, inst) })
	t.Run("ReplicaProbe", func(t *testing.T) { testReplicaProbe(t, tn, inst) })
	t.Run("Redial", func(t *testing.T) { testRedial(t, tn, inst) })
}

// testReconnectBounded: clients whose connections end while the server's
// postmaster is stopped (SIGSTOP) reconnect to a socket the kernel
// accepts for it and that never answers their startup; the phase still
// ends on time (before, the clients waited for the answer without a
// bound, past the phase's end), with the lost transactions counted as
// connection failures.
func testReconnectBounded(t *testing.T, tn Tenant, inst *provider.Instance) {
	tn.Clients = 2
	admin := pgtest.Connect(t, inst, "postgres")
	defer admin.Close(context.Background())
	rs, _ := provider.As[provider.ResourceSampler](inst)
	postmaster := rs.ProcessRoot()
	thaw := sync.OnceFunc(func() { _ = syscall.Kill(postmaster, syscall.SIGCONT) })
	defer thaw()
	go func() {
		time.Sleep(time.Second)
		rows, err := admin.Query(context.Background(), `SELECT pid FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if err != nil {
			t.Error(err)
			return
		}
		var pids []int
		for rows.Next() {
			var pid int
			if err := rows.Scan(&pid); err == nil {
				pids = append(pids, pid)
			}
		}
		_ = syscall.Kill(postmaster, syscall.SIGSTOP)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGTERM) // as pg_terminate_backend
		}
	}()
	type ran struct {
		res *Result
		err error
	}
	done := make(chan ran, 1)
	start := time.Now()
	go func() {
		res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: 4 * time.Second})
		done <- ran{res, err}
	}()
	var r ran
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		thaw()
		r = <-done
		t.Fatalf("the phase of 4 s ended only after the server ran again, %v after it began", time.Since(start))
	}
	thaw()
	if r.err != nil {
		t.Fatal(r.err)
	}
	took := time.Since(start)
	var failed int64
	for _, f := range r.res.Tenants[0].Failures {
		if f.Class == "connection" {
			failed += f.Count
			t.Logf("%s: %d, e.g. %s", f.Txn, f.Count, f.Message)
		}
	}
	t.Logf("phase of 4 s took %v; %d failed connection attempts", took, failed)
	if took > 15*time.Second {
		t.Errorf("the phase of 4 s took %v", took)
	}
	if failed == 0 {
		t.Error("no failed connection attempt counted while the postmaster was stopped")
	}
}

// testCancelledSlots: a schedule of four 1 s slots cancelled 2.5 s in has
// three slots, the last ending at the cut, and no row for the slot that
// never started.
func testCancelledSlots(t *testing.T, tn Tenant) {
	slot := time.Second
	tn.Load = &load.Tenant{Profile: load.Slots(slot, []float64{2, 2, 2, 2}), Varies: true, Conns: 2,
		Windows: load.SlotStarts(slot, 4)}
	tn.Clients = 2
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	res, _ := Run(ctx, []Tenant{tn}, Options{Duration: 4 * slot})
	if len(res.Slots) != 3 {
		t.Fatalf("%d slot rows, want 3: %+v", len(res.Slots), res.Slots)
	}
	// The cut is 2.5 s after the context began, less the time the
	// clients took to connect (before the phase's start), which a loaded
	// machine stretches.
	deadline, _ := ctx.Deadline()
	cutAt := deadline.Sub(res.Start)
	last := res.Slots[2]
	if last.End < cutAt-100*time.Millisecond || last.End > cutAt+400*time.Millisecond || last.Target != 2 || last.Committed == 0 {
		t.Errorf("the cut slot: %+v, want it to end at the cut, %v", last, cutAt)
	}
}

// testCancelled: a phase of 1 s warmup and 20 s cancelled 3 s in measured
// about 2 s, and its rates divide by those, not by the 20 s planned.
func testCancelled(t *testing.T, tn Tenant) {
	tn.Clients = 2
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res, err := Run(ctx, []Tenant{tn}, Options{Warmup: time.Second, Duration: 20 * time.Second})
	if err == nil {
		t.Fatal("a cancelled phase returned no error")
	}
	if res.Duration < 1800*time.Millisecond || res.Duration > 2500*time.Millisecond {
		t.Fatalf("measured %v of a phase cancelled 2 s after its warmup", res.Duration)
	}
	// The rate of the whole seconds measured, from the series.
	var committed, secs int64
	for _, r := range res.Series {
		if r.Txn == "all" && !r.Warmup && r.Second < 3 {
			committed += r.Committed
			secs++
		}
	}
	all := res.Tenants[0].All
	if secs == 0 || committed == 0 || all.Committed == 0 {
		t.Fatalf("nothing measured: %d in %d whole seconds, %d in all", committed, secs, all.Committed)
	}
	perSec := float64(committed) / float64(secs)
	tot := results.Totals(res.Figures())[0]
	t.Logf("committed %d in %v: %.1f tps; the whole seconds ran %.1f tps", all.Committed, res.Duration, tot.TPS, perSec)
	if want := float64(all.Committed) / res.Duration.Seconds(); math.Abs(tot.TPS-want) > 1e-6*want {
		t.Errorf("throughput %.1f tps, want committed / measured seconds %.1f", tot.TPS, want)
	}
	if tot.TPS < 0.7*perSec || tot.TPS > 1.3*perSec {
		t.Errorf("throughput %.1f tps, the seconds ran %.1f tps: not divided by the time it ran", tot.TPS, perSec)
	}
	// The driver's CPU time over the measured part: some, and no more than
	// every CPU of the host for the time measured (with some slack for
	// the clients' stopping).
	if d := res.DriverCPU; d == nil || *d <= 0 || d.Seconds() > (res.Duration.Seconds()+0.5)*float64(runtime.NumCPU()) {
		t.Errorf("driver CPU %v over %v measured on %d CPUs", d, res.Duration, runtime.NumCPU())
	} else {
		t.Logf("driver CPU %v: %.1f us per transaction", *d, float64(d.Microseconds())/float64(all.Committed))
	}
}

// testDriverCPUCutInWarmup: a phase cut within its warmup measured no
// driver CPU, not the warmup's.
func testDriverCPUCutInWarmup(t *testing.T, tn Tenant) {
	tn.Clients = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, _ := Run(ctx, []Tenant{tn}, Options{Warmup: 5 * time.Second, Duration: 5 * time.Second})
	if res.DriverCPU != nil {
		t.Errorf("driver CPU %v of a phase cut in its warmup, want none", *res.DriverCPU)
	}
}

// testStallZeroRows: the server frozen (SIGSTOP) for 3 s of a 7 s phase;
// the seconds in which nothing completed are rows of zeros in the series.
func testStallZeroRows(t *testing.T, tn Tenant, inst *provider.Instance) {
	tn.Clients = 2
	rs, _ := provider.As[provider.ResourceSampler](inst)
	var frozen, thawed time.Time
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(2 * time.Second)
		procs := instanceProcs(t, rs.ProcessRoot()) // the phase's backends included
		for _, p := range procs {
			_ = syscall.Kill(p, syscall.SIGSTOP)
		}
		// The freeze is whole once the last process is stopped; a reply
		// a backend wrote before its stop still reaches its client just
		// after (seen: 4 commits at 2.0 s under load), so the frozen
		// seconds start a moment later.
		frozen = time.Now().Add(100 * time.Millisecond)
		time.Sleep(3 * time.Second)
		thawed = time.Now()
		for _, p := range procs {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
	}()
	res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: 7 * time.Second})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	// The whole seconds of the phase within the freeze.
	from := int64((frozen.Sub(res.Start) + time.Second - 1) / time.Second)
	to := int64(thawed.Sub(res.Start) / time.Second)
	if to-from < 1 {
		t.Fatalf("the freeze (%v to %v after the start) covers no whole second", frozen.Sub(res.Start), thawed.Sub(res.Start))
	}
	all := map[int64]results.SecondRow{}
	for _, r := range res.Series {
		if r.Txn == "all" {
			all[r.Second] = r
		}
	}
	for s := int64(0); s < 7; s++ {
		r, ok := all[s]
		if !ok {
			t.Errorf("second %d has no row", s)
			continue
		}
		t.Logf("second %d: %d committed", s, r.Committed)
		if s >= from && s < to && r.Committed != 0 {
			t.Errorf("second %d, frozen: %d committed", s, r.Committed)
		}
	}
	if all[0].Committed == 0 || all[6].Committed == 0 {
		t.Error("nothing committed in the first or last second, outside the freeze")
	}
}

// paced wraps a workload's clients with a keying and a think time, as
// TPC-C's terminals have (workload.Pacer).
type paced struct{ workload.Workload }

type pacedClient struct{ workload.Client }

func (pacedClient) Pace(int) (time.Duration, time.Duration) {
	return 300 * time.Millisecond, 200 * time.Millisecond
}

func (p paced) NewClient(ctx context.Context, conn workload.Conn, ci workload.ClientInfo) (workload.Client, error) {
	c, err := p.Workload.NewClient(ctx, conn, ci)
	return pacedClient{c}, err
}

// testPacing: a Pacer client's keying and think times pace the closed
// loop (one transaction per 0.5 s cycle) and stay out of the latency.
func testPacing(t *testing.T, tn Tenant) {
	tn.Workload, tn.Clients = paced{tn.Workload}, 1
	res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	all := res.Tenants[0].All
	// 3 s of 0.5 s cycles: 6 transactions (5 or 6 at the edges)
	if all.Committed < 4 || all.Committed > 7 {
		t.Errorf("committed %d in 3 s of 0.3 s keying + 0.2 s think, want about 6", all.Committed)
	}
	if all.MeanMs() > 100 {
		t.Errorf("mean latency %.1f ms: keying or think time counted in it", all.MeanMs())
	}
}

// loadTpcb places one tenant and loads tpcb into it, as bench/tpcbcmp
// does.
func loadTpcb(t testing.TB, inst *provider.Instance) Tenant {
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	var opts yaml.Node
	if err := yaml.Unmarshal([]byte("scripts: {select-only: 1}"), &opts); err != nil {
		t.Fatal(err)
	}
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	w, err := reg.Build(&spec.Workload{Name: "tpcb", Options: *opts.Content[0]}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dsn := ps[0].DSN("tcp")
	// The engine's client connections, as a run's: their sockets can go
	// on the driver's event loops (rawsock.Wrap).
	connect := workload.Connect(func(ctx context.Context) (workload.Conn, error) { return inst.Engine.ClientConn(ctx, dsn, nil) })
	conn, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := w.Ingest(ctx, connect, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return Tenant{Name: "t01", Connect: connect, Workload: w, Seed: 1}
}

// openRun runs tenant tn open at rate for d.
func openRun(t *testing.T, tn Tenant, rate float64, d time.Duration, pool int, process string, during func()) *Result {
	t.Helper()
	tn.Load = &load.Tenant{Profile: load.Constant(rate, d), Conns: pool}
	tn.Clients = pool
	if during != nil {
		go during()
	}
	res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: d,
		Shape: load.Open{Arrivals: process, Pool: pool, OnFull: load.OnFullQueue}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Arrival accuracy: an open loop at 200/s for 10 s against real PostgreSQL
// below saturation delivers 2,000 +- 2 % arrivals.
func testArrivalAccuracy(t *testing.T, tn Tenant) {
	res := openRun(t, tn, 200, 10*time.Second, 8, load.ArrivalsUniform, nil)
	tr := res.Tenants[0]
	o, all := tr.Open, tr.All
	t.Logf("arrivals %d, queued %d, dropped %d, committed %d, target %.1f/s, achieved %.1f/s; "+
		"latency p50 %.3f p99 %.3f ms, service p50 %.3f p99 %.3f ms",
		o.Arrivals, o.Queued, o.Dropped, all.Committed, o.TargetRate, o.AchievedRate,
		all.QuantileMs(50), all.QuantileMs(99), all.ServiceQuantileMs(50), all.ServiceQuantileMs(99))
	if o.Arrivals != 2000 || o.TargetRate != 200 {
		t.Errorf("arrivals %d at target %v, want exactly 2000 uniform arrivals at 200/s", o.Arrivals, o.TargetRate)
	}
	if math.Abs(float64(all.Committed)-2000) > 40 || math.Abs(o.AchievedRate-200) > 4 {
		t.Errorf("delivered %d transactions, %.1f/s; want 2000 +- 2 %%", all.Committed, o.AchievedRate)
	}
	if all.Service.TotalCount() != all.Committed || all.ServiceMeanMs() > all.MeanMs() {
		t.Error("service time must be recorded for every transaction and be at most the latency")
	}
}

// Poisson arrivals: as many delivered as arrived, the count within 4
// standard deviations of the rate.
func testPoissonDelivered(t *testing.T, tn Tenant) {
	res := openRun(t, tn, 200, 3*time.Second, 8, load.ArrivalsPoisson, nil)
	o, all := res.Tenants[0].Open, res.Tenants[0].All
	if math.Abs(float64(o.Arrivals)-600) > 4*math.Sqrt(600) {
		t.Errorf("%d Poisson arrivals in 3 s at 200/s", o.Arrivals)
	}
	if o.Dropped != 0 || math.Abs(float64(all.Committed-o.Arrivals)) > float64(o.Arrivals)/50 {
		t.Errorf("arrivals %d, dropped %d, committed %d", o.Arrivals, o.Dropped, all.Committed)
	}
}

// A rate where arrivals are a few hundred microseconds apart, so that most
// clients of the pool wait on their timers at once: 2,000/s for 2 s against
// real PostgreSQL is delivered (what arrived, within 2 %), nothing dropped, and an
// arrival starts close to its intended time (latency, from the intended
// start, exceeds service time, from the actual one, by the timer's
// lateness and any queueing: well under a millisecond at the median).
func testRateHeld(t *testing.T, tn Tenant) {
	res := openRun(t, tn, 2000, 2*time.Second, 8, load.ArrivalsPoisson, nil)
	o, all := res.Tenants[0].Open, res.Tenants[0].All
	lag := all.QuantileMs(50) - all.ServiceQuantileMs(50)
	t.Logf("arrivals %d, queued %d, dropped %d, committed %d, achieved %.1f/s; latency p50 %.3f ms, service p50 %.3f ms",
		o.Arrivals, o.Queued, o.Dropped, all.Committed, o.AchievedRate, all.QuantileMs(50), all.ServiceQuantileMs(50))
	if o.Dropped != 0 || math.Abs(float64(all.Committed-o.Arrivals)) > float64(o.Arrivals)/50 {
		t.Errorf("arrivals %d, dropped %d, committed %d: want every arrival run", o.Arrivals, o.Dropped, all.Committed)
	}
	// Poisson: the count of arrivals is within 4 standard deviations
	if math.Abs(float64(o.Arrivals)-4000) > 4*math.Sqrt(4000) || math.Abs(o.AchievedRate*2-float64(o.Arrivals)) > float64(o.Arrivals)/50 {
		t.Errorf("%d arrivals in 2 s at 2000/s, achieved %.1f/s", o.Arrivals, o.AchievedRate)
	}
	if lag < 0 || lag > 1 {
		t.Errorf("median start %.3f ms after the intended one, want under 1 ms", lag)
	}
}

// Coordinated omission: pause the server process for 1 s (SIGSTOP /
// SIGCONT) during an open-loop run; the p99 latency covers the pause,
// while service time alone does not. Every process of the instance is stopped:
// the postmaster and all its children (backends, checkpointer, ...).
func testCoordinatedOmission(t *testing.T, tn Tenant, inst *provider.Instance) {
	pause := func() {
		time.Sleep(2 * time.Second)
		rs, _ := provider.As[provider.ResourceSampler](inst)
		procs := instanceProcs(t, rs.ProcessRoot())
		for _, p := range procs {
			_ = syscall.Kill(p, syscall.SIGSTOP)
		}
		time.Sleep(time.Second)
		for _, p := range procs {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
	}
	// 4 connections: at most 4 transactions are caught inside the pause,
	// 0.4 % of them, so the service time's p99 stays a normal one.
	res := openRun(t, tn, 200, 5*time.Second, 4, load.ArrivalsUniform, pause)
	tr := res.Tenants[0]
	lat, svc, maxSvc := tr.All.QuantileMs(99), tr.All.ServiceQuantileMs(99), tr.All.ServiceQuantileMs(100)
	t.Logf("arrivals %d, queued %d, committed %d; p99 latency %.1f ms, p99 service %.1f ms (max %.1f)",
		tr.Open.Arrivals, tr.Open.Queued, tr.All.Committed, lat, svc, maxSvc)
	if lat < 800 {
		t.Errorf("p99 latency %.1f ms does not cover the 1 s pause", lat)
	}
	if svc > 200 {
		t.Errorf("p99 service time %.1f ms: service time alone should not show the pause", svc)
	}
	if maxSvc < 500 {
		t.Errorf("max service time %.1f ms: the transactions caught in the pause should show in it", maxSvc)
	}
	if tr.Open.Queued < 150 {
		t.Errorf("%d arrivals queued; the ~200 of the pause should have", tr.Open.Queued)
	}
	// the per-second series shows the queue draining after the pause
	var peak float64
	for _, r := range res.Series {
		if r.Txn == "all" {
			peak = max(peak, r.P99Ms)
		}
	}
	if peak < 800 {
		t.Errorf("no second of the series shows the pause (peak p99 %.1f ms)", peak)
	}
}

// instanceProcs lists the postmaster and every process below it.
func instanceProcs(t *testing.T, pid int) []int {
	all, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]int{}
	for _, p := range all {
		if st, err := p.Stat(); err == nil {
			children[st.PPID] = append(children[st.PPID], p.PID)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	if len(out) < 3 {
		t.Fatalf("found only %d processes of the instance", len(out))
	}
	return out
}

// A closed schedule of slots (2, 0, 2) of a second each: the tenant runs
// in the first and last slot and pauses in the middle one
// (Zhang et al.'s (2025) zero valley), with its connections kept.
func testClosedSlots(t *testing.T, tn Tenant) {
	slot := time.Second
	tn.Load = &load.Tenant{Profile: load.Slots(slot, []float64{2, 0, 2}), Varies: true, Conns: 2,
		Windows: load.SlotStarts(slot, 3)}
	tn.Clients = 2
	res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: 3 * slot})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Slots) != 3 {
		t.Fatalf("%d slot rows, want 3: %+v", len(res.Slots), res.Slots)
	}
	for i, r := range res.Slots {
		t.Logf("slot %d: target %v, committed %d, p99 %.3f ms", i, r.Target, r.Committed, r.P99Ms)
		// A client busy when its slot ends finishes its transaction, which
		// then counts in the next slot: at most one per client.
		if r.Target != []float64{2, 0, 2}[i] || r.Start != time.Duration(i)*slot ||
			(i != 1 && r.Committed < 100) || (i == 1 && r.Committed > 2) {
			t.Errorf("slot %d: %+v", i, r)
		}
	}
	if res.Tenants[0].Open != nil {
		t.Error("a closed load has no arrivals")
	}
}

// testLoops: the tenant's clients run on the event loops asked for, in
// turn, or each on a goroutine of its own, and commit alike.
func testLoops(t *testing.T, tn Tenant) {
	tn.Clients = 5
	for _, c := range []struct{ loops, wantLoops, wantLooped int }{{2, 2, 5}, {1, 1, 5}, {-1, 0, 0}} {
		res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: time.Second, Loops: c.loops})
		if err != nil {
			t.Fatal(err)
		}
		th := res.Threads
		if th.Loops != c.wantLoops || th.LoopedClients != c.wantLooped {
			t.Errorf("Loops %d: %d loops ran %d clients, want %d and %d", c.loops, th.Loops, th.LoopedClients, c.wantLoops, c.wantLooped)
		}
		// Two Loops or more are pinned, each to a CPU, where there are two.
		wantPinned := 0
		if cpus, _ := rawsock.CPUs(); c.wantLoops >= 2 && len(cpus) >= 2 {
			wantPinned = c.wantLoops
		}
		if th.PinnedLoops != wantPinned || th.Procs != runtime.GOMAXPROCS(0) {
			t.Errorf("Loops %d: %d pinned at GOMAXPROCS %d, want %d at %d", c.loops, th.PinnedLoops, th.Procs, wantPinned, runtime.GOMAXPROCS(0))
		}
		if n := res.Tenants[0].All.Committed; n < 100 {
			t.Errorf("Loops %d: %d transactions committed in 1 s by 5 clients", c.loops, n)
		}
	}
}

// testPhaseProcs: from a caller's GOMAXPROCS 1 (tenantbench run's default
// on 2 cores), a closed loop without think time on Loops gets a Loop per
// client, unpinned, and a P for each and one more, for its phase; with a
// fixed Options.Loops, one P per CPU (up to its clients) and its Loops
// pinned; a closed loop that thinks, an open one and a fixed
// Options.Procs keep theirs. GOMAXPROCS is the caller's again after
// every phase.
func testPhaseProcs(t *testing.T, tn Tenant) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	tn.Clients = 5
	cpus, _ := rawsock.CPUs()
	all := min(runtime.NumCPU(), tn.Clients)
	twoPinned := 0
	if len(cpus) >= 2 {
		twoPinned = 2
	}
	for _, c := range []struct {
		name                         string
		o                            Options
		wantProcs, wantLoops, pinned int
	}{
		{"saturating", Options{}, tn.Clients + 1, tn.Clients, 0},
		{"shared", Options{Loops: 2}, all, 2, twoPinned},
		{"think", Options{Shape: load.Closed{Think: time.Millisecond}}, 1, 1, 0},
		{"fixed", Options{Procs: 1}, 1, 1, 0},
		{"fixed above", Options{Shape: load.Closed{Think: time.Millisecond}, Procs: 2}, 2, 2, twoPinned},
		{"open", Options{Shape: load.Open{Arrivals: load.ArrivalsPoisson, Pool: 5, OnFull: load.OnFullQueue}}, 1, 1, 0},
	} {
		tn := tn
		if _, open := c.o.Shape.(load.Open); open {
			tn.Load = &load.Tenant{Profile: load.Constant(500, time.Second), Conns: 5}
		}
		c.o.Duration = time.Second
		res, err := Run(context.Background(), []Tenant{tn}, c.o)
		if err != nil {
			t.Fatal(err)
		}
		th := res.Threads
		if th.Procs != c.wantProcs || th.Loops != c.wantLoops || th.PinnedLoops != c.pinned {
			t.Errorf("%s: GOMAXPROCS %d, %d Loops, %d pinned; want %d, %d, %d", c.name, th.Procs, th.Loops, th.PinnedLoops,
				c.wantProcs, c.wantLoops, c.pinned)
		}
		if n := runtime.GOMAXPROCS(0); n != 1 {
			t.Errorf("%s: GOMAXPROCS %d after the phase, want the caller's 1", c.name, n)
		}
		if n := res.Tenants[0].All.Committed; n < 100 {
			t.Errorf("%s: %d transactions committed in 1 s by 5 clients", c.name, n)
		}
	}
}
