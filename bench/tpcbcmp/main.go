// Command tpcbcmp measures tenantbench's driver against its engine's peer
// (pgbench on PostgreSQL, sysbench oltp_point_select on MariaDB: peer.go)
// on the same server, alternating the two (BENCHMARKS.md): select-only TPS
// and the client's CPU seconds per 1000 transactions.
//
//	go run ./bench/tpcbcmp -scale 10 -clients 8 -duration 30s -rounds 3
//	go run ./bench/tpcbcmp -engine mariadb   # against sysbench oltp_point_select
//	go run ./bench/tpcbcmp -monitor   # monitoring on vs off instead of pgbench
//	go run ./bench/tpcbcmp -monitor -order abba   # the monitored round first in every other pair
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

func main() {
	engineName := flag.String("engine", postgres.Name, "the server's engine: "+strings.Join(engine.Builtin().Names(), ", "))
	scale := flag.Int("scale", 10, "tpcb scale (pgbench -s); the peer's table as large")
	clients := flag.Int("clients", 8, "connections, both tools")
	threads := flag.Int("j", 2, "pgbench threads")
	duration := flag.Duration("duration", 30*time.Second, "each measurement")
	rounds := flag.Int("rounds", 3, "alternations")
	script := flag.String("script", "select-only", "tpcb script")
	transport := flag.String("transport", "tcp", "tcp or unix, both tools")
	profile := flag.String("cpuprofile", "", "write tenantbench's CPU profile here")
	withMonitor := flag.Bool("monitor", false, "alternate unmonitored and monitored tenantbench rounds instead of pgbench")
	order := flag.String("order", "fixed", "with -monitor: fixed (unmonitored first in every pair) or abba (monitored first in every other pair, so that drift cancels)")
	procsFlag := flag.String("procs", "0",
		"GOMAXPROCS of tenantbench's driver (tenantbench run --procs; 0 its default, which in this closed loop is an event loop per client and a P for each and one more; 2 on 2 cores is the earlier default, two pinned event loops); a list (1,2) runs tenantbench at each in turn every round; a count ending in g (1g) runs its clients on goroutines, not on event loops (driver.Options.Loops -1)")
	flag.Parse()
	procs, err := procsList(*procsFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpcbcmp:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(procs[0].base())
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if *order != "fixed" && *order != "abba" {
		fmt.Fprintln(os.Stderr, "tpcbcmp: -order is fixed or abba")
		os.Exit(2)
	}
	if err := run(*engineName, *scale, *clients, *threads, *duration, *rounds, *script, *transport, *withMonitor, *order == "abba", procs); err != nil {
		fmt.Fprintln(os.Stderr, "tpcbcmp:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type measure struct {
	tps, cpuPer1000 float64
	txns            float64
	use             benchutil.Usage
	// serverUs and sentBytes are the server's CPU microseconds and the
	// bytes it sent per transaction (serverSide); sentBytes 0 where not
	// read.
	serverUs, sentBytes float64
	// threads is how tenantbench's phase ran its clients; nil for the peer.
	threads *results.DriverThreads
}

// detail is m's CPU split and context switches per transaction, and the
// server's CPU (and bytes sent) per transaction.
func (m measure) detail() string {
	if m.txns == 0 {
		return ""
	}
	us := func(s float64) float64 { return s / m.txns * 1e6 }
	s := ""
	if th := m.threads; th != nil {
		s = fmt.Sprintf(" [GOMAXPROCS %d, %d Loops, %d pinned]", th.Procs, th.Loops, th.PinnedLoops)
	}
	s += fmt.Sprintf(" (per txn: user %.2f us, sys %.2f us, %.2f voluntary + %.2f involuntary context switches; server CPU %.2f us",
		us(m.use.User), us(m.use.Sys), m.use.Vcsw/m.txns, m.use.Ivcsw/m.txns, m.serverUs)
	if m.sentBytes > 0 {
		s += fmt.Sprintf(", %.1f bytes sent", m.sentBytes)
	}
	return s + ")"
}

// variant is one -procs value: the driver's GOMAXPROCS, and whether its
// clients run on goroutines instead of event loops.
type variant struct {
	n          int
	goroutines bool
}

func (v variant) String() string {
	if v.n == 0 {
		return "default"
	}
	if v.goroutines {
		return strconv.Itoa(v.n) + "g"
	}
	return strconv.Itoa(v.n)
}

// base is the variant's GOMAXPROCS outside the phase: tenantbench run's
// (driver.DefaultProcs) for 0.
func (v variant) base() int {
	if v.n == 0 {
		return driver.DefaultProcs()
	}
	return v.n
}

// loops is the variant's driver.Options.Loops.
func (v variant) loops() int {
	if v.goroutines {
		return -1
	}
	return 0
}

// procsList reads -procs: one GOMAXPROCS or a comma-separated list, each
// with a g when its clients run on goroutines.
func procsList(s string) ([]variant, error) {
	var ps []variant
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v := variant{goroutines: strings.HasSuffix(f, "g")}
		n, err := strconv.Atoi(strings.TrimSuffix(f, "g"))
		if err != nil || n < 0 || (n == 0 && v.goroutines) {
			return nil, fmt.Errorf("-procs %q: want a count, 0 for tenantbench run's default, or a list of them (0,1,2), each with g to run the clients on goroutines (1g)", s)
		}
		v.n = n
		ps = append(ps, v)
	}
	return ps, nil
}

func run(engineName string, scale, clients, threads int, d time.Duration, rounds int, script, transport string, withMonitor, abba bool, procs []variant) error {
	// Ctrl-C or a kill ends the measurement with an error, so that the
	// deferred clean-up below (the server, the work directory, a peer's
	// password file) runs: without it the process died with them left.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := engine.Builtin().Get(engineName)
	if err != nil {
		return err
	}
	pr, err := peerOf(e.Name())
	if err != nil {
		return err
	}
	if !withMonitor {
		if err := pr.has(script); err != nil {
			return err
		}
	}
	work, err := os.MkdirTemp("", "tpcbcmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	prov, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	inst, err := prov.Start(ctx, provider.InstanceSpec{Name: "bench", Engine: e, WorkDir: work, MaxConnections: clients + 10,
		Settings: pr.settings})
	if err != nil {
		return err
	}
	defer prov.Stop(context.Background(), inst)
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		return err
	}
	p := ps[0]
	var opts yaml.Node
	if err := yaml.Unmarshal([]byte("scripts: {"+script+": 1}"), &opts); err != nil {
		return err
	}
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	w, err := reg.Build(&spec.Workload{Name: "tpcb", Options: *opts.Content[0]}, float64(scale))
	if err != nil {
		return err
	}
	connect := func(ctx context.Context) (workload.Conn, error) {
		return inst.Engine.ClientConn(ctx, p.DSN(transport), nil)
	}
	conn, err := connect(ctx)
	if err != nil {
		return err
	}
	if _, _, _, err := benchutil.Load(ctx, w, conn, connect); err != nil {
		return err
	}
	conn.Close(ctx)
	// Warm the cache so that neither tool's first round pays for it.
	admin, err := inst.Engine.Connect(ctx, p.DSN(transport))
	if err != nil {
		return err
	}
	_, err = admin.QueryStrings(ctx, "SELECT sum(abalance) FROM pgbench_accounts")
	admin.Close(ctx)
	if err != nil {
		return err
	}
	t := target{inst: inst, p: p, transport: transport, scale: scale, clients: clients, threads: threads, d: d, script: script}
	if pr.prepare != nil && !withMonitor {
		if err := pr.prepare(ctx, t); err != nil {
			return err
		}
	}
	var tb, pg []measure
	if withMonitor || len(procs) > 1 {
		runtime.GOMAXPROCS(procs[0].base())
	}
	if withMonitor {
		// tenantbench against itself with the monitor sampling the
		// instance and its tenant, as a monitored run does
		// (BENCHMARKS.md: monitoring's TPS cost).
		var costs []float64
		for r := 0; r < rounds; r++ {
			first := "unmonitored"
			if abba && r%2 == 1 {
				first = "monitored"
			}
			var off, on measure
			for _, which := range []string{first, other(first)} {
				load := benchutil.Loadavg()
				m, err := monitoredRound(ctx, w, connect, clients, d, which == "monitored", inst, ps, procs[0])
				if err != nil {
					return err
				}
				if which == "monitored" {
					on = m
				} else {
					off = m
				}
				fmt.Printf("round %d %s: %.0f tps, %.4f CPU s / 1000 txn (load average before: %s)\n", r+1, which, m.tps, m.cpuPer1000, load)
			}
			tb, pg = append(tb, off), append(pg, on)
			costs = append(costs, (1-on.tps/off.tps)*100)
			fmt.Printf("round %d: monitoring costs %.2f %% of TPS\n", r+1, costs[len(costs)-1])
		}
		mt, mm := median(tb), median(pg)
		fmt.Printf("\nmedian TPS unmonitored %.0f, monitored %.0f: monitoring costs %.2f %% of TPS\n", mt.tps, mm.tps, (1-mm.tps/mt.tps)*100)
		sort.Float64s(costs)
		fmt.Printf("per-round costs, sorted: %.2f; median %.2f %%\n", costs, costs[len(costs)/2])
		return nil
	}
	// Each -procs value's rounds, in the order given, every round: on a
	// shared machine only rounds this close together compare.
	byProcs := make([][]measure, len(procs))
	admin, err = inst.Engine.Connect(ctx, p.DSN(transport))
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	for r := 0; r < rounds; r++ {
		var m measure
		for i, n := range procs {
			runtime.GOMAXPROCS(n.base())
			s0, err := serverNow(ctx, t, pr, admin)
			if err != nil {
				return err
			}
			m, err = tenantbench(ctx, w, connect, clients, d, n)
			if err != nil {
				return err
			}
			s1, err := serverNow(ctx, t, pr, admin)
			if err != nil {
				return err
			}
			m.perTxn(s0, s1)
			byProcs[i] = append(byProcs[i], m)
			label := "tenantbench"
			if len(procs) > 1 {
				label = fmt.Sprintf("tenantbench -procs %s", n)
			}
			fmt.Printf("round %d %s: %.0f tps, %.4f CPU s / 1000 txn%s (load average: %s)\n", r+1, label, m.tps, m.cpuPer1000, m.detail(), benchutil.Loadavg())
		}
		tb = byProcs[0]
		s0, err := serverNow(ctx, t, pr, admin)
		if err != nil {
			return err
		}
		pb, err := pr.round(t)
		if err != nil {
			return err
		}
		s1, err := serverNow(ctx, t, pr, admin)
		if err != nil {
			return err
		}
		m = measure{tps: pb.TPS, cpuPer1000: pb.CPU / pb.Txns * 1000, txns: pb.Txns, use: pb.Usage}
		m.perTxn(s0, s1)
		pg = append(pg, m)
		fmt.Printf("round %d %s: %.0f tps, %.4f CPU s / 1000 txn%s (load average: %s)\n", r+1, pr.name, m.tps, m.cpuPer1000, m.detail(), benchutil.Loadavg())
	}
	mp := median(pg)
	if len(procs) > 1 {
		fmt.Printf("\n| driver GOMAXPROCS | median TPS | median CPU s / 1000 txn | TPS ratio to %s | CPU ratio to %s |\n|---|---|---|---|---|\n", pr.name, pr.name)
		for i, n := range procs {
			m := median(byProcs[i])
			fmt.Printf("| %s | %.0f | %.4f | %.3f | %.3f |\n", n, m.tps, m.cpuPer1000, m.tps/mp.tps, m.cpuPer1000/mp.cpuPer1000)
		}
	}
	mt := median(tb)
	fmt.Printf("\n| tool | median TPS | median client CPU s / 1000 txn |\n|---|---|---|\n")
	fmt.Printf("| tenantbench (GOMAXPROCS %s) | %.0f | %.4f |\n| %s | %.0f | %.4f |\n", procs[0], mt.tps, mt.cpuPer1000, pr.name, mp.tps, mp.cpuPer1000)
	fmt.Printf("\nTPS ratio tenantbench/%s: %.3f; CPU per transaction ratio: %.3f\n", pr.name, mt.tps/mp.tps, mt.cpuPer1000/mp.cpuPer1000)
	fmt.Printf("server CPU per transaction: tenantbench %.2f us, %s %.2f us (ratio %.3f)", mt.serverUs, pr.name, mp.serverUs, mt.serverUs/mp.serverUs)
	if mp.sentBytes > 0 {
		fmt.Printf("; bytes the server sent per transaction: tenantbench %.1f, %s %.1f", mt.sentBytes, pr.name, mp.sentBytes)
	}
	fmt.Println()
	return nil
}

