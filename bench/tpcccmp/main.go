// Command tpcccmp measures tenantbench's TPC-C against go-tpc on the same
// server, alternating the two (BENCHMARKS.md), and cloned against
// loaded provisioning:
//
//	(a) -what load:  load time of W warehouses: tenantbench's setup, ingest
//	    and post-ingest against `go-tpc tpcc prepare --no-check`;
//	(b) -what cpu:   the driver's and the server's CPU seconds per 1000
//	    New-Orders at equal clients and warehouses (no keying or think time
//	    in either), tenantbench in each interaction mode of -interaction
//	    (the server's from its own accounting: its cgroup, else its
//	    processes); with -statements (PostgreSQL) also the statements
//	    each tool executed per New-Order and their time in the server,
//	    lock waits included (pg_stat_statements, loaded for both); with
//	    -matched each mode again as an open load at go-tpc's rate of the
//	    round, so that the server's CPU compares at equal throughput;
//	(c) -what clone: provisioning N tenants of one warehouse in the
//	    database model, workload.provision clone against load.
//
// -engine mariadb runs (a) and (b) on a MariaDB server, go-tpc with its
// MySQL driver (engines.go). go-tpc is not part of tenantbench: build it
// yourself and give its path.
//
//	go run ./bench/tpcccmp -gotpc /path/to/go-tpc -what load,cpu -warehouses 10 -clients 10 -duration 60s -rounds 3
//	go run ./bench/tpcccmp -gotpc /path/to/go-tpc -what cpu -interaction batched,statements,procedures -warehouses 4
//	go run ./bench/tpcccmp -what clone -tenants 20 -rounds 3
//	go run ./bench/tpcccmp -engine mariadb -gotpc /path/to/go-tpc -what load,cpu -warehouses 10
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

func main() {
	engineName := flag.String("engine", postgres.Name, "the server's engine (load, cpu): "+strings.Join(engine.Builtin().Names(), ", "))
	gotpc := flag.String("gotpc", "", "path of a go-tpc binary (for load and cpu)")
	what := flag.String("what", "load,cpu,clone", "comma-separated: load, cpu, clone")
	warehouses := flag.Int("warehouses", 10, "warehouses, both tools (load, cpu)")
	clients := flag.Int("clients", 10, "clients (tenantbench) and threads (go-tpc run), cpu")
	loadThreads := flag.Int("gotpc-load-threads", 4, "go-tpc prepare threads (-T)")
	loadConns := flag.Int("load-connections", 0, "tenantbench's load connections (tpcc's load_connections; 0: its default)")
	duration := flag.Duration("duration", 60*time.Second, "each cpu measurement")
	rounds := flag.Int("rounds", 3, "alternations")
	tenants := flag.Int("tenants", 20, "tenants of one warehouse (clone)")
	procs := flag.Int("procs", driver.DefaultProcs(), "GOMAXPROCS of tenantbench's driver (tenantbench run --procs)")
	profile := flag.String("cpuprofile", "", "write tenantbench's CPU profile of the cpu rounds here")
	matched := flag.Bool("matched", false, "cpu: after each go-tpc round, run each interaction mode again as an open load (Poisson arrivals, a pool of -clients) at go-tpc's rate of that round, "+
		"so that the server's CPU per New-Order compares at equal throughput")
	statements := flag.Bool("statements", false, "cpu: also count, per New-Order, the statements each tool executed and their time in the server, lock waits included "+
		"(PostgreSQL: pg_stat_statements, loaded for both tools)")
	interactions := flag.String("interaction", "", "comma-separated tpcc interaction modes, each measured in every cpu round: "+strings.Join(tpcc.Interactions, ", ")+
		" (default: batched on PostgreSQL, statements on MariaDB)")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	e, err := engine.Builtin().Get(*engineName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpcccmp: -engine:", err)
		os.Exit(2)
	}
	sd, err := sideOf(e.Name())
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpcccmp:", err)
		os.Exit(2)
	}
	if *interactions == "" {
		*interactions = sd.interaction
	}
	if *statements {
		if sd.statements == nil {
			fmt.Fprintf(os.Stderr, "tpcccmp: -statements: no statement counter on %s (only on postgres)\n", e.Name())
			os.Exit(2)
		}
		sd.settings = withCounter(sd.settings, sd.statements)
	} else {
		sd.statements = nil
	}
	b := &bench{engine: e, side: sd, gotpc: *gotpc, warehouses: *warehouses, clients: *clients, loadThreads: *loadThreads,
		loadConns: *loadConns, duration: *duration, rounds: *rounds, tenants: *tenants, profile: *profile,
		modes: strings.Split(*interactions, ","), matched: *matched}
	if err := b.main(strings.Split(*what, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "tpcccmp:", err)
		os.Exit(1)
	}
}

