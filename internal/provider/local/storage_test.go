package local

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// ledgerOf keeps the last record of each server, as the run's ledger.
type ledgerOf struct {
	mu   sync.Mutex
	live map[string]provider.Record // by data directory
}

func (l *ledgerOf) Live(r provider.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live == nil {
		l.live = map[string]provider.Record{}
	}
	l.live[r.DataDir] = r
}

func (l *ledgerOf) Gone(r provider.Record) { l.mu.Lock(); delete(l.live, r.DataDir); l.mu.Unlock() }

func (l *ledgerOf) records() []provider.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []provider.Record
	for _, r := range l.live {
		out = append(out, r)
	}
	return out
}

// mountsUnder are the mount points below dir (/proc/self/mountinfo).
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), dir+"/") {
			out = append(out, f[4])
		}
	}
	return out
}

// loopsOf are the loop devices attached to files below dir.
func loopsOf(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("losetup", "-a").Output()
	if err != nil {
		t.Fatal(err)
	}
	var loops []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, dir+"/") {
			loops = append(loops, line)
		}
	}
	return loops
}

// TestStorage starts two servers per storage variant and checks, while
// they run, that each data directory is on the file system asked for
// (its own or one shared), that the ledger lists the mounts, and after
// Stop and Remove that nothing is mounted or attached any more.
func TestStorage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a file system needs root")
	}
	if why := Storage(spec.StorageDisk, spec.VolumePerInstance); why != "" {
		t.Skip(why)
	}
	for _, c := range []struct {
		kind, volume string
		magic        int64 // statfs f_type of the data directory
		apart        bool  // the two servers on different file systems
	}{
		{spec.StorageTmpfs, spec.VolumePerInstance, unix.TMPFS_MAGIC, true},
		{spec.StorageTmpfs, spec.VolumeShared, unix.TMPFS_MAGIC, false},
		{spec.StorageDisk, spec.VolumePerInstance, unix.EXT4_SUPER_MAGIC, true},
	} {
		t.Run(c.kind+"-"+c.volume, func(t *testing.T) {
			p := newProvider(t, Options{})
			dir := testDir(t)
			var ledger ledgerOf
			st := provider.StorageSpec{Kind: c.kind, Volume: c.volume, SizeBytes: 256 << 20}
			ctx := context.Background()
			var insts []*provider.Instance
			for _, name := range []string{"t01", "t02"} {
				inst, err := p.Start(ctx, provider.InstanceSpec{Name: name, WorkDir: dir, Storage: st, Ledger: &ledger})
				if err != nil {
					t.Fatal(err)
				}
				insts = append(insts, inst)
			}
			var devs []uint64
			for _, inst := range insts {
				conn := connect(t, inst.AdminDSN("postgres"))
				if _, err := conn.Exec(ctx, "CREATE TABLE x AS SELECT g FROM generate_series(1, 10000) g; CHECKPOINT"); err != nil {
					t.Fatal(err)
				}
				conn.Close(ctx)
				data := Of(inst).DataDir
				var fs unix.Statfs_t
				if err := unix.Statfs(data, &fs); err != nil {
					t.Fatal(err)
				}
				if int64(fs.Type) != c.magic {
					t.Errorf("%s: data directory on file system type %#x, want %#x", inst.Name, fs.Type, c.magic)
				}
				if !isMountPoint(data) {
					t.Errorf("%s: data directory %s is not a mount point", inst.Name, data)
				}
				var sb unix.Stat_t
				if err := unix.Stat(filepath.Join(data, "global"), &sb); err != nil {
					t.Fatal(err)
				}
				devs = append(devs, sb.Dev)
			}
			if apart := devs[0] != devs[1]; apart != c.apart {
				t.Errorf("servers on different file systems: %v, want %v (devices %v)", apart, c.apart, devs)
			}
			for _, r := range ledger.records() {
				if len(r.Mounts) == 0 {
					t.Errorf("ledger record of %s lists no mount", r.Name)
				}
			}
			for _, inst := range insts {
				if err := p.Stop(ctx, inst); err != nil {
					t.Fatal(err)
				}
			}
			if left := mountsUnder(t, dir); len(left) == 0 {
				t.Error("Stop unmounted the data directories: a restart in place needs them")
			}
			for _, inst := range insts {
				if err := p.Remove(ctx, inst); err != nil {
					t.Fatal(err)
				}
			}
			if left := mountsUnder(t, dir); len(left) > 0 {
				t.Errorf("still mounted after Remove: %v", left)
			}
			if left := loopsOf(t, dir); len(left) > 0 {
				t.Errorf("loop devices still attached after Remove: %v", left)
			}
			if n := len(ledger.records()); n > 0 {
				t.Errorf("the ledger still lists %d servers", n)
			}
		})
	}
}

