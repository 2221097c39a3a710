package cgroup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestGroupPath(t *testing.T) {
	if p, err := GroupPath("run-1", "t01"); err != nil || p != "/tenantbench/run-1/t01" {
		t.Errorf("GroupPath = %q, %v", p, err)
	}
	for _, bad := range [][2]string{{"..", "x"}, {"run", "a/b"}, {"", "x"}, {"run", ".hidden"}, {"run", "sp ace"}} {
		if _, err := GroupPath(bad[0], bad[1]); err == nil {
			t.Errorf("GroupPath(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestNoneCreateFails(t *testing.T) {
	if _, err := (System{Mode: None, Reason: "test"}).Create("/tenantbench/r/x", Limits{}); err == nil {
		t.Error("Create without cgroups succeeded")
	}
	if err := (System{Mode: None}).Open("/tenantbench/r/x").Remove(time.Second); err != nil {
		t.Errorf("Remove without cgroups: %v", err)
	}
}

// TestCreateRemove makes two groups of one run with limits, puts a process
// in one, and checks the limits, the membership, and that the run's
// parent goes only with its last group.
func TestCreateRemove(t *testing.T) {
	sys := Detect()
	if sys.Mode == None {
		t.Skip(sys.Reason)
	}
	run := "test-" + strconv.Itoa(os.Getpid())
	a, err := sys.Create("/tenantbench/"+run+"/a", Limits{CPUs: 1.5, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sys.Create("/tenantbench/"+run+"/b", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Remove(time.Second); b.Remove(time.Second) })

	if sys.Mode == V1 {
		for file, want := range map[string]string{"cpu/cpu.cfs_quota_us": "150000", "memory/memory.limit_in_bytes": "67108864"} {
			got, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", filepath.Dir(file), a.Path(), filepath.Base(file)))
			if err != nil || strings.TrimSpace(string(got)) != want {
				t.Errorf("%s = %q, %v; want %s", file, got, err, want)
			}
		}
		got, _ := os.ReadFile(filepath.Join("/sys/fs/cgroup/cpu", b.Path(), "cpu.cfs_quota_us"))
		if strings.TrimSpace(string(got)) != "-1" {
			t.Errorf("unlimited group has quota %s", got)
		}
	}

	// A process that moves itself in, as the provider's servers do.
	cmd := exec.Command("/bin/sh", append([]string{"-c", `for f do echo $$ > "$f"; done; exec sleep 60`, "sh"}, a.ProcsFiles()...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		procs, err := a.Procs()
		if err != nil {
			t.Fatal(err)
		}
		if len(procs) == 1 && procs[0] == cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("group holds %v, want [%d]", procs, cmd.Process.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Remove kills what is left in the group.
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	if err := a.Remove(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	<-done
	for _, d := range a.Dirs() {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists", d)
		}
		if _, err := os.Stat(filepath.Dir(d)); err != nil {
			t.Errorf("run parent %s removed while b uses it: %v", filepath.Dir(d), err)
		}
	}
	if err := b.Remove(time.Second); err != nil {
		t.Fatal(err)
	}
	for _, d := range b.Dirs() {
		if _, err := os.Stat(filepath.Dir(d)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("empty run parent %s left", filepath.Dir(d))
		}
	}
	if err := b.Remove(time.Second); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

// TestCores places a process in a group on the last core and reads its
// affinity back; the group and the run's parents in the cpuset hierarchy
// go with Remove, and Open from elsewhere finds the cpuset too.
func TestCores(t *testing.T) {
	sys := Detect()
	if why := sys.Cpusets(); why != "" {
		t.Skip(why)
	}
	run := "test-cores-" + strconv.Itoa(os.Getpid())
	all, err := ParseCores(readTrim(t, "/sys/devices/system/cpu/online"))
	if err != nil || len(all) == 0 {
		t.Fatalf("online CPUs: %v %v", all, err)
	}
	last := all[len(all)-1]
	g, err := sys.Create("/tenantbench/"+run+"/a", Limits{Cores: []int{last}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Remove(time.Second) })
	if got, err := g.Cores(); err != nil || len(got) != 1 || got[0] != last {
		t.Errorf("Cores = %v, %v; want [%d]", got, err, last)
	}
	cmd, done, err := g.Command("sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done()
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// The shell joins the groups, then execs sleep: wait for the exec.
	want := strconv.Itoa(last)
	var allowed string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		allowed = cpusAllowed(t, cmd.Process.Pid)
		if allowed == want {
			break
		}
	}
	if allowed != want {
		t.Errorf("process in the group may run on %q, want %q", allowed, want)
	}
	// Remove from another "process": Open must see the cpuset.
	if err := sys.Open(g.Path()).Remove(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if sys.Mode == V1 {
		if _, err := os.Stat(filepath.Join(sys.cpuset, "tenantbench", run)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the run's cpuset is left behind: %v", err)
		}
	}
}

func readTrim(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// cpusAllowed is the Cpus_allowed_list of a process.
func cpusAllowed(t *testing.T, pid int) string {
	for _, line := range strings.Split(readTrim(t, "/proc/"+strconv.Itoa(pid)+"/status"), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestParseCores(t *testing.T) {
	got, err := ParseCores("0-2,5\n")
	if err != nil || len(got) != 4 || got[0] != 0 || got[2] != 2 || got[3] != 5 {
		t.Errorf("ParseCores = %v, %v", got, err)
	}
	if _, err := ParseCores("a-1"); err == nil {
		t.Error("ParseCores accepted a-1")
	}
}