type bench struct {
	engine                           engine.Engine
	side                             side
	gotpc                            string
	warehouses, clients, loadThreads int
	loadConns                        int
	duration                         time.Duration
	rounds, tenants                  int
	profile                          string
	inst                             *provider.Instance
	tb, gt                           tenancy.Placement // tenantbench's tenant, go-tpc's database
	w                                workload.Workload
	// modes are the interaction modes the cpu rounds measure, each on a
	// workload of its own (over the same data: w loads it).
	modes  []string
	byMode map[string]workload.Workload
	// matched: each mode again at go-tpc's rate, after its round.
	matched bool
}

func (b *bench) main(what []string) error {
	// Ctrl-C or a kill ends the measurement with an error, so that the
	// deferred clean-up below (the server, the work directory, a peer's
	// password file) runs: without it the process died with them left.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	work, err := os.MkdirTemp("", "tpcccmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	prov, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	for _, wh := range what {
		switch wh {
		case "clone":
			if err := b.clone(ctx, prov, work); err != nil {
				return err
			}
		case "load", "cpu":
			if b.gotpc == "" {
				return fmt.Errorf("-what %s needs -gotpc", wh)
			}
		default:
			return fmt.Errorf("-what %q: load, cpu or clone", wh)
		}
	}
	if !has(what, "load") && !has(what, "cpu") {
		return nil
	}
	// The loading workload creates the procedures when a mode calls them.
	// Built before the server starts, so that a mode the engine has no
	// form of is refused at once.
	o := tpcc.DefaultOptions()
	o.LoadConnections = b.loadConns
	b.byMode = map[string]workload.Workload{}
	for _, m := range b.modes {
		mo := tpcc.DefaultOptions()
		mo.Interaction = m
		if b.byMode[m], err = tpcc.New(float64(b.warehouses), mo); err != nil {
			return fmt.Errorf("-interaction %s: %w", m, err)
		}
		if eo, ok := b.byMode[m].(workload.EngineOptions); ok {
			if key, value, allowed := eo.CheckEngine(b.engine); key != "" {
				return fmt.Errorf("-interaction %s: tpcc's %s %s on %s: %s", m, key, value, b.engine.Name(), allowed)
			}
		}
		if m == tpcc.InteractionProcedures {
			o.Interaction = m
		}
	}
	if b.w, err = tpcc.New(float64(b.warehouses), o); err != nil {
		return err
	}
	inst, err := prov.Start(ctx, provider.InstanceSpec{Name: "bench", Engine: b.engine, WorkDir: work, MaxConnections: b.clients + 20,
		Settings: b.side.settings})
	if err != nil {
		return err
	}
	defer prov.Stop(context.Background(), inst)
	b.inst = inst
	fmt.Printf("server: %s %s, %v\n", b.engine.Name(), inst.Version, b.side.settings)
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01", "t02"})
	if err != nil {
		return err
	}
	b.tb, b.gt = ps[0], ps[1]
	if has(what, "load") {
		if err := b.load(ctx); err != nil {
			return err
		}
	} else if err := b.loadOnce(ctx); err != nil {
		return err
	}
	if has(what, "cpu") {
		return b.cpu(ctx)
	}
	return nil
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (b *bench) connect(p tenancy.Placement) workload.Connect {
	return func(ctx context.Context) (workload.Conn, error) {
		return b.inst.Engine.ClientConn(ctx, p.DSN("tcp"), nil)
	}
}

