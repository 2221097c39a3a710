// Command tpchload measures tenantbench's TPC-H generation and load against
// go-tpc's (`go-tpc tpch prepare`) on the same PostgreSQL server,
// alternating the two, each into a fresh database (BENCHMARKS.md).
// go-tpc is not part of tenantbench: build it elsewhere and give its path.
//
//	go run ./bench/tpchload -gotpc /path/to/go-tpc -sf 1 -rounds 3
//
// What each side includes:
//   - tenantbench: create tables, binary COPY of the eight tables
//     (ingest), then post-ingest: 8 primary keys, 8 foreign keys, 8 indexes,
//     ANALYZE. Reported as ingest alone and ingest + post-ingest.
//   - go-tpc: create tables with their primary keys, multi-row INSERTs
//     (the keys maintained during the load), then with -analyze (default)
//     ANALYZE of each table. No foreign keys, no secondary indexes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpch"
)

func main() {
	gotpc := flag.String("gotpc", "", "path of a go-tpc binary (required)")
	sf := flag.Int("sf", 1, "scale factor (go-tpc takes whole numbers)")
	rounds := flag.Int("rounds", 3, "alternations")
	threads := flag.Int("threads", 4, "go-tpc -T, and tenantbench's load_connections")
	analyze := flag.Bool("analyze", true, "go-tpc --analyze (tenantbench's post-ingest always analyzes)")
	flag.Parse()
	if *gotpc == "" {
		fmt.Fprintln(os.Stderr, "tpchload: -gotpc PATH is required")
		os.Exit(2)
	}
	if err := run(*gotpc, *sf, *rounds, *threads, *analyze); err != nil {
		fmt.Fprintln(os.Stderr, "tpchload:", err)
		os.Exit(1)
	}
}

func run(gotpc string, sf, rounds, threads int, analyze bool) error {
	// Ctrl-C or a kill ends the measurement with an error, so that the
	// deferred clean-up below (the server, the work directory, a peer's
	// password file) runs: without it the process died with them left.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	work, err := os.MkdirTemp("", "tpchload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.Chmod(work, 0o755); err != nil {
		return err
	}
	prov, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	// The settings of the tpch package's load-speed test: a WAL large
	// enough that neither tool waits for checkpoints.
	inst, err := prov.Start(ctx, provider.InstanceSpec{Name: "bench", WorkDir: work, MaxConnections: 40,
		Settings: map[string]string{"max_wal_size": "4GB", "checkpoint_timeout": "30min"}})
	if err != nil {
		return err
	}
	defer prov.Stop(context.Background(), inst)
	fmt.Printf("PostgreSQL %s, SF %d, %d rounds, %d connections/threads, %d CPUs, load %s\n",
		inst.Version, sf, rounds, threads, runtime.NumCPU(), benchutil.Loadavg())

	opts := tpch.DefaultOptions()
	opts.LoadConnections = threads
	w, err := tpch.New(float64(sf), opts)
	if err != nil {
		return err
	}
	rows := float64(w.Rows())
	t0 := time.Now()
	tpch.WarmTextPool() // once per process, outside the rounds' timing
	fmt.Printf("text pool (once per process, not in the rounds): %.1f s\n", time.Since(t0).Seconds())

	var tbIngest, tbTotal, gt []float64
	for r := 1; r <= rounds; r++ {
		name := fmt.Sprintf("r%dtb", r)
		ing, total, err := tenantbench(ctx, inst, name, float64(sf), opts)
		if err != nil {
			return err
		}
		tbIngest, tbTotal = append(tbIngest, ing), append(tbTotal, total)
		fmt.Printf("round %d tenantbench: ingest %.1f s (%.0f rows/s), with post-ingest %.1f s (%.0f rows/s), load %s\n",
			r, ing, rows/ing, total, rows/total, benchutil.Loadavg())
		if err := drop(ctx, inst, name); err != nil {
			return err
		}

		name = fmt.Sprintf("r%dgt", r)
		d, err := goTPC(ctx, inst, gotpc, name, sf, threads, analyze)
		if err != nil {
			return err
		}
		gt = append(gt, d)
		fmt.Printf("round %d go-tpc: %.1f s (%.0f rows/s), load %s\n", r, d, rows/d, benchutil.Loadavg())
		if err := drop(ctx, inst, name); err != nil {
			return err
		}
	}
	mi, mt, mg := benchutil.Median(tbIngest), benchutil.Median(tbTotal), benchutil.Median(gt)
	fmt.Printf("medians over %d rounds, %.0f rows:\n", rounds, rows)
	fmt.Printf("  tenantbench ingest:               %6.1f s  %9.0f rows/s\n", mi, rows/mi)
	fmt.Printf("  tenantbench ingest + post-ingest: %6.1f s  %9.0f rows/s\n", mt, rows/mt)
	fmt.Printf("  go-tpc prepare:                   %6.1f s  %9.0f rows/s\n", mg, rows/mg)
	fmt.Printf("  ratio go-tpc / tenantbench: %.2fx (ingest + post-ingest), %.2fx (ingest)\n", mg/mt, mg/mi)
	return nil
}

