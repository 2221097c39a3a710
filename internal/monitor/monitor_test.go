package monitor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// heavy is a query that keeps one backend on CPU for about half a second.
const heavy = "SELECT count(*) FROM generate_series(1, 5e6)"

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal("connect failed") // the DSN, which holds a password, is not shown
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// startMonitor starts a monitor that is stopped when the test ends, if the
// test did not stop it.
func startMonitor(t *testing.T, cfg monitor.Config) (stop func() *monitor.Samples) {
	t.Helper()
	m := monitor.New(cfg)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var samples *monitor.Samples
	stop = func() *monitor.Samples {
		once.Do(func() {
			var err error
			samples, err = m.Stop()
			if err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
		return samples
	}
	t.Cleanup(func() { stop() })
	return stop
}

func last(is *monitor.InstanceSeries) monitor.ResourceSample { return is.Samples[len(is.Samples)-1] }

// TestMonitor loads one instance holding two tenants (database model):
// t01 runs CPU-heavy queries on two connections, t02 sits idle in a
// transaction, the superuser fills shared_buffers. Then every figure the
// monitor records must show it.
func TestMonitor(t *testing.T) {
	inst := pgtest.Start(t, pgtest.Settings(map[string]string{"shared_buffers": "64MB"}))
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01", "t02"})
	if err != nil {
		t.Fatal(err)
	}
	admin := pgtest.Connect(t, inst, "postgres")
	t0 := time.Now()
	stop := startMonitor(t, monitor.Config{Instances: []*provider.Instance{inst}, Placements: ps,
		Interval: 200 * time.Millisecond, WaitInterval: 20 * time.Millisecond, PSSInterval: time.Second, Origin: t0})

	idle := connect(t, ps[1].DSN("tcp"))
	exec(t, idle, "BEGIN")
	exec(t, idle, "SELECT 1")

	loadStart := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		c := connect(t, ps[0].DSN("tcp"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				if _, err := c.Exec(ctx, heavy); err != nil {
					t.Error(err)
				}
			}
			// A backend flushes its statistics when it ends (while it
			// lives, at most once a second): "stop" sees them all.
			c.Close(ctx)
		}()
	}
	wg.Wait()
	loadEnd := time.Now()
	// About 100 MB through 64 MB of shared_buffers: a plain INSERT (not
	// COPY or CREATE TABLE AS, which use a small ring of buffers) touches
	// them all.
	loader := connect(t, inst.AdminDSN("postgres"))
	exec(t, loader, "CREATE TABLE big (id int, pad text)")
	exec(t, loader, "INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 400000) g")
	exec(t, loader, "CHECKPOINT")
	loader.Close(ctx)
	exec(t, admin, "SELECT 1")
	// A round with the idle transaction and no load, and a PSS read (every
	// second here) after the load: one read during it may miss the buffers
	// touched last, which made this test fail now and then.
	time.Sleep(1200 * time.Millisecond)
	s := stop()
	t.Logf("%s; load %.1f s; whole run %.1f s", s, loadEnd.Sub(loadStart).Seconds(), time.Since(t0).Seconds())
	if len(s.Instances) != 1 || len(s.Host) < 3 {
		t.Fatalf("samples: %s", s)
	}
	is := s.Instances[0]
	_, cgMode := provider.CgroupOf(inst)
	if is.CPUSource != "cgroup "+cgMode && cgMode != "none" {
		t.Errorf("CPU source %s in a %s cgroup", is.CPUSource, cgMode)
	}
	end := last(is)

	// CPU grows under load: four heavy queries.
	w := s.Window(loadStart, loadEnd)
	t.Logf("load window: %+v, tenants %v, tenantbench %.2f s, host busy %.0f %%", w.Total, w.TenantCPU, w.SelfCPU, w.HostBusyPct)
	if w.Total.CPU < 1.5 {
		t.Errorf("instance used %.2f CPU s during four heavy queries", w.Total.CPU)
	}
	// The tenant running them gets most of it; the rest is the
	// background's (the checkpointer and WAL writer took 11 % in a full
	// suite on 2 busy cores, so 90 % was too tight).
	t01, t02 := w.TenantCPU["t01"], w.TenantCPU["t02"]
	if t01 < 0.8*w.Total.CPU || t02 > 0.1*t01 {
		t.Errorf("tenant CPU t01 %.2f s, t02 %.2f s of the instance's %.2f s", t01, t02, w.Total.CPU)
	}
	// The driver's (this test's) CPU is apart and small.
	if w.SelfCPU > w.Total.CPU {
		t.Errorf("tenantbench's CPU %.2f s exceeds the instance's %.2f s", w.SelfCPU, w.Total.CPU)
	}

	// Peak memory covers the shared_buffers touched.
	whole := s.Window(t0, time.Now())
	if cgMode != "none" && whole.Total.MemPeakMB < 0.9*64 {
		t.Errorf("peak memory %.1f MiB < 90 %% of 64 MiB shared_buffers", whole.Total.MemPeakMB)
	}
	// t02's idle session has private memory of its own (its catalog
	// caches at least), measured apart from the background's.
	if a, ok := whole.TenantAnonMB["t02"]; !ok || a <= 0 || a > whole.Total.MemPeakMB && cgMode != "none" {
		t.Errorf("t02's private memory %v MiB (measured %v), want above 0 and within the peak %.1f MiB", a, ok, whole.Total.MemPeakMB)
	}
	if _, ok := whole.TenantAnonMB["(background)"]; ok {
		t.Error("the background processes' memory counted as a tenant's")
	}
	t.Logf("tenants' private memory (MiB): %v", whole.TenantAnonMB)
	var maxPSS, maxShmem int64
	for _, x := range is.Samples {
		maxPSS, maxShmem = max(maxPSS, x.PSS), max(maxShmem, x.MemShmem)
	}
	if maxPSS < 64<<20 {
		t.Errorf("PSS sum at most %d MiB", maxPSS>>20)
	}
	if cgMode != "none" && maxShmem < 60<<20 {
		t.Errorf("cgroup shmem at most %d MiB", maxShmem>>20)
	}
	// Oracle's (2014) footprint parts: the shared memory but the 64 MB buffer
	// cache (lock tables, WAL buffers, buffer descriptors: a few MB), and
	// the background processes' private memory.
	if w := whole.Total; w.SharedMB < 1 || w.SharedMB > 64 || w.BackgroundAnonMB <= 0 || w.BackgroundAnonMB > 256 {
		t.Errorf("shared memory but the buffer cache %.1f MiB, background processes' anonymous memory %.1f MiB",
			w.SharedMB, w.BackgroundAnonMB)
	}

	// Processes: the idle t02, the admin connection; the background.
	if end.ClientBackends != 2 || end.Background < 5 || end.Procs != end.ClientBackends+end.Background+1 {
		t.Errorf("last round: %d procs, %d client backends, %d background", end.Procs, end.ClientBackends, end.Background)
	}
	maxClients := 0
	for _, x := range is.Samples {
		maxClients = max(maxClients, x.ClientBackends)
	}
	if maxClients < 4 {
		t.Errorf("at most %d client backends, want 4 under load", maxClients)
	}
	if end.CtxVoluntary <= 0 || end.CtxInvoluntary < 0 {
		t.Errorf("context switches %d / %d", end.CtxVoluntary, end.CtxInvoluntary)
	}
	t.Logf("last round: %+v", end)
	// 100 MB of table and as much WAL written: through the cgroup (v2) or
	// /proc (v1, whose blkio misses buffered writes).
	if end.IOWriteBytes < 100<<20 {
		t.Errorf("%d bytes written (source %s)", end.IOWriteBytes, is.IOSource)
	}

	// Waits: the idle transaction waits for its client; t01 ran on CPU.
	var clientRead, t01CPU int64
	for _, seg := range is.Waits {
		for _, c := range seg.Counts {
			if c.Tenant == "t02" && c.State == "idle in transaction" && c.Event == "Client:ClientRead" {
				clientRead += c.Samples
			}
			if c.Tenant == "t01" && c.Event == "CPU" {
				t01CPU += c.Samples
			}
		}
	}
	if clientRead < 10 || t01CPU < 10 {
		t.Errorf("waits: t02 idle in transaction on ClientRead %d times, t01 on CPU %d times: %+v", clientRead, t01CPU, is.Waits)
	}

	// DBMS deltas.
	if len(is.DBMS) != 1 {
		t.Fatalf("DBMS deltas: %+v", is.DBMS)
	}
	d := is.DBMS[0].Views
	if d["pg_stat_database"]["t01"]["xact_commit"] < 4 || d["pg_stat_wal"]["all"]["wal_bytes"] < 50e6 ||
		d["pg_stat_bgwriter"]["all"]["checkpoints_req"] < 1 {
		t.Errorf("deltas: t01 %v, wal %v, bgwriter %v", d["pg_stat_database"]["t01"], d["pg_stat_wal"], d["pg_stat_bgwriter"])
	}

	dir := t.TempDir()
	if err := s.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"resources.csv":  "instance,t_s,cpu_user_s,",
		"tenant_cpu.csv": "instance,tenant,t_s,",
		"host.csv":       "t_s,busy_pct,",
		"waits.csv":      "from,to,instance,tenant,state,event,samples,sessions\nstart,stop,pgtest,",
		"dbms.json":      `"instances"`,
		"monitor.json":   `"interval_s": 0.2`,
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q: %v\n%.300s", name, want, err, b)
		}
	}
}

