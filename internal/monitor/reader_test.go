package monitor

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// TestKeptFiles: a file kept open reads its content anew each time, a
// process's file fails once the process is gone (and is let go), and a
// read by name reopens a file that went away.
func TestKeptFiles(t *testing.T) {
	r := reader{keep: true}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var fd int32
	b, err := r.readProcKept(pid, "stat", &fd)
	var st procStat
	if err != nil || !parseStat(b, &st) || fd == 0 {
		t.Fatalf("read %q, %v, fd %d", b, err, fd)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := r.readProcKept(pid, "stat", &fd); !gone(err) || fd != 0 {
		t.Errorf("a reaped process's stat: %v, fd %d", err, fd)
	}

	// A busy process's run time moves between two reads of one fd.
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	b, err = r.readProcKept(busy.Process.Pid, "schedstat", &fd)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := schedRuntime(b)
	kept := fd
	time.Sleep(50 * time.Millisecond)
	b, err = r.readProcKept(busy.Process.Pid, "schedstat", &fd)
	after, _ := schedRuntime(b)
	if err != nil || fd != kept || after <= before {
		t.Errorf("schedstat %d then %d (fd %d then %d, %v)", before, after, kept, fd, err)
	}
	r.closeFD(&fd)

	path := t.TempDir() + "/f"
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := r.uint(path); err != nil || v != 1 {
		t.Fatalf("%d, %v", v, err)
	}
	if err := os.WriteFile(path, []byte("22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := r.uint(path); err != nil || v != 22 {
		t.Errorf("rewritten: %d, %v", v, err)
	}
	if len(r.kept) != 1 {
		t.Errorf("%d files kept, want 1", len(r.kept))
	}
	r.closeKept()
	if len(r.kept) != 0 {
		t.Errorf("%d files kept after closeKept", len(r.kept))
	}
}

// TestMonitorClosesFiles: the files a monitor keeps open are closed by
// Stop, and stay within Config.KeepFiles.
func TestMonitorClosesFiles(t *testing.T) {
	inst := pgtest.Start(t)
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(fds)
	}
	n0 := open()
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m.samplers[0].sample(ctx, time.Now())
	if n := open(); n <= n0+len(m.samplers[0].procs)/2 {
		t.Errorf("%d files open while sampling %d processes, %d before: none kept?", n, len(m.samplers[0].procs), n0)
	}
	if _, err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != n0 {
		t.Errorf("%d files open after Stop, %d before Start", n, n0)
	}

	// With a bound (the run's spare files), the samplers keep at most
	// that many, and give each back at Stop; negative: none.
	for _, bound := range []int{3, -1} {
		n0 := open()
		m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: -1, KeepFiles: bound})
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
		// Beside what the samplers keep, the monitor holds the
		// sampler's statistics session (a socket) and the files of its
		// own process that the host sampler keeps (tenantbench's own,
		// which the plan counts apart).
		for i := 0; i < 3; i++ {
			m.samplers[0].sample(ctx, time.Now())
			if n := open() - n0 - 1 - len(m.host.r.kept); n > max(bound, 0) {
				t.Errorf("KeepFiles %d: %d files open by the monitor after round %d", bound, n, i)
			}
		}
		if _, err := m.Stop(); err != nil {
			t.Fatal(err)
		}
		if left := m.files.left.Load(); left != int64(max(bound, 0)) {
			t.Errorf("KeepFiles %d: %d left after Stop: kept files not given back", bound, left)
		}
		if n := open(); n != n0 {
			t.Errorf("KeepFiles %d: %d files open after Stop, %d before Start", bound, n, n0)
		}
	}
}