// tenantbench loads SF sf into a fresh database as its own role, as a
// run's tenant does, and returns the ingest and setup+ingest+post-ingest
// seconds.
func tenantbench(ctx context.Context, inst *provider.Instance, name string, sf float64, opts tpch.Options) (ingest, total float64, err error) {
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{name})
	if err != nil {
		return 0, 0, err
	}
	pgConnect := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, ps[0].DSN("tcp")) }
	connect := workload.PGConnect(pgConnect)
	w, err := tpch.New(sf, opts)
	if err != nil {
		return 0, 0, err
	}
	conn, err := pgConnect(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.Background())
	s, i, p, err := benchutil.Load(ctx, w, conn, connect)
	if err != nil {
		return 0, 0, err
	}
	return i.Seconds(), (s + i + p).Seconds(), nil
}

// goTPC runs `go-tpc tpch prepare` into a fresh database of its own as the
// superuser over TCP and returns its wall time.
func goTPC(ctx context.Context, inst *provider.Instance, bin, db string, sf, threads int, analyze bool) (float64, error) {
	if err := exec1(ctx, inst, "create database "+db); err != nil {
		return 0, err
	}
	args := []string{"tpch", "prepare", "-d", "postgres", "-H", inst.Host, "-P", strconv.Itoa(inst.Port),
		"-U", inst.User, "-D", db, "--sf", strconv.Itoa(sf), "-T", strconv.Itoa(threads),
		"--conn-params", "sslmode=disable"}
	if analyze {
		args = append(args, "--analyze")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	remove, err := benchutil.PassFile(cmd, inst.Password)
	if err != nil {
		return 0, err
	}
	defer remove()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start).Seconds()
	if err != nil {
		return 0, fmt.Errorf("go-tpc: %w\n%s", err, tail(out.String()))
	}
	// go-tpc may log errors and still exit 0: count what it loaded.
	var n int64
	if err := query(ctx, inst, db, "select count(*) from lineitem", &n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("go-tpc loaded no lineitem rows:\n%s", tail(out.String()))
	}
	return d, nil
}

func drop(ctx context.Context, inst *provider.Instance, db string) error {
	return exec1(ctx, inst, "drop database if exists "+db+" with (force)")
}

func exec1(ctx context.Context, inst *provider.Instance, sql string) error {
	conn, err := pgx.Connect(ctx, inst.DSN("tcp", "postgres", inst.User, inst.Password))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

func query(ctx context.Context, inst *provider.Instance, db, sql string, dst any) error {
	conn, err := pgx.Connect(ctx, inst.DSN("tcp", db, inst.User, inst.Password))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, sql).Scan(dst)
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