// TestProcessTree monitors an instance as if it had no cgroup, beside a
// monitor that uses its cgroup: the process tree's CPU must agree, and
// IO and context switches come from /proc.
func TestProcessTree(t *testing.T) {
	inst := pgtest.Start(t)
	if _, mode := provider.CgroupOf(inst); mode == "none" {
		t.Log("no cgroups here: the comparison is of the process tree with itself")
	}
	rs, _ := provider.As[provider.ResourceSampler](inst)
	noCgroup := *inst
	noCgroup.Control = treeOnly{rs.ProcessRoot()}
	stopTree := startMonitor(t, monitor.Config{Instances: []*provider.Instance{&noCgroup}, Interval: 100 * time.Millisecond, WaitInterval: -1})
	stopCg := startMonitor(t, monitor.Config{Instances: []*provider.Instance{inst}, Interval: 100 * time.Millisecond, WaitInterval: -1})
	admin := pgtest.Connect(t, inst, "postgres")
	// Backends that exit during the window: their CPU reaches the tree's
	// figure through the postmaster's reaped children.
	for range 2 {
		c := pgtest.Connect(t, inst, "postgres")
		exec(t, c, heavy)
		c.Close(context.Background())
	}
	exec(t, admin, "CREATE TABLE w AS SELECT g FROM generate_series(1, 200000) g")
	exec(t, admin, "CHECKPOINT")
	time.Sleep(200 * time.Millisecond) // the reaping is asynchronous
	tree, cg := stopTree(), stopCg()
	a, b := last(tree.Instances[0]), last(cg.Instances[0])
	if src := tree.Instances[0].CPUSource + tree.Instances[0].MemorySource + tree.Instances[0].IOSource; src != "procprocproc" {
		t.Errorf("sources %s", src)
	}
	ta, tb := a.CPUUser+a.CPUSys, b.CPUUser+b.CPUSys
	t.Logf("process tree: %.2f CPU s, %d bytes written, %d ctx switches; cgroup: %.2f CPU s, %d bytes written",
		ta, a.IOWriteBytes, a.CtxVoluntary, tb, b.IOWriteBytes)
	if ta < 0.8 || ta < 0.9*tb || ta > 1.1*tb+0.1 {
		t.Errorf("process tree %.2f CPU s, cgroup %.2f CPU s", ta, tb)
	}
	if a.IOWriteBytes < 1<<20 || a.IOReadOps != -1 || a.MemCurrent != -1 || a.CtxVoluntary <= 0 {
		t.Errorf("process tree sample %+v", a)
	}
	// The admin connection and the other monitor's.
	if a.ClientBackends != 2 || a.Background < 5 {
		t.Errorf("%d client backends, %d background", a.ClientBackends, a.Background)
	}
	w := tree.Window(tree.Origin, time.Now())
	if w.Total.MemPeakMB <= 0 {
		t.Errorf("no memory peak from PSS or RSS: %+v", w.Total)
	}
}

