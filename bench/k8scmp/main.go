// Command k8scmp runs one tpcc spec on local servers and on a real
// single-node Kubernetes cluster on this machine (internal/k8stest's),
// and sets them side by side (BENCHMARKS.md): per tenant NOPM and p99,
// provisioning time per tenant, and the control plane's CPU and memory
// (kube-apiserver, etcd, controller manager, scheduler, kubelet,
// kube-proxy, containerd and its shims, found by the cluster's directory
// in their command lines) while idle, during the local run and during
// the Kubernetes run; with -access, the database model again through
// each other sut.kubernetes.access (what the path to the server costs).
// It needs what the harness needs (root,
// TENANTBENCH_K8S=1 is not asked: running this is the opt-in) and a
// tenantbench binary.
//
//	go build -o /tmp/tenantbench ./cmd/tenantbench
//	go build -o /tmp/k8scmp ./bench/k8scmp
//	flock /tmp/tenantbench-bench.lock /tmp/k8scmp -tenantbench /tmp/tenantbench -duration 30s -access nodeport,port-forward -out /tmp/k8scmp-out
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/k8stest"
)

func main() {
	bin := flag.String("tenantbench", "", "path of a tenantbench binary")
	duration := flag.Duration("duration", 30*time.Second, "the measured workload")
	clients := flag.Int("clients", 4, "clients per tenant")
	out := flag.String("out", "", "where the two results directories go")
	idle := flag.Duration("idle", 20*time.Second, "how long the idle cluster is sampled")
	access := flag.String("access", "", "comma-separated other values of sut.kubernetes.access to run the database model through (nodeport, port-forward)")
	flag.Parse()
	if *bin == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "k8scmp: -tenantbench and -out are needed")
		os.Exit(2)
	}
	var accesses []string
	if *access != "" {
		accesses = strings.Split(*access, ",")
	}
	if err := run(*bin, *out, *duration, *clients, *idle, accesses); err != nil {
		fmt.Fprintln(os.Stderr, "k8scmp:", err)
		os.Exit(1)
	}
}

// spec is the experiment: provider is "" for local, else the
// sut.kubernetes lines.
func spec(name, provider, models string, duration time.Duration, clients int) string {
	return `name: ` + name + `
seed: 1
sut:
` + provider + `  settings: {shared_buffers: 256MB, work_mem: 16MB, wal_level: minimal, max_wal_senders: "0",
             synchronous_commit: "off", autovacuum: "off", max_wal_size: 4GB, checkpoint_timeout: 30min}
  resources: {cpus: 2, memory: 4GiB, divide: true}
tenancy: {model: [` + models + `], tenants: 2}
workload:
  name: tpcc
  scale: 1
  clients: ` + strconv.Itoa(clients) + `
  warmup: 5s
  duration: ` + duration.String() + `
  provision: load # each tenant loaded, on both sides: the kubernetes provider cannot clone a server
  options: {check: basic, interaction: statements}
`
}

func run(bin, out string, duration time.Duration, clients int, idle time.Duration, accesses []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// One cluster on the machine at a time, as the harness's tests take
	// turns (k8stest.Run): the same lock.
	lock, err := os.OpenFile("/tmp/tenantbench-k8stest.lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	var (
		mu sync.Mutex
		cl *k8stest.Cluster
	)
	down := func() {
		mu.Lock()
		c := cl
		cl = nil
		mu.Unlock()
		if c != nil {
			t0 := time.Now()
			if err := c.Teardown(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			fmt.Fprintf(os.Stderr, "k8scmp: cluster torn down in %s\n", time.Since(t0).Round(100*time.Millisecond))
		}
	}
	defer down()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() { <-sigs; down(); os.Exit(1) }()
	t0 := time.Now()
	c, err := k8stest.Start(context.Background(), func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) },
		func(c *k8stest.Cluster) { mu.Lock(); cl = c; mu.Unlock() })
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "k8scmp: cluster up in %s\n", time.Since(t0).Round(100*time.Millisecond))
	const kubeEnv = "TB_BENCH_KUBECONFIG"
	k8sLines := func(access string) string {
		return `  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeEnv + `, namespace: default, image: "` + c.PGImage + `", access: ` + access + `}