// monitoredRound runs tenantbench's driver, with the monitor at its
// defaults when monitored.
func monitoredRound(ctx context.Context, w workload.Workload, connect workload.Connect, clients int, d time.Duration,
	monitored bool, inst *provider.Instance, ps []tenancy.Placement, v variant) (measure, error) {
	if !monitored {
		return tenantbench(ctx, w, connect, clients, d, v)
	}
	mon := monitor.New(monitor.Config{Instances: []*provider.Instance{inst}, Placements: ps})
	if err := mon.Start(ctx); err != nil {
		return measure{}, err
	}
	m, err := tenantbench(ctx, w, connect, clients, d, v)
	if _, merr := mon.Stop(); merr != nil {
		fmt.Println("monitor:", merr)
	}
	return m, err
}

func other(which string) string {
	if which == "monitored" {
		return "unmonitored"
	}
	return "monitored"
}

// loadavg is the machine's 1, 5 and 15 minute load averages.

func tenantbench(ctx context.Context, w workload.Workload, connect workload.Connect, clients int, d time.Duration, v variant) (measure, error) {
	before, use := benchutil.CPUSeconds(), benchutil.SelfUsage()
	res, err := driver.Run(ctx, []driver.Tenant{{Name: "t01", Connect: connect, Workload: w, Clients: clients, Seed: uint64(time.Now().UnixNano())}},
		driver.Options{Duration: d, Loops: v.loops(), Procs: v.n})
	if err != nil {
		return measure{}, err
	}
	cpu, use := benchutil.CPUSeconds()-before, benchutil.SelfUsage().Sub(use)
	n := float64(res.Tenants[0].All.Committed)
	return measure{tps: n / d.Seconds(), cpuPer1000: cpu / n * 1000, txns: n, use: use, threads: &res.Threads}, nil
}

func median(ms []measure) measure {
	return measure{tps: benchutil.MedianOf(ms, func(m measure) float64 { return m.tps }),
		cpuPer1000: benchutil.MedianOf(ms, func(m measure) float64 { return m.cpuPer1000 }),
		serverUs:   benchutil.MedianOf(ms, func(m measure) float64 { return m.serverUs }),
		sentBytes:  benchutil.MedianOf(ms, func(m measure) float64 { return m.sentBytes })}
}