// TestInstanceModel monitors two instances from before the tenants are
// placed (as during every phase of a run), places one tenant on each, and
// loads only t02's: the CPU must be t02's and its instance's, and the
// marks must cut the waits and DBMS deltas into segments.
func TestInstanceModel(t *testing.T) {
	insts := []*provider.Instance{pgtest.Start(t, pgtest.Name("t01")), pgtest.Start(t, pgtest.Name("t02"))}
	ctx := context.Background()
	m := monitor.New(monitor.Config{Instances: insts, Interval: 100 * time.Millisecond, WaitInterval: 50 * time.Millisecond})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			m.Stop()
		}
	})
	ps, err := tenancy.Instance{}.Place(ctx, insts, []string{"t01", "t02"})
	if err != nil {
		t.Fatal(err)
	}
	m.SetPlacements(ps)
	idle := connect(t, ps[0].DSN("tcp"))
	exec(t, idle, "SELECT 1")
	busy := connect(t, ps[1].DSN("tcp"))
	if err := m.Mark(ctx, "workload"); err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	for range 2 {
		exec(t, busy, heavy)
	}
	to := time.Now()
	busy.Close(ctx)                    // its statistics are flushed when it ends
	time.Sleep(200 * time.Millisecond) // which it does after the client left
	if err := m.Mark(ctx, "after"); err != nil {
		t.Fatal(err)
	}
	s, err := m.Stop()
	stopped = true
	if err != nil {
		t.Fatal(err)
	}
	w := s.Window(from, to)
	t.Logf("window: %+v, tenants %v", w.Instances, w.TenantCPU)
	if len(w.Instances) != 2 || w.Instances[1].CPU < 0.5 || w.Instances[0].CPU > 0.2*w.Instances[1].CPU {
		t.Errorf("instance CPU: %+v", w.Instances)
	}
	if w.TenantCPU["t02"] < 0.8*w.Instances[1].CPU || w.TenantCPU["t01"] > 0.1 {
		t.Errorf("tenant CPU %v", w.TenantCPU)
	}
	for _, is := range s.Instances {
		if len(is.Tenants) != 4 || is.Tenants[3] != is.Name {
			t.Errorf("instance %s has tenants %v", is.Name, is.Tenants)
		}
		if len(is.Waits) != 3 || len(is.DBMS) != 3 || is.DBMS[1].From != "workload" || is.DBMS[1].To != "after" {
			t.Fatalf("instance %s: %d wait segments, DBMS deltas %+v", is.Name, len(is.Waits), is.DBMS)
		}
	}
	// t02's two queries committed in its database between the marks.
	if n := s.Instances[1].DBMS[1].Views["pg_stat_database"]["t02"]["xact_commit"]; n < 2 {
		t.Errorf("t02 committed %v between the marks", n)
	}
	var cpu int64
	for _, c := range s.Instances[1].Waits[1].Counts {
		if c.Tenant == "t02" && c.Event == "CPU" {
			cpu += c.Samples
		}
	}
	if cpu < 5 {
		t.Errorf("t02 seen on CPU %d times during its load: %+v", cpu, s.Instances[1].Waits[1])
	}
}

