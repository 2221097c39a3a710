// Command opencost measures the open-loop scheduler's own cost (the
// open-loop benchmark of BENCHMARKS.md): tpcb select-only on one server,
// alternating the closed loop (clients back to back) and the open loop at a
// fixed arrival rate, and reports for each the throughput, the achieved rate
// against the target, latency and service time, and the driver's CPU seconds
// per 1000 transactions (and the server's, from its cgroup or process
// tree), and the open loop's schedule lag as pgbench -R reports its own.
// Each round also runs the peer the same two ways on the same server,
// pgbench with one thread: closed (-c clients) and throttled to the rate
// (-R rate -c pool), so that what running below saturation costs any
// client is measured beside what tenantbench's open loop costs.
// -closed=false leaves both closed loops out, for the target that needs
// only the open loop and pgbench -R.
//
//	go run ./bench/opencost -rate 20000 -pool 16 -clients 8 -duration 20s -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

func main() {
	scale := flag.Int("scale", 10, "pgbench scale")
	clients := flag.Int("clients", 8, "closed loop: connections")
	think := flag.Duration("think", 0, "closed loop: think time (to compare at the open loop's throughput)")
	rate := flag.Float64("rate", 20000, "open loop: arrivals per second")
	pool := flag.Int("pool", 16, "open loop: connections at most in flight")
	arrivals := flag.String("arrivals", load.ArrivalsPoisson, "poisson or uniform")
	duration := flag.Duration("duration", 20*time.Second, "each measurement")
	rounds := flag.Int("rounds", 3, "alternations")
	transport := flag.String("transport", "tcp", "tcp or unix")
	procs := flag.Int("procs", driver.DefaultProcs(), "GOMAXPROCS of the driver")
	loops := flag.Int("loops", 0, "the driver's event loops (driver.Options.Loops): 0 one per GOMAXPROCS, -1 none (clients on goroutines)")
	withClosed := flag.Bool("closed", true, "also run the closed loops (tenantbench's and pgbench's) in every round")
	peer := flag.Bool("pgbench", true, "also run pgbench closed and throttled (-R) in every round")
	profile := flag.String("cpuprofile", "", "write the open loop's CPU profile here")
	closedProfile := flag.String("closedprofile", "", "write the closed loop's CPU profile here")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	if err := run(*scale, *clients, *think, *rate, *pool, *arrivals, *duration, *rounds, *transport, *withClosed, *peer, *profile, *closedProfile, *loops); err != nil {
		fmt.Fprintln(os.Stderr, "opencost:", err)
		os.Exit(1)
	}
}

type measure struct {
	tps, achieved, cpuPer1000, lag       float64
	serverPer1000                        float64 // the server's CPU s per 1000 txn (its cgroup or process tree)
	p50, p99, svc50, svc99               float64
	arrivals, queued, dropped, committed int64
}

