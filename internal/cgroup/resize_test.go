package cgroup

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestResize changes a group's limits while a process runs in it and
// reads them back, from the group and from the kernel's files.
func TestResize(t *testing.T) {
	sys := Detect()
	if sys.Mode == None {
		t.Skip(sys.Reason)
	}
	g, err := sys.Create("/tenantbench/test-resize-"+strconv.Itoa(os.Getpid())+"/a", Limits{CPUs: 0.5, MemoryBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(5 * time.Second); err != nil {
			t.Error(err)
		}
	})
	cmd, done, err := g.Command("sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// On v1 the process joins the group itself, just after it starts.
	in := func() bool {
		pids, err := g.Procs()
		return err == nil && len(pids) == 1 && pids[0] == cmd.Process.Pid
	}
	for deadline := time.Now().Add(5 * time.Second); !in() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !in() {
		t.Fatal("the process did not join the group")
	}
	for _, l := range []Limits{{CPUs: 1.25, MemoryBytes: 512 << 20}, {CPUs: 0.05, MemoryBytes: 128 << 20}, {}, {CPUs: 2}} {
		if err := g.Resize(l); err != nil {
			t.Fatal(err)
		}
		got, err := g.Quota()
		if err != nil {
			t.Fatal(err)
		}
		if got.CPUs != l.CPUs || got.MemoryBytes != l.MemoryBytes {
			t.Errorf("after Resize(%+v): %+v", l, got)
		}
	}
	if !in() {
		t.Error("the process left the group")
	}
	if err := g.Resize(Limits{CPUs: -1}); err == nil {
		t.Error("negative CPUs accepted")
	}
}