// TestReconnect ends the monitor's backend: the monitor opens another and
// keeps sampling, and Stop reports the break but returns whole samples.
func TestReconnect(t *testing.T) {
	inst := pgtest.Start(t)
	noSessions(t, inst)
	m := monitor.New(monitor.Config{Instances: []*provider.Instance{inst}, Interval: 100 * time.Millisecond})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	admin := pgtest.Connect(t, inst, "postgres")
	var n int
	if err := admin.QueryRow(context.Background(),
		"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'tenantbench monitor'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminated %d monitor backends: %v", n, err)
	}
	// Stop at once: its last round and snapshot meet the broken
	// connection (the rounds between would reconnect first).
	stopStart := time.Now()
	s, err := m.Stop()
	t.Logf("Stop took %v", time.Since(stopStart))
	if err == nil || len(s.Errors) == 0 {
		t.Errorf("the break went unreported: %v", s.Errors)
	}
	t.Logf("reported: %v", s.Errors)
	is := s.Instances[0]
	if len(is.DBMS) != 1 || is.DBMS[0].Views["pg_stat_database"]["postgres"] == nil {
		t.Errorf("no DBMS delta after reconnecting: %+v", is.DBMS)
	}
	// The admin connection; the monitor's new backend, when the last round
	// met the break, was opened after it, for the "stop" snapshot.
	if end := last(is); end.ClientBackends != 1 || end.Background < 5 {
		t.Errorf("last round after reconnecting: %+v", end)
	}
}

// noSessions waits, for at most 10 s, until the server's processes are
// its background ones alone: the backend of a session that set the server
// up may still be exiting (on a loaded machine for tens of ms), and a round
// counts it as a client backend.
func noSessions(t *testing.T, inst *provider.Instance) {
	t.Helper()
	rs, ok := provider.As[provider.ResourceSampler](inst)
	if !ok {
		t.Fatal("the test server has no process root")
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		sessions, err := monitor.Sessions(rs.ProcessRoot())
		if err != nil {
			t.Fatal(err)
		}
		if len(sessions) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("server processes %v still sessions after 10 s", sessions)
		}
	}
}

// treeOnly samples a server through its process tree alone, as if it had
// no cgroup.
type treeOnly struct{ root int }

func (t treeOnly) ProcessRoot() int          { return t.root }
func (treeOnly) Cgroup() (path, mode string) { return "", "none" }