`
	}
	const all = "schema, database, instance"
	specs := map[string]string{"local": spec("tpcc-local", "", all, duration, clients), "k8s": spec("tpcc-k8s", k8sLines("pod-ip"), all, duration, clients)}
	sides := []string{"local", "k8s"}
	// The other ways to reach a pod, the database model only: what the
	// path between driver and server costs.
	for _, a := range accesses {
		side := "k8s-" + a
		specs[side] = spec("tpcc-"+side, k8sLines(a), "database", duration, clients)
		sides = append(sides, side)
	}
	env := append(os.Environ(), kubeEnv+"="+c.Kubeconfig)

	usage := map[string]*sampled{}
	fmt.Fprintf(os.Stderr, "k8scmp: idle cluster for %s\n", idle)
	usage["idle"] = sample(c.Dir, func() error { time.Sleep(idle); return nil })
	driver := map[string]float64{}
	for _, side := range sides {
		path := filepath.Join(out, side+".yaml")
		if err := os.WriteFile(path, []byte(specs[side]), 0o644); err != nil {
			return err
		}
		dir := filepath.Join(out, side)
		fmt.Fprintf(os.Stderr, "k8scmp: %s run, load %s\n", side, benchutil.Loadavg())
		var ps *os.ProcessState
		usage[side] = sample(c.Dir, func() error {
			cmd := exec.Command(bin, "run", path, "--out", dir)
			cmd.Env = env
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			err := cmd.Run()
			ps = cmd.ProcessState
			return err
		})
		if usage[side].err != nil {
			return fmt.Errorf("%s run: %w", side, usage[side].err)
		}
		// tenantbench's own CPU and its reaped children's: with local the
		// servers too, with k8s the driver alone.
		driver[side] = (ps.UserTime() + ps.SystemTime()).Seconds()
		fmt.Fprintf(os.Stderr, "k8scmp: %s done, load %s\n", side, benchutil.Loadavg())
	}
	return report(out, usage, driver, sides[2:])
}

// sampled is the control plane's usage over fn: CPU seconds per
// component, its resident memory's mean and peak (sampled every second),
// and the wall time.
type sampled struct {
	cpu       map[string]float64
	rssMean   map[string]float64
	rssPeak   map[string]float64
	wall      time.Duration
	err       error
	processes int
}

// sample runs fn while reading the cluster's processes every second.
func sample(dir string, fn func() error) *sampled {
	s := &sampled{cpu: map[string]float64{}, rssMean: map[string]float64{}, rssPeak: map[string]float64{}}
	first := ticks(dir)
	last := maps.Clone(first)
	done := make(chan error, 1)
	t0 := time.Now()
	go func() { done <- fn() }()
	n := 0
	rssSum := map[string]float64{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			s.err = err
			s.wall = time.Since(t0)
			for pid, p := range last {
				s.cpu[p.name] += float64(p.ticks-first[pid].ticks) / 100 // USER_HZ
			}
			for name, sum := range rssSum {
				s.rssMean[name] = sum / float64(max(n, 1))
			}
			s.processes = len(last)
			return s
		case <-tick.C:
			now := ticks(dir)
			for pid, p := range now {
				last[pid] = p // a process gone keeps its last figures
			}
			per := map[string]float64{}
			for _, p := range now {
				per[p.name] += p.rss
			}
			for name, v := range per {
				rssSum[name] += v
				s.rssPeak[name] = max(s.rssPeak[name], v)
			}
			n++
		}
	}
}

// proc is one process of the cluster: its component, CPU ticks, RSS (MiB).
type proc struct {
	name  string
	ticks int64
	rss   float64
}

// ticks reads every process whose command line names dir.
func ticks(dir string) map[int]proc {
	out := map[int]proc{}
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		argv0, _, _ := strings.Cut(string(b), "\x00")
		name := filepath.Base(argv0)
		if strings.HasPrefix(name, "containerd-shim") {
			name = "containerd-shim"
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		if len(f) < 22 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		rss, _ := strconv.ParseFloat(f[21], 64)
		out[pid] = proc{name: name, ticks: ut + st, rss: rss * float64(os.Getpagesize()) / (1 << 20)}
	}
	return out
}

func readCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// tenantRow is one tenant of one run: its NOPM, p99 and provisioning.
type tenantRow struct{ nopm, p99, provision string }

// tenantsOf reads a results directory: model -> tenant -> figures.
func tenantsOf(dir string) (map[string]map[string]tenantRow, map[string]string, error) {
	rows, err := readCSV(filepath.Join(dir, "results.csv"))
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string]tenantRow{}
	status := map[string]string{}
	for _, r := range rows {
		status[r["model"]] = r["status"]
		out[r["model"]] = map[string]tenantRow{}
		ts, err := readCSV(filepath.Join(dir, "runs", r["run_id"], "tenants.csv"))
		if err != nil {
			return nil, nil, err
		}
		ph, err := readCSV(filepath.Join(dir, "runs", r["run_id"], "phases.csv"))
		if err != nil {
			return nil, nil, err
		}
		prov := map[string]string{}
		for _, p := range ph {
			if p["phase"] == "provision" {
				prov[p["tenant"]] = p["duration_s"]
			}
		}
		for _, t := range ts {
			if t["txn"] == "all" {
				out[r["model"]][t["tenant"]] = tenantRow{t["nopm"], t["latency_p99_ms"], prov[t["tenant"]]}
			}
		}
	}
	return out, status, nil
}

func report(out string, usage map[string]*sampled, driver map[string]float64, others []string) error {
	local, lst, err := tenantsOf(filepath.Join(out, "local"))
	if err != nil {
		return err
	}
	k8s, kst, err := tenantsOf(filepath.Join(out, "k8s"))
	if err != nil {
		return err
	}
	fmt.Println("| model | tenant | NOPM local | NOPM k8s | p99 ms local | p99 ms k8s | provision s local | provision s k8s |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, m := range []string{"schema", "database", "instance"} {
		var ts []string
		for t := range local[m] {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		for _, t := range ts {
			l, k := local[m][t], k8s[m][t]
			fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", m, t, l.nopm, k.nopm, l.p99, k.p99, l.provision, k.provision)
		}
		if lst[m] != "ok" || kst[m] != "ok" {
			fmt.Printf("| %s | status | %s | %s | | | | |\n", m, lst[m], kst[m])
		}
	}
	fmt.Println()
	fmt.Println("| component | idle: cores | idle: RSS MiB mean / peak | local run: cores | local run: RSS mean / peak | k8s run: cores | k8s run: RSS mean / peak |")
	fmt.Println("|---|---|---|---|---|---|---|")
	names := map[string]bool{}
	for _, s := range usage {
		for n := range s.cpu {
			names[n] = true
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	total := map[string][3]float64{}
	for _, n := range append(sorted, "all") {
		fmt.Printf("| %s |", n)
		for _, side := range []string{"idle", "local", "k8s"} {
			s := usage[side]
			if n == "all" {
				t := total[side]
				fmt.Printf(" %.3f | %.0f / %.0f |", t[0]/s.wall.Seconds(), t[1], t[2])
				continue
			}
			t := total[side]
			t[0] += s.cpu[n]
			t[1] += s.rssMean[n]
			t[2] += s.rssPeak[n] // a sum of peaks: an upper bound
			total[side] = t
			fmt.Printf(" %.3f | %.0f / %.0f |", s.cpu[n]/s.wall.Seconds(), s.rssMean[n], s.rssPeak[n])
		}
		fmt.Println()
	}
	if len(others) > 0 {
		fmt.Println()
		fmt.Println("| database model, access | tenant | NOPM | p99 ms |")
		fmt.Println("|---|---|---|---|")
		for _, side := range append([]string{"k8s"}, others...) {
			figs, st, err := tenantsOf(filepath.Join(out, side))
			if err != nil {
				return err
			}
			name := strings.TrimPrefix(side, "k8s-")
			if side == "k8s" {
				name = "pod-ip"
			}
			for _, t := range []string{"t01", "t02"} {
				f := figs["database"][t]
				fmt.Printf("| %s (%s) | %s | %s | %s |\n", name, st["database"], t, f.nopm, f.p99)
			}
		}
	}
	fmt.Printf("\nwall: idle %.0f s, local %.0f s, k8s %.0f s; tenantbench's CPU: local %.1f s (the servers' included: its children), k8s %.1f s (the driver alone: %.2f cores)\n",
		usage["idle"].wall.Seconds(), usage["local"].wall.Seconds(), usage["k8s"].wall.Seconds(), driver["local"], driver["k8s"],
		driver["k8s"]/usage["k8s"].wall.Seconds())
	return nil
}
