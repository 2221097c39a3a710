package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// testDir is a work directory the server user can reach (t.TempDir is
// 0700 and root's when tests run as root), removed after the test.
func testDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tenantbench-local-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

func newProvider(t *testing.T, opts Options) *Provider {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start starts an instance and stops it when the test ends.
func start(t *testing.T, p *Provider, s provider.InstanceSpec) *provider.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst, err := p.Start(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background(), inst); err != nil {
			t.Error(err)
		}
	})
	return inst
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func show(t *testing.T, conn *pgx.Conn, name string) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// serverProcs is the postmaster and every process below it.
func serverProcs(pid int) []int {
	out := append([]int{pid}, descendants(pid)...)
	sort.Ints(out)
	return out
}

// processesOn lists live processes whose command line mentions dir: what
// would be left of a server on it.
func processesOn(t *testing.T, dir string) []int {
	t.Helper()
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range procs {
		args, _ := p.CmdLine()
		if strings.Contains(strings.Join(args, " "), dir) && alive(p.PID) {
			out = append(out, p.PID)
		}
	}
	return out
}

// checkGone fails unless nothing of inst remains: no process, no cgroup
// directory, no socket.
func checkGone(t *testing.T, inst *provider.Instance, group *cgroup.Group) {
	t.Helper()
	if alive(Of(inst).Pid) {
		t.Errorf("postmaster %d still runs", Of(inst).Pid)
	}
	if left := processesOn(t, Of(inst).DataDir); len(left) > 0 {
		t.Errorf("processes %v still run on %s", left, Of(inst).DataDir)
	}
	if group != nil {
		for _, d := range group.Dirs() {
			if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("cgroup directory %s still exists (%v)", d, err)
			}
		}
	}
	sock := filepath.Join(inst.SocketDir, fmt.Sprintf(".s.PGSQL.%d", inst.Port))
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s still exists (%v)", sock, err)
	}
}