// TestStorageStopRecord: a server on its own image and one on the run's
// shared tmpfs, their tenantbench gone (SIGKILLed servers, as after a
// SIGKILL of the run): StopRecord of their ledger records, as `down` does,
// leaves no mount, loop device or directory.
func TestStorageStopRecord(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a file system needs root")
	}
	if why := Storage(spec.StorageDisk, spec.VolumePerInstance); why != "" {
		t.Skip(why)
	}
	p := newProvider(t, Options{})
	dir := filepath.Join(testDir(t), "work")
	ctx := context.Background()
	var ledger ledgerOf
	for _, s := range []provider.InstanceSpec{
		{Name: "img", Storage: provider.StorageSpec{Kind: spec.StorageDisk, Volume: spec.VolumePerInstance, SizeBytes: 128 << 20}},
		{Name: "ram", Storage: provider.StorageSpec{Kind: spec.StorageTmpfs, Volume: spec.VolumeShared}},
	} {
		s.WorkDir, s.Ledger = dir, &ledger
		inst, err := p.Start(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		_ = syscall.Kill(-Of(inst).Pid, syscall.SIGKILL)
		<-inst.Exited
	}
	if len(mountsUnder(t, dir)) != 3 { // the image, the shared tmpfs, its bind
		t.Errorf("mounts before down: %v", mountsUnder(t, dir))
	}
	for _, r := range ledger.records() {
		if err := StopRecord(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if left := mountsUnder(t, filepath.Dir(dir)); len(left) > 0 {
		t.Errorf("still mounted after StopRecord: %v", left)
	}
	if left := loopsOf(t, dir); len(left) > 0 {
		t.Errorf("loop devices still attached after StopRecord: %v", left)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("work directory %s left behind", dir)
	}
}

// TestCoresPlacement starts two servers on the cores pack and spread
// would give them and reads, while they run, each server cgroup's cpuset
// and where a backend of each may run.
func TestCoresPlacement(t *testing.T) {
	if why := Cores(); why != "" {
		t.Skip(why)
	}
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: spread cannot put two servers apart")
	}
	for _, c := range []struct {
		name  string
		cores [][]int
		apart bool
	}{
		{spec.CPUPolicySpread, [][]int{{0}, {1}}, true},
		{spec.CPUPolicyPack, [][]int{{0}, {0}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, Options{})
			dir := testDir(t)
			var allowed []string
			for i, name := range []string{"t01", "t02"} {
				inst := start(t, p, provider.InstanceSpec{Name: name, WorkDir: dir, Cores: c.cores[i]})
				g := p.cgroups.Open(Of(inst).CgroupPath)
				got, err := g.Cores()
				if err != nil || len(got) != 1 || got[0] != c.cores[i][0] {
					t.Errorf("%s: cgroup cpuset %v, %v; want %v", name, got, err, c.cores[i])
				}
				conn := connect(t, inst.AdminDSN("postgres"))
				var pid int
				if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
					t.Fatal(err)
				}
				allowed = append(allowed, cpusAllowedOf(t, pid))
			}
			if apart := allowed[0] != allowed[1]; apart != c.apart {
				t.Errorf("backends may run on %v: apart %v, want %v", allowed, apart, c.apart)
			}
			if allowed[0] != strconv.Itoa(c.cores[0][0]) {
				t.Errorf("first server's backend may run on %q, want %d", allowed[0], c.cores[0][0])
			}
		})
	}
}

func cpusAllowedOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