func run(scale, clients int, think time.Duration, rate float64, pool int, arrivals string, d time.Duration, rounds int, transport string, withClosed, peer bool, profile, closedProfile string, loops int) error {
	// Ctrl-C or a kill ends the measurement with an error, so that the
	// deferred clean-up below (the server, the work directory, a peer's
	// password file) runs: without it the process died with them left.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	work, err := os.MkdirTemp("", "opencost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	prov, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	inst, err := prov.Start(ctx, provider.InstanceSpec{Name: "bench", WorkDir: work, MaxConnections: max(clients, pool) + 10,
		Settings: map[string]string{"shared_buffers": "512MB"}})
	if err != nil {
		return err
	}
	defer prov.Stop(context.Background(), inst)
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		return err
	}
	var opts yaml.Node
	if err := yaml.Unmarshal([]byte("scripts: {select-only: 1}"), &opts); err != nil {
		return err
	}
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	w, err := reg.Build(&spec.Workload{Name: "tpcb", Options: *opts.Content[0]}, float64(scale))
	if err != nil {
		return err
	}
	dsn := ps[0].DSN(transport)
	// The engine's own client connection, as a run's: its sockets can go
	// on the driver's event loops.
	connect := workload.Connect(func(ctx context.Context) (workload.Conn, error) { return inst.Engine.ClientConn(ctx, dsn, nil) })
	conn, err := workload.ConnectPG(ctx, "opencost", connect)
	if err != nil {
		return err
	}
	if _, _, _, err := benchutil.Load(ctx, w, conn, connect); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT sum(abalance) FROM pgbench_accounts"); err != nil {
		return err
	}
	conn.Close(ctx)

	host := inst.Host
	if transport == "unix" {
		host = inst.SocketDir
	}
	p := ps[0]
	pgArgs := func(conns int, extra ...string) []string {
		return append(append([]string{"-n", "-S", "-M", "prepared", "-j", "1", "-c", strconv.Itoa(conns),
			"-T", strconv.Itoa(int(d.Seconds())), "-h", host, "-p", strconv.Itoa(inst.Port), "-U", p.Role}, extra...), p.Database)
	}
	tenant := driver.Tenant{Name: "t01", Connect: connect, Workload: w}
	var closed, open, pgClosed, pgOpen []measure
	runPeer := func(r int, args []string, into *[]measure, name string) error {
		srv0, err := benchutil.ServerCPUSeconds(inst)
		if err != nil {
			return err
		}
		b, err := benchutil.RunPgbench(args, p.Password)
		if err != nil {
			return err
		}
		srv1, err := benchutil.ServerCPUSeconds(inst)
		if err != nil {
			return err
		}
		m := measure{tps: b.TPS, cpuPer1000: b.CPU / b.Txns * 1000, serverPer1000: (srv1 - srv0) / b.Txns * 1000, lag: b.LagMs}
		*into = append(*into, m)
		fmt.Printf("round %d %s: %.0f tps, %.4f CPU s / 1000 txn (server %.4f), schedule lag %.3f ms\n", r+1, name, m.tps, m.cpuPer1000, m.serverPer1000, m.lag)
		return nil
	}
	for r := 0; r < rounds; r++ {
		tenant.Seed = uint64(time.Now().UnixNano())
		var steps []func() error
		if withClosed {
			steps = append(steps, func() error {
				t := tenant
				t.Clients = clients
				m, err := measureRun(ctx, inst, t, driver.Options{Duration: d, Shape: load.Closed{Think: think}, Loops: loops, Procs: runtime.GOMAXPROCS(0)}, closedProfile)
				if err != nil {
					return err
				}
				closed = append(closed, m)
				fmt.Printf("round %d closed, %d clients, think %s: %s\n", r+1, clients, think, m)
				return nil
			})
		}
		steps = append(steps, func() error {
			t := tenant
			t.Clients = pool
			t.Load = &load.Tenant{Profile: load.Constant(rate, d), Conns: pool}
			m, err := measureRun(ctx, inst, t, driver.Options{Duration: d, Loops: loops, Procs: runtime.GOMAXPROCS(0),
				Shape: load.Open{Arrivals: arrivals, Pool: pool, OnFull: load.OnFullQueue}}, profile)
			if err != nil {
				return err
			}
			open = append(open, m)
			fmt.Printf("round %d open %.0f/s, pool %d:  %s\n", r+1, rate, pool, m)
			return nil
		})
		if peer && withClosed {
			steps = append(steps, func() error {
				return runPeer(r, pgArgs(clients), &pgClosed, fmt.Sprintf("pgbench closed, %d clients", clients))
			})
		}
		if peer {
			steps = append(steps, func() error {
				return runPeer(r, pgArgs(pool, "-R", strconv.FormatFloat(rate, 'f', -1, 64)), &pgOpen, fmt.Sprintf("pgbench -R %.0f, %d clients", rate, pool))
			})
		}
		// Every second round runs in the reverse order, so that a machine
		// drifting during a round favours neither client (a
		// counterbalanced, ABBA order).
		if r%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
	}
	mo := median(open)
	fmt.Printf("\n| loop | median TPS | achieved / target | p50 / p99 ms | service p50 / p99 ms | driver CPU s / 1000 txn |\n|---|---|---|---|---|---|\n")
	if withClosed {
		mc := median(closed)
		fmt.Printf("| closed, %d clients, think %s | %.0f | | %.3f / %.3f | | %.4f |\n", clients, think, mc.tps, mc.p50, mc.p99, mc.cpuPer1000)
	}
	fmt.Printf("| open, %.0f/s %s, pool %d | %.0f | %.4f | %.3f / %.3f | %.3f / %.3f | %.4f |\n", rate, arrivals, pool, mo.tps,
		mo.achieved/rate, mo.p50, mo.p99, mo.svc50, mo.svc99, mo.cpuPer1000)
	fmt.Printf("\nachieved/target: %.4f; schedule lag (mean, as pgbench -R's) %.3f ms\n", mo.achieved/rate, mo.lag)
	// Ratios are taken within a round, against the peer measured beside
	// it, then the median over rounds (the machine drifts between
	// rounds).
	var ownRatio, peerRatio, vsPeer, excess, serverVsPeer, bothVsPeer []float64
	for r := range open {
		if peer {
			o, g := open[r], pgOpen[r]
			vsPeer = append(vsPeer, o.cpuPer1000/g.cpuPer1000)
			serverVsPeer = append(serverVsPeer, o.serverPer1000/g.serverPer1000)
			bothVsPeer = append(bothVsPeer, (o.cpuPer1000+o.serverPer1000)/(g.cpuPer1000+g.serverPer1000))
		}
		if withClosed {
			ownRatio = append(ownRatio, open[r].cpuPer1000/closed[r].cpuPer1000)
		}
		if peer && withClosed {
			peerRatio = append(peerRatio, pgOpen[r].cpuPer1000/pgClosed[r].cpuPer1000)
			excess = append(excess, ownRatio[r]/peerRatio[r])
		}
	}
	if withClosed {
		fmt.Printf("median per-round driver CPU per transaction, open/closed: %.3f\n", benchutil.Median(ownRatio))
	}
	if peer {
		po := median(pgOpen)
		fmt.Printf("pgbench -R: %.0f tps at %.4f CPU s / 1000 txn (schedule lag %.3f ms); "+
			"median per-round CPU per transaction, tenantbench open / pgbench -R: %.3f\n",
			po.tps, po.cpuPer1000, po.lag, benchutil.Median(vsPeer))
		// What the client makes the server spend, and the two together:
		// on a machine shared with the server, the CPU the whole
		// transaction takes from it.
		fmt.Printf("server CPU per transaction, beside tenantbench's open loop / beside pgbench -R: %.3f; client and server together: %.3f\n",
			benchutil.Median(serverVsPeer), benchutil.Median(bothVsPeer))
	}
	if peer && withClosed {
		pc := median(pgClosed)
		fmt.Printf("pgbench closed: %.0f tps at %.4f CPU s / 1000 txn; median per-round pgbench -R/closed %.3f; "+
			"(open/closed) / (pgbench -R/closed) %.3f\n", pc.tps, pc.cpuPer1000, benchutil.Median(peerRatio), benchutil.Median(excess))
	}
	return nil
}