func TestStartStop(t *testing.T) {
	p := newProvider(t, Options{})
	// The value needs both escapes of the configuration file: a quote
	// and a backslash.
	note := `it's a \ test`
	s := provider.InstanceSpec{
		Name:           "shared",
		WorkDir:        testDir(t),
		MaxConnections: 42,
		CPUs:           0.5,
		MemoryBytes:    256 << 20,
		Settings:       map[string]string{"work_mem": "8MB", "tenantbench.note": note},
	}
	ctx := context.Background()
	inst, err := p.Start(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = p.Stop(ctx, inst)
		}
	})

	conn := connect(t, inst.AdminDSN("postgres"))
	for name, want := range map[string]string{
		"work_mem":         "8MB",
		"tenantbench.note": note,
		"max_connections":  "42",
		"listen_addresses": "127.0.0.1",
		"port":             strconv.Itoa(inst.Port),
	} {
		if got := show(t, conn, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if !strings.HasPrefix(show(t, conn, "server_version"), inst.Version) || inst.Version == "" {
		t.Errorf("Version = %q, server says %q", inst.Version, show(t, conn, "server_version"))
	}
	// TCP works too, with the password.
	tcp := connect(t, inst.DSN("tcp", "postgres", inst.User, inst.Password))
	if err := tcp.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	tcp.Close(ctx)
	if b, _ := os.ReadFile(inst.LogFile); strings.Contains(string(b), inst.Password) {
		t.Error("the password is in the server log")
	}
	if p.account != nil {
		fi, err := os.Stat(Of(inst).DataDir)
		if err != nil {
			t.Fatal(err)
		}
		if uid := fi.Sys().(*syscall.Stat_t).Uid; int(uid) != p.account.uid {
			t.Errorf("data directory owned by uid %d, want %d (%s)", uid, p.account.uid, p.account.name)
		}
		for _, pid := range serverProcs(Of(inst).Pid) {
			proc, _ := procfs.NewProc(pid)
			st, err := proc.NewStatus()
			if err == nil && int(st.UIDs[1]) != p.account.uid {
				t.Errorf("server process %d runs as uid %d, want %d (%s)", pid, st.UIDs[1], p.account.uid, p.account.name)
			}
		}
	}

	var group *cgroup.Group
	if p.cgroups.Mode == cgroup.None {
		if Of(inst).CgroupPath != "" || Of(inst).CgroupMode != "none" || inst.LimitsEnforced {
			t.Errorf("no cgroups, yet Cgroup=%q CgroupMode=%q LimitsEnforced=%v", Of(inst).CgroupPath, Of(inst).CgroupMode, inst.LimitsEnforced)
		}
		t.Logf("cgroup checks skipped: %s", p.cgroups.Reason)
	} else {
		group = p.cgroups.Open(Of(inst).CgroupPath)
		checkLimits(t, group, 50000, 256<<20)
		checkAllInside(t, inst, group)
	}

	if err := p.Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	stopped = true
	select {
	case <-inst.Exited:
	default:
		t.Error("Exited is open after Stop")
	}
	checkGone(t, inst, group)
	if err := p.Stop(ctx, inst); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := os.Stat(filepath.Join(Of(inst).DataDir, "PG_VERSION")); err != nil {
		t.Errorf("Stop must keep the data directory: %v", err)
	}
}

// checkLimits reads the limits back from the cgroup files.
func checkLimits(t *testing.T, g *cgroup.Group, quota, memory int64) {
	t.Helper()
	if !g.LimitsEnforced() && g.Mode() == cgroup.V2 {
		return
	}
	found := 0
	for _, d := range g.Dirs() {
		for file, want := range map[string]string{
			"cpu.cfs_quota_us":      strconv.FormatInt(quota, 10),
			"cpu.cfs_period_us":     "100000",
			"memory.limit_in_bytes": strconv.FormatInt(memory, 10),
			"cpu.max":               fmt.Sprintf("%d 100000", quota),
			"memory.max":            strconv.FormatInt(memory, 10),
		} {
			b, err := os.ReadFile(filepath.Join(d, file))
			if err != nil {
				continue
			}
			found++
			if got := strings.TrimSpace(string(b)); got != want {
				t.Errorf("%s/%s = %s, want %s", d, file, got, want)
			}
		}
	}
	if found < 2 {
		t.Errorf("the cgroup %s has no CPU and memory limit files", g.Path())
	}
}

// checkAllInside compares the cgroup's processes with the postmaster and
// its descendants: they must be the same set. Both change while backends
// and workers come and go, so they are compared until they agree.
func checkAllInside(t *testing.T, inst *provider.Instance, g *cgroup.Group) {
	t.Helper()
	if n := len(serverProcs(Of(inst).Pid)); n < 4 {
		t.Errorf("only %d server processes: background processes missing?", n)
	}
	var diff string
	for try := 0; try < 50; try++ {
		diff = ""
		tree := fmt.Sprint(serverProcs(Of(inst).Pid))
		for _, f := range g.ProcsFiles() {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, s := range strings.Fields(string(b)) {
				n, _ := strconv.Atoi(s)
				got = append(got, n)
			}
			sort.Ints(got)
			if fmt.Sprint(got) != tree {
				diff += fmt.Sprintf("%s holds %v, the server's processes are %s\n", f, got, tree)
			}
		}
		if diff == "" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Error(diff)
}

func TestKilledPostmasterClosesExited(t *testing.T) {
	p := newProvider(t, Options{})
	inst := start(t, p, provider.InstanceSpec{Name: "victim", WorkDir: testDir(t)})
	var group *cgroup.Group
	if Of(inst).CgroupPath != "" {
		group = p.cgroups.Open(Of(inst).CgroupPath)
	}
	killer, ok := provider.As[provider.Killer](inst)
	if !ok {
		t.Fatal("a local instance cannot be killed")
	}
	if err := killer.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inst.Exited:
	case <-time.After(10 * time.Second):
		t.Fatal("Exited still open 10 s after SIGKILL of the postmaster")
	}
	// A dead server is not brought back by a restart fault: it stays a
	// failure for the run to see.
	if r, ok := provider.As[provider.Restarter](inst); !ok {
		t.Error("a local instance cannot be restarted")
	} else if _, err := r.Restart(context.Background(), false); err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Errorf("restart of a dead server: %v, want it refused as exited", err)
	}
	if err := p.Stop(context.Background(), inst); err != nil {
		t.Fatalf("Stop after the server died: %v", err)
	}
	checkGone(t, inst, group)
}

