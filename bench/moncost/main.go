// Command moncost measures what monitoring costs tenantbench's throughput
// (BENCHMARKS.md, "Monitoring cost": tpcb select-only, monitoring on vs off,
// target under 2 %). One driver run goes on without a break while the monitor
// is started and stopped in turn every -segment, so that the two conditions
// alternate every few seconds and a shared machine's slow drifts hit both
// alike (rounds of half a minute each, as bench/tpcbcmp -monitor runs them,
// differ by +-20 % when other test suites load the machine). The first second
// of every segment is left out: it holds the monitor's Start or Stop, which a
// run pays once, not every second.
//
//	go run ./bench/moncost -scale 10 -clients 8 -segment 10s -pairs 20
//
// Each pair is an unmonitored and a monitored segment, in the order
// off-on, on-off, off-on... (so that a drift within a pair cancels over
// two); its cost is 1 - monitored TPS / unmonitored TPS. It prints every
// pair and the median.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

func main() {
	scale := flag.Int("scale", 10, "tpcb scale")
	clients := flag.Int("clients", 8, "connections")
	segment := flag.Duration("segment", 10*time.Second, "how long each condition lasts before the other; whole seconds, at least 3s")
	pairs := flag.Int("pairs", 20, "unmonitored and monitored segment pairs")
	procs := flag.Int("procs", driver.DefaultProcs(), "GOMAXPROCS of the driver, as tenantbench run --procs")
	flag.Parse()
	if *segment < 3*time.Second || *segment%time.Second != 0 || *pairs < 1 {
		fmt.Fprintln(os.Stderr, "moncost: -segment must be whole seconds, at least 3s; -pairs at least 1")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(*procs)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *scale, *clients, *segment, *pairs); err != nil {
		fmt.Fprintln(os.Stderr, "moncost:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, scale, clients int, seg time.Duration, pairs int) error {
	work, err := os.MkdirTemp("", "moncost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.Chmod(work, 0o755); err != nil { // the server's user must traverse it
		return err
	}
	prov, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	inst, err := prov.Start(ctx, provider.InstanceSpec{Name: "bench", WorkDir: work, MaxConnections: clients + 10,
		Settings: map[string]string{"shared_buffers": "512MB"}})
	if err != nil {
		return err
	}
	defer prov.Stop(context.Background(), inst)
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		return err
	}
	w, connect, err := load(ctx, ps[0], scale)
	if err != nil {
		return err
	}

	// The toggler starts the monitor at the start of every monitored
	// segment and stops it at its end; each segment holds the driver's
	// seconds that lie wholly between the moment its condition held (the
	// monitor's Start or Stop returned) and its end.
	on := make([]bool, 2*pairs)
	for p := range pairs {
		first := p%2 == 1 // off-on, on-off, ...
		on[2*p], on[2*p+1] = first, !first
	}
	segs := make([]span, len(on))
	done := make(chan error, 1)
	t0 := time.Now()
	go func() { done <- toggle(ctx, t0, on, seg, segs, inst, ps) }()
	res, err := driver.Run(ctx, []driver.Tenant{{Name: "t01", Connect: connect, Workload: w, Clients: clients,
		Seed: uint64(time.Now().UnixNano())}}, driver.Options{Duration: time.Duration(len(on)) * seg, Procs: runtime.GOMAXPROCS(0)})
	if terr := <-done; err == nil {
		err = terr
	}
	if err != nil {
		return err
	}
	return report(res, on, segs)
}

// span is when a segment's condition held.
type span struct{ from, to time.Time }

// toggle runs the segments from t0: the monitor at its defaults, as a run
// has it, in the monitored ones.
func toggle(ctx context.Context, t0 time.Time, on []bool, seg time.Duration, segs []span, inst *provider.Instance, ps []tenancy.Placement) error {
	var m *monitor.Monitor
	defer func() {
		if m != nil {
			m.Stop()
		}
	}()
	for i, mon := range on {
		if mon {
			m = monitor.New(monitor.Config{Instances: []*provider.Instance{inst}, Placements: ps})
			if err := m.Start(ctx); err != nil {
				return err
			}
		}
		segs[i].from = time.Now()
		end := t0.Add(time.Duration(i+1) * seg)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(end)):
		}
		segs[i].to = time.Now()
		if mon {
			if _, err := m.Stop(); err != nil {
				fmt.Println("monitor:", err)
			}
			m = nil
		}
	}
	return nil
}

// report prints each pair's TPS and cost, and the median cost.
func report(res *driver.Result, on []bool, segs []span) error {
	tps := make([]float64, len(segs))
	for i, sp := range segs {
		var n, secs int64
		for _, r := range res.Series {
			t := res.Start.Add(time.Duration(r.Second) * time.Second)
			if r.Txn == "all" && !r.Warmup && !t.Before(sp.from) && !t.Add(time.Second).After(sp.to) {
				n += r.Committed
				secs++
			}
		}
		if secs == 0 {
			tps[i] = -1
			continue
		}
		tps[i] = float64(n) / float64(secs)
	}
	var costs []float64
	for p := 0; p+1 < len(segs); p += 2 {
		off, mon := tps[p], tps[p+1]
		if on[p] {
			off, mon = mon, off
		}
		if off <= 0 || mon < 0 {
			fmt.Printf("pair %d: a segment holds no whole second of the driver's run\n", p/2+1)
			continue
		}
		c := (1 - mon/off) * 100
		costs = append(costs, c)
		fmt.Printf("pair %2d: unmonitored %6.0f tps, monitored %6.0f tps: cost %6.2f %%\n", p/2+1, off, mon, c)
	}
	if len(costs) == 0 {
		return fmt.Errorf("no pair measured")
	}
	sort.Float64s(costs)
	q := func(f float64) float64 { return costs[int(f*float64(len(costs)-1)+0.5)] }
	fmt.Printf("\n%d pairs: median cost %.2f %% of TPS (quartiles %.2f / %.2f %%)\n", len(costs), q(0.5), q(0.25), q(0.75))
	return nil
}

// load makes tpcb's tables at scale for the tenant and warms the cache,
// as bench/tpcbcmp does, with the select-only script.
func load(ctx context.Context, p tenancy.Placement, scale int) (workload.Workload, workload.Connect, error) {
	var opts yaml.Node
	if err := yaml.Unmarshal([]byte("scripts: {select-only: 1}"), &opts); err != nil {
		return nil, nil, err
	}
	reg := workload.Registry{}
	reg.Add(tpcb.Factory())
	w, err := reg.Build(&spec.Workload{Name: "tpcb", Options: *opts.Content[0]}, float64(scale))
	if err != nil {
		return nil, nil, err
	}
	pgConnect := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, p.DSN("tcp")) }
	connect := workload.PGConnect(pgConnect)
	conn, err := pgConnect(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.Background())
	if _, _, _, err := benchutil.Load(ctx, w, conn, connect); err != nil {
		return nil, nil, err
	}
	_, err = conn.Exec(ctx, "SELECT sum(abalance) FROM pgbench_accounts")
	return w, connect, err
}
