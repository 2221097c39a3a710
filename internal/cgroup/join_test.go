package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestJoinAndBack moves a running process into a CPU-only group and back:
// while in it, its CPU hierarchies name the group and its memory group is
// unchanged (v1); after back, every hierarchy names where it was.
func TestJoinAndBack(t *testing.T) {
	sys := Detect()
	if sys.Mode == None {
		t.Skip(sys.Reason)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	before, err := groupsOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("%s/jointest-%d/driver", Root, os.Getpid())
	g, err := sys.CreateCPU(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := g.Remove(5 * time.Second); err != nil {
			t.Error(err)
		}
	}()
	back, err := g.Join(pid)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := groupsOf(pid)
	cpuKey := "cpu"
	if sys.Mode == V2 {
		cpuKey = ""
	}
	if in[cpuKey] != path {
		t.Errorf("after Join the process's %q group is %q, want %s", cpuKey, in[cpuKey], path)
	}
	if sys.Mode == V1 && in["memory"] != before["memory"] {
		t.Errorf("Join moved the memory group from %q to %q: the group holds CPU only", before["memory"], in["memory"])
	}
	if procs, _ := g.Procs(); len(procs) != 1 || procs[0] != pid {
		t.Errorf("the group holds %v, want [%d]", procs, pid)
	}
	if err := back(); err != nil {
		t.Fatal(err)
	}
	after, _ := groupsOf(pid)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("after back the process's %q group is %q, want %q", k, after[k], v)
		}
	}
	if procs, _ := g.Procs(); len(procs) != 0 {
		t.Errorf("after back the group still holds %v", procs)
	}
}