// TestCancelDuringStart cancels Start at several moments (before, during
// initdb, around the server start) and checks that nothing is left.
func TestCancelDuringStart(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	for i, delay := range []time.Duration{0, 50 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond} {
		name := fmt.Sprintf("c%d", i)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(delay, cancel)
		inst, err := p.Start(ctx, provider.InstanceSpec{Name: name, WorkDir: dir, CPUs: 1})
		cancel()
		if err == nil {
			// Ready before the cancel: an ordinary stop.
			t.Logf("delay %v: started before the cancel", delay)
			if err := p.Stop(context.Background(), inst); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(dir, name))
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("delay %v: error %v, want context.Canceled", delay, err)
		}
		instDir := filepath.Join(dir, name)
		if _, err := os.Stat(instDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("delay %v: %s left behind (%v)", delay, instDir, err)
		}
		if left := processesOn(t, instDir); len(left) > 0 {
			t.Errorf("delay %v: processes %v left on %s", delay, left, instDir)
		}
		if p.cgroups.Mode != cgroup.None {
			path, _ := cgroup.GroupPath(p.runName(dir), name)
			for _, d := range p.cgroups.Open(path).Dirs() {
				if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("delay %v: cgroup %s left behind", delay, d)
				}
			}
		}
	}
}

func TestTwoInstancesAtOnce(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	insts := make([]*provider.Instance, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range insts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			insts[i], errs[i] = p.Start(context.Background(), provider.InstanceSpec{Name: fmt.Sprintf("t%02d", i+1), WorkDir: dir})
		}()
	}
	wg.Wait()
	for i, inst := range insts {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		t.Cleanup(func() {
			if err := p.Stop(context.Background(), inst); err != nil {
				t.Error(err)
			}
		})
	}
	if insts[0].Port == insts[1].Port || insts[0].SocketDir == insts[1].SocketDir {
		t.Errorf("instances share port %d or socket dir %s", insts[0].Port, insts[0].SocketDir)
	}
	for _, inst := range insts {
		conn := connect(t, inst.DSN("tcp", "postgres", inst.User, inst.Password))
		if got := show(t, conn, "cluster_name"); got != inst.Name {
			t.Errorf("port %d reaches %q, want %q", inst.Port, got, inst.Name)
		}
	}
	if Of(insts[0]).CgroupPath != "" && filepath.Dir(Of(insts[0]).CgroupPath) != filepath.Dir(Of(insts[1]).CgroupPath) {
		t.Errorf("instances of one work dir in different run cgroups: %s, %s", Of(insts[0]).CgroupPath, Of(insts[1]).CgroupPath)
	}
}