// drop removes the TPC-C tables of p and flushes the server, untimed, so
// that every round loads into an empty database with clean buffers.
// (CASCADE: MariaDB takes the word and does nothing with it.)
func (b *bench) drop(ctx context.Context, p tenancy.Placement) error {
	c, err := b.inst.Engine.Connect(ctx, p.DSN("tcp"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if err := c.Exec(ctx, "DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock CASCADE"); err != nil {
		return err
	}
	return b.side.flush(ctx, b.inst)
}

// loadTB is tenantbench's setup (tables), ingest (COPY) and post-ingest
// (keys, indexes, VACUUM ANALYZE), the seconds of each.
func (b *bench) loadTB(ctx context.Context) (setup, ingest, post float64, err error) {
	c, err := b.connect(b.tb)(ctx)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	s, i, p, err := benchutil.Load(ctx, b.w, c, b.connect(b.tb))
	return s.Seconds(), i.Seconds(), p.Seconds(), err
}

// gotpcArgs are the connection flags of go-tpc for its database; on
// PostgreSQL the password goes through a pgpass file (runGotpc).
func (b *bench) gotpcArgs(args ...string) []string {
	args = append(args, b.side.gotpc(b.gt)...)
	return append(args, "-H", b.inst.Host,
		"-P", strconv.Itoa(b.inst.Port), "-U", b.gt.Role, "-D", b.gt.Database,
		"--warehouses", strconv.Itoa(b.warehouses))
}

// runGotpc runs go-tpc and returns its output and its CPU seconds (user
// and system, from its rusage).
func (b *bench) runGotpc(args []string) ([]byte, float64, error) {
	cmd := exec.Command(b.gotpc, args...)
	remove, err := benchutil.PassFile(cmd, b.gt.Password)
	if err != nil {
		return nil, 0, err
	}
	defer remove()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil {
		return out.Bytes(), 0, fmt.Errorf("go-tpc %s: %v\n%s", args[1], err, tail(out.Bytes()))
	}
	return out.Bytes(), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// load is benchmark (a): both tools load W warehouses into an empty
// database of their own on the same server, alternating.
func (b *bench) load(ctx context.Context) error {
	var tbT, gtT []float64
	for r := 1; r <= b.rounds; r++ {
		if err := b.drop(ctx, b.tb); err != nil {
			return err
		}
		la := benchutil.Loadavg()
		// Where a load's time goes: the loader's own CPU (generating and
		// sending the rows) and the server's.
		cpu0 := benchutil.CPUSeconds()
		srv0, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		s, i, p, err := b.loadTB(ctx)
		if err != nil {
			return err
		}
		srv1, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		tbT = append(tbT, s+i+p)
		fmt.Printf("round %d tenantbench: %.1f s (setup %.2f, ingest %.1f, post-ingest %.1f; CPU s: loader %.1f, server %.1f) (load average before: %s)\n",
			r, s+i+p, s, i, p, benchutil.CPUSeconds()-cpu0, srv1-srv0, la)
		if err := b.drop(ctx, b.gt); err != nil {
			return err
		}
		la = benchutil.Loadavg()
		if srv0, err = benchutil.ServerCPUSeconds(b.inst); err != nil {
			return err
		}
		t0 := time.Now()
		_, gcpu, err := b.runGotpc(b.gotpcArgs("tpcc", "prepare", "--no-check", "-T", strconv.Itoa(b.loadThreads)))
		if err != nil {
			return err
		}
		gtT = append(gtT, time.Since(t0).Seconds())
		if srv1, err = benchutil.ServerCPUSeconds(b.inst); err != nil {
			return err
		}
		if err := b.analyzeGT(ctx); err != nil {
			return err
		}
		fmt.Printf("round %d go-tpc prepare -T %d: %.1f s (CPU s: go-tpc %.1f, server %.1f) (load average before: %s)\n",
			r, b.loadThreads, gtT[len(gtT)-1], gcpu, srv1-srv0, la)
	}
	mt, mg := benchutil.Median(tbT), benchutil.Median(gtT)
	fmt.Printf("\nload of %d warehouses, median of %d: tenantbench %.1f s, go-tpc %.1f s: tenantbench %.2fx faster\n\n",
		b.warehouses, b.rounds, mt, mg, mg/mt)
	return nil
}

// loadOnce loads both databases when cpu runs without load.
func (b *bench) loadOnce(ctx context.Context) error {
	if err := b.drop(ctx, b.tb); err != nil {
		return err
	}
	if _, _, _, err := b.loadTB(ctx); err != nil {
		return err
	}
	if err := b.drop(ctx, b.gt); err != nil {
		return err
	}
	if _, _, err := b.runGotpc(b.gotpcArgs("tpcc", "prepare", "--no-check", "-T", strconv.Itoa(b.loadThreads))); err != nil {
		return err
	}
	return b.analyzeGT(ctx)
}

// analyzeGT refreshes the statistics of go-tpc's database (side.analyze).
func (b *bench) analyzeGT(ctx context.Context) error {
	if b.side.analyze == "" {
		return nil
	}
	if err := adminExec(ctx, b.inst, b.gt.Database, b.side.analyze); err != nil {
		return fmt.Errorf("analyzing go-tpc's database: %w", err)
	}
	return nil
}

var newOrderLine = regexp.MustCompile(`\[Summary\] NEW_ORDER\s+- Takes\(s\): [0-9.]+, Count: ([0-9]+)`)

// cpu is benchmark (b): each tool drives its own W warehouses with the
// same number of clients for the same time, alternating; the driver's CPU
// seconds per 1000 New-Orders (tenantbench: its own rusage over
// driver.Run; go-tpc: its process's).
func (b *bench) cpu(ctx context.Context) error {
	if b.profile != "" {
		f, err := os.Create(b.profile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	// per round: CPU s / 1000 New-Orders, New-Orders/min; with
	// -statements the statements and their server milliseconds per
	// New-Order
	type figures struct{ driver, server, nopm, stmts, ms []float64 }
	tb := map[string]*figures{}
	for _, m := range b.modes {
		tb[m] = &figures{}
	}
	var gt figures
	sc := b.side.statements
	if sc != nil {
		if err := adminExec(ctx, b.inst, sc.db, sc.create); err != nil {
			return fmt.Errorf("-statements: %w", err)
		}
	}
	// count resets the counter before a tool's round (start) and after
	// it adds the round's figures per New-Order of n to f.
	count := func(f *figures, database string, n float64, start bool) (string, error) {
		if sc == nil {
			return "", nil
		}
		if start {
			return "", adminExec(ctx, b.inst, sc.db, sc.reset)
		}
		calls, ms, err := sc.statementsOf(ctx, b.inst, database)
		if err != nil {
			return "", err
		}
		f.stmts, f.ms = append(f.stmts, calls/n), append(f.ms, ms/n)
		top, err := sc.topOf(ctx, b.inst, database, n)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("; %.2f statements, %.3f ms in the server per New-Order; the longest:\n  %s\n ",
			calls/n, ms/n, strings.Join(top, "\n  ")), nil
	}
	// measure runs mode m for one round with shape (nil: the closed
	// loop), at most clients at once, and adds its figures to f.
	measure := func(r int, m string, f *figures, shape load.Shape, ld *load.Tenant, what string) error {
		la := benchutil.Loadavg()
		if _, err := count(nil, "", 0, true); err != nil {
			return err
		}
		before := benchutil.CPUSeconds()
		sBefore, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		res, err := driver.Run(ctx, []driver.Tenant{{Name: "t01", Connect: b.connect(b.tb), Workload: b.byMode[m],
			Clients: b.clients, Seed: uint64(time.Now().UnixNano()), Load: ld}}, driver.Options{Duration: b.duration, Shape: shape})
		if err != nil {
			return err
		}
		cpu := benchutil.CPUSeconds() - before
		sAfter, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		no := res.Tenants[0].Txns[tpcc.NewOrder]
		n := float64(no.Committed + no.Rollbacks)
		f.driver, f.server, f.nopm = append(f.driver, cpu/n*1000), append(f.server, (sAfter-sBefore)/n*1000), append(f.nopm, n/b.duration.Minutes())
		stmts, err := count(f, b.tb.Database, n, false)
		if err != nil {
			return err
		}
		fmt.Printf("round %d tenantbench %s%s: %.0f New-Orders/min, driver %.3f, server %.3f CPU s / 1000 New-Orders%s (load average before: %s)\n",
			r, m, what, n/b.duration.Minutes(), cpu/n*1000, (sAfter-sBefore)/n*1000, stmts, la)
		return nil
	}
	atRate := map[string]*figures{}
	for _, m := range b.modes {
		atRate[m] = &figures{}
	}
	for r := 1; r <= b.rounds; r++ {
		for _, m := range b.modes {
			if err := measure(r, m, tb[m], nil, nil, ""); err != nil {
				return err
			}
		}

		la := benchutil.Loadavg()
		if _, err := count(nil, "", 0, true); err != nil {
			return err
		}
		sBefore, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		out, gcpu, err := b.runGotpc(b.gotpcArgs("tpcc", "run", "-T", strconv.Itoa(b.clients), "--time", b.duration.String()))
		if err != nil {
			return err
		}
		sAfter, err := benchutil.ServerCPUSeconds(b.inst)
		if err != nil {
			return err
		}
		m := newOrderLine.FindSubmatch(out)
		if m == nil {
			return fmt.Errorf("go-tpc output has no NEW_ORDER summary:\n%s", tail(out))
		}
		gn, _ := strconv.ParseFloat(string(m[1]), 64)
		gt.driver, gt.server, gt.nopm = append(gt.driver, gcpu/gn*1000), append(gt.server, (sAfter-sBefore)/gn*1000), append(gt.nopm, gn/b.duration.Minutes())
		stmts, err := count(&gt, b.gt.Database, gn, false)
		if err != nil {
			return err
		}
		// go-tpc's failed transactions cost the server too, and only its
		// own summary counts them.
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "[Summary]") && strings.Contains(line, "_ERR") {
				fmt.Printf("round %d go-tpc: %s\n", r, strings.TrimSpace(line))
			}
		}
		fmt.Printf("round %d go-tpc: %.0f New-Orders/min, driver %.3f, server %.3f CPU s / 1000 New-Orders%s (load average before: %s)\n",
			r, gn/b.duration.Minutes(), gcpu/gn*1000, (sAfter-sBefore)/gn*1000, stmts, la)
		if !b.matched {
			continue
		}
		// Arrivals per second that give go-tpc's New-Orders per second
		// under tpcc's default mix, which the modes run (45 % New-Order,
		// as go-tpc's default weights).
		rate := gn / b.duration.Seconds() / (float64(tpcc.DefaultOptions().Mix[tpcc.NewOrder]) / 100)
		for _, m := range b.modes {
			shape := load.Open{Arrivals: load.ArrivalsPoisson, Pool: b.clients, OnFull: load.OnFullQueue}
			ld := &load.Tenant{Profile: load.Constant(rate, b.duration), Conns: b.clients}
			if err := measure(r, m, atRate[m], shape, ld, fmt.Sprintf(" at go-tpc's %.0f tx/s", rate)); err != nil {
				return err
			}
		}
	}
	gd, gs := benchutil.Median(gt.driver), benchutil.Median(gt.server)
	fmt.Printf("\n%d clients on %d warehouses, %v per round, median of %d:\n", b.clients, b.warehouses, b.duration, b.rounds)
	fmt.Printf("| tool | New-Orders/min | driver CPU s / 1000 New-Orders | server CPU s / 1000 New-Orders | driver / go-tpc's | server / go-tpc's |\n|---|---|---|---|---|---|\n")
	for _, m := range b.modes {
		f := tb[m]
		d, s := benchutil.Median(f.driver), benchutil.Median(f.server)
		fmt.Printf("| tenantbench %s | %.0f | %.3f | %.3f | %.3f | %.3f |\n", m, benchutil.Median(f.nopm), d, s, d/gd, s/gs)
	}
	if b.matched {
		for _, m := range b.modes {
			f := atRate[m]
			d, s := benchutil.Median(f.driver), benchutil.Median(f.server)
			fmt.Printf("| tenantbench %s at go-tpc's rate | %.0f | %.3f | %.3f | %.3f | %.3f |\n", m, benchutil.Median(f.nopm), d, s, d/gd, s/gs)
		}
	}
	fmt.Printf("| go-tpc | %.0f | %.3f | %.3f | 1 | 1 |\n\n", benchutil.Median(gt.nopm), gd, gs)
	if sc != nil {
		fmt.Printf("| tool | statements per New-Order | their time in the server, ms per New-Order |\n|---|---|---|\n")
		for _, m := range b.modes {
			f := tb[m]
			fmt.Printf("| tenantbench %s | %.2f | %.3f |\n", m, benchutil.Median(f.stmts), benchutil.Median(f.ms))
		}
		fmt.Printf("| go-tpc | %.2f | %.3f |\n\n", benchutil.Median(gt.stmts), benchutil.Median(gt.ms))
	}
	return nil
}

// clone is benchmark (c): tenantbench run with N tenants of one warehouse
// in the database model, provision clone and load alternating; the time
// from the first setup to the last post-ingest (phases.csv).
func (b *bench) clone(ctx context.Context, prov provider.Provider, work string) error {
	reg := workload.Registry{}
	reg.Add(tpcc.Factory())
	var cl, ld []float64
	for r := 1; r <= b.rounds; r++ {
		for _, mode := range []string{"clone", "load"} {
			la := benchutil.Loadavg()
			s, err := b.provisionRun(ctx, prov, reg, work, mode)
			if err != nil {
				return err
			}
			if mode == "clone" {
				cl = append(cl, s)
			} else {
				ld = append(ld, s)
			}
			fmt.Printf("round %d provision %s: %d tenants ready in %.1f s (load average before: %s)\n", r, mode, b.tenants, s, la)
		}
	}
	mc, ml := benchutil.Median(cl), benchutil.Median(ld)
	fmt.Printf("\n%d tenants of 1 warehouse, database model, median of %d: clone %.1f s, load %.1f s: cloning %.2fx faster\n\n",
		b.tenants, b.rounds, mc, ml, ml/mc)
	return nil
}

func (b *bench) provisionRun(ctx context.Context, prov provider.Provider, reg workload.Registry, work, mode string) (float64, error) {
	src := fmt.Sprintf(`name: provision
sut: {engine: %s}
tenancy: {model: database, tenants: %d}
workload: {name: tpcc, scale: 1, clients: 1, duration: 1s, provision: %s, options: {interaction: %s}}
`, b.engine.Name(), b.tenants, mode, b.side.interaction)
	p, problems := plan.BuildBytes([]byte(src), plan.Builtin(reg))
	if len(problems) > 0 {
		return 0, problems[0]
	}
	outDir, err := os.MkdirTemp(work, "out-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(outDir)
	out, err := results.Create(outDir, nil)
	if err != nil {
		return 0, err
	}
	o, err := run.Experiment(ctx, p, run.Options{Out: out, Log: io.Discard, Provider: prov, Workloads: reg,
		Models: tenancy.Builtin(), WorkRoot: work})
	if err != nil {
		return 0, err
	}
	if o.Failed > 0 {
		b, _ := os.ReadFile(filepath.Join(outDir, "results.csv"))
		return 0, fmt.Errorf("the %s run failed:\n%s", mode, b)
	}
	return readyTime(filepath.Join(outDir, "runs", p.Runs[0].ID, "phases.csv"))
}

// readyTime is from the first setup's start to the last post-ingest's end.
func readyTime(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	first, last := -1.0, -1.0
	for _, r := range rows[1:] {
		start, _ := strconv.ParseFloat(r[col["start_s"]], 64)
		end, _ := strconv.ParseFloat(r[col["end_s"]], 64)
		switch r[col["phase"]] {
		case "setup":
			if first < 0 || start < first {
				first = start
			}
		case "post-ingest":
			last = max(last, end)
		}
	}
	if first < 0 || last < 0 {
		return 0, fmt.Errorf("%s: no setup or post-ingest rows", path)
	}
	return last - first, nil
}