func (m measure) String() string {
	s := fmt.Sprintf("%.0f tps, p50 %.3f p99 %.3f ms, %.4f CPU s / 1000 txn (server %.4f)", m.tps, m.p50, m.p99, m.cpuPer1000, m.serverPer1000)
	if m.arrivals > 0 {
		s += fmt.Sprintf("; achieved %.1f/s, arrivals %d, queued %d, dropped %d, service p50 %.3f p99 %.3f ms, schedule lag %.3f ms",
			m.achieved, m.arrivals, m.queued, m.dropped, m.svc50, m.svc99, m.lag)
	}
	return s
}

func measureRun(ctx context.Context, inst *provider.Instance, t driver.Tenant, o driver.Options, profile string) (measure, error) {
	if profile != "" {
		f, err := os.Create(profile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	srv0, err := benchutil.ServerCPUSeconds(inst)
	if err != nil {
		return measure{}, err
	}
	before := benchutil.CPUSeconds()
	res, err := driver.Run(ctx, []driver.Tenant{t}, o)
	if err != nil {
		return measure{}, err
	}
	cpu := benchutil.CPUSeconds() - before
	srv1, err := benchutil.ServerCPUSeconds(inst)
	if err != nil {
		return measure{}, err
	}
	tr := res.Tenants[0]
	n := float64(tr.All.Committed)
	m := measure{tps: n / o.Duration.Seconds(), cpuPer1000: cpu / n * 1000, serverPer1000: (srv1 - srv0) / n * 1000, committed: tr.All.Committed,
		p50: tr.All.QuantileMs(50), p99: tr.All.QuantileMs(99)}
	if o := tr.Open; o != nil {
		m.achieved, m.arrivals, m.queued, m.dropped = o.AchievedRate, o.Arrivals, o.Queued, o.Dropped
		m.svc50, m.svc99 = tr.All.ServiceQuantileMs(50), tr.All.ServiceQuantileMs(99)
		// As pgbench -R's schedule lag: the mean time from the intended
		// start to the actual one (the timer's lateness and any wait for
		// a free connection).
		m.lag = tr.All.MeanMs() - tr.All.ServiceMeanMs()
	}
	return m, nil
}

func median(ms []measure) measure {
	pick := func(f func(measure) float64) float64 { return benchutil.MedianOf(ms, f) }
	return measure{
		tps:           pick(func(m measure) float64 { return m.tps }),
		achieved:      pick(func(m measure) float64 { return m.achieved }),
		cpuPer1000:    pick(func(m measure) float64 { return m.cpuPer1000 }),
		serverPer1000: pick(func(m measure) float64 { return m.serverPer1000 }),
		p50:           pick(func(m measure) float64 { return m.p50 }),
		p99:           pick(func(m measure) float64 { return m.p99 }),
		svc50:         pick(func(m measure) float64 { return m.svc50 }),
		svc99:         pick(func(m measure) float64 { return m.svc99 }),
		lag:           pick(func(m measure) float64 { return m.lag }),
	}
}