func TestStopRecord(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	ctx := context.Background()
	inst, err := p.Start(ctx, provider.InstanceSpec{Name: "kept", WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var group *cgroup.Group
	if Of(inst).CgroupPath != "" {
		group = p.cgroups.Open(Of(inst).CgroupPath)
	}
	conn := connect(t, inst.AdminDSN("postgres")) // a backend to stop too
	_ = conn

	rec := inst.Record()
	if rec.WorkDir != filepath.Join(dir, "kept") {
		t.Errorf("Record.WorkDir = %s, want the instance directory", rec.WorkDir)
	}
	// A record with a pid reused by another program: that program must
	// not be touched, and the server is found through postmaster.pid.
	rec.Pid = os.Getpid()
	if err := StopRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	checkGone(t, inst, group)
	if _, err := os.Stat(rec.WorkDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind (%v)", rec.WorkDir, err)
	}
	if err := StopRecord(ctx, rec); err != nil {
		t.Errorf("StopRecord of a stopped server: %v", err)
	}
	if err := p.Stop(ctx, inst); err != nil {
		t.Errorf("Stop after StopRecord: %v", err)
	}
}

// TestStopRecordRunWorkDir: records whose WorkDir is the run's work
// directory, shared by two instances. The first StopRecord must leave the
// other instance alone, the last one removes the work directory.
func TestStopRecordRunWorkDir(t *testing.T) {
	p := newProvider(t, Options{})
	dir := filepath.Join(testDir(t), "work")
	ctx := context.Background()
	var recs []provider.Record
	for _, name := range []string{"a", "b"} {
		inst, err := p.Start(ctx, provider.InstanceSpec{Name: name, WorkDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Stop(ctx, inst) })
		rec := inst.Record()
		rec.WorkDir = dir
		recs = append(recs, rec)
	}
	if err := StopRecord(ctx, recs[0]); err != nil {
		t.Fatal(err)
	}
	if !isServer(postgres.Engine{}, recs[1].Pid, recs[1].DataDir) {
		t.Fatal("stopping a also stopped b")
	}
	if _, err := os.Stat(filepath.Join(recs[1].DataDir, "PG_VERSION")); err != nil {
		t.Fatalf("stopping a removed b's data: %v", err)
	}
	if err := StopRecord(ctx, recs[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work directory %s left behind (%v)", dir, err)
	}
	bad := recs[0]
	bad.WorkDir = "/elsewhere"
	if err := StopRecord(ctx, bad); err == nil {
		t.Error("a record whose data directory is outside its work directory was accepted")
	}
}

// TestNoLimitsAsked: a server given no limits runs unlimited in its
// cgroup, and the results must not say limits were in force.
func TestNoLimitsAsked(t *testing.T) {
	p := newProvider(t, Options{})
	inst := start(t, p, provider.InstanceSpec{Name: "unlimited", WorkDir: testDir(t)})
	if inst.LimitsEnforced {
		t.Errorf("no limits asked for, yet LimitsEnforced (cgroup %q, %s)", Of(inst).CgroupPath, Of(inst).CgroupMode)
	}
}

func TestNoCgroups(t *testing.T) {
	p := newProvider(t, Options{Cgroups: &cgroup.System{Mode: cgroup.None, Reason: "test"}})
	inst := start(t, p, provider.InstanceSpec{Name: "free", WorkDir: testDir(t), CPUs: 1, MemoryBytes: 1 << 30})
	if Of(inst).CgroupPath != "" || Of(inst).CgroupMode != "none" || inst.LimitsEnforced {
		t.Errorf("Cgroup=%q CgroupMode=%q LimitsEnforced=%v, want \"\", none, false", Of(inst).CgroupPath, Of(inst).CgroupMode, inst.LimitsEnforced)
	}
}

// TestCgroupV2 starts a server into the v2 tree of a hybrid machine
// (clone3 into the group). That tree offers no cpu or memory controller
// here, so only the placement is checked, not the limits.
func TestCgroupV2(t *testing.T) {
	sys := cgroup.Detect()
	if sys.Mode == cgroup.V2 {
		t.Skip("pure v2 machine: TestStartStop covers v2")
	}
	const mount = "/sys/fs/cgroup/unified"
	var st syscall.Statfs_t
	if err := syscall.Statfs(mount, &st); err != nil || st.Type != 0x63677270 {
		t.Skipf("no cgroup2 at %s", mount)
	}
	v2 := cgroup.V2At(mount)
	if v2.Mode != cgroup.V2 {
		t.Skip(v2.Reason)
	}
	p := newProvider(t, Options{Cgroups: &v2})
	inst, err := p.Start(context.Background(), provider.InstanceSpec{Name: "v2", WorkDir: testDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	group := v2.Open(Of(inst).CgroupPath)
	if Of(inst).CgroupMode != "v2" {
		t.Errorf("CgroupMode = %s", Of(inst).CgroupMode)
	}
	checkAllInside(t, inst, group)
	if err := p.Stop(context.Background(), inst); err != nil {
		t.Fatal(err)
	}
	checkGone(t, inst, group)
}

func TestStartRejects(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	for _, s := range []provider.InstanceSpec{
		{Name: "../x", WorkDir: dir},
		{Name: "ok", WorkDir: ""},
		{Name: "ok", WorkDir: dir, Settings: map[string]string{"port": "5432"}},
		{Name: "ok", WorkDir: dir, Settings: map[string]string{"bad name": "1"}},
	} {
		if inst, err := p.Start(context.Background(), s); err == nil {
			_ = p.Stop(context.Background(), inst)
			t.Errorf("Start(%+v) succeeded", s)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("rejected starts left %v", entries)
	}
}

// TestPortTaken hands Start a port another socket listens on: the server
// fails to bind, and Start retries on another port.
func TestPortTaken(t *testing.T) {
	p := newProvider(t, Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	calls := 0
	p.pickPort = func() (int, error) {
		calls++
		if calls == 1 {
			return taken, nil
		}
		return freePort()
	}
	inst := start(t, p, provider.InstanceSpec{Name: "retry", WorkDir: testDir(t)})
	if calls != 2 || inst.Port == taken {
		t.Errorf("%d ports tried, got port %d (taken: %d)", calls, inst.Port, taken)
	}
	select {
	case <-inst.Exited:
		t.Error("Exited closed by the end of the first try's server, not of this one")
	default:
	}
}

// TestFetchedBinaries downloads an official build from Maven Central into
// a fresh cache and runs a server from it. It downloads about 15 MB.
func TestFetchedBinaries(t *testing.T) {
	if testing.Short() || os.Getenv("TENANTBENCH_NO_FETCH") != "" {
		t.Skip("downloads PostgreSQL from Maven Central: not with -short or TENANTBENCH_NO_FETCH")
	}
	cache := testDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f := postgres.Finder{CacheDir: cache, Logf: t.Logf}
	b, err := f.Fetch(ctx, "16")
	if err != nil {
		t.Fatal(err)
	}
	if b.Major != "16" || !strings.HasPrefix(b.Dir, cache) {
		t.Fatalf("fetched %+v, want 16 in %s", b, cache)
	}
	again, err := f.Fetch(ctx, "16")
	if err != nil || again != b {
		t.Fatalf("second fetch: %+v, %v; want the cached %+v", again, err, b)
	}
	// PG_BINDIR pins the fetched build even if a 16 is installed.
	t.Setenv("PG_BINDIR", b.Dir)
	p := newProvider(t, Options{Find: dbserver.Find{CacheDir: cache, NoFetch: true}})
	inst := start(t, p, provider.InstanceSpec{Name: "fetched", WorkDir: testDir(t), Version: "16"})
	if inst.Version != b.Version {
		t.Errorf("server version %s, fetched %s", inst.Version, b.Version)
	}
	conn := connect(t, inst.AdminDSN("postgres"))
	if got := show(t, conn, "server_version_num"); !strings.HasPrefix(got, "16") {
		t.Errorf("server_version_num = %s", got)
	}
}

// TestStartFailureKeepsLog: a server that exits while starting (a value
// PostgreSQL refuses at start) has its log handed to KeepLog before Start
// removes its directory, and the error names the kept copy.
func TestStartFailureKeepsLog(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	kept := filepath.Join(t.TempDir(), "kept.log")
	var copied []byte
	s := provider.InstanceSpec{Name: "bad", WorkDir: dir, Settings: map[string]string{"work_mem": "-1"},
		KeepLog: func(name, logFile string) string {
			b, err := os.ReadFile(logFile)
			if err != nil {
				return "not kept: " + err.Error()
			}
			copied = b
			os.WriteFile(kept, b, 0o644)
			return "its log: " + kept
		}}
	inst, err := p.Start(context.Background(), s)
	if err == nil {
		_ = p.Stop(context.Background(), inst)
		t.Fatal("a server with work_mem -1 started")
	}
	if !strings.Contains(err.Error(), "its log: "+kept) {
		t.Errorf("error does not name the kept log: %v", err)
	}
	if !strings.Contains(string(copied), "work_mem") {
		t.Errorf("kept log does not say why the server stopped:\n%s", copied)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed server's directory is left (%v)", err)
	}
}
