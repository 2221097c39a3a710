// Package cgroup puts DBMS servers into control groups, v1 or v2, to limit
// their CPU and memory and to account for everything they use. Where
// cgroups are not writable it says so (Mode None) instead of failing:
// limits are then not enforced and accounting falls back to the process
// tree.
package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"golang.org/x/sys/unix"
)

// Mode is the cgroup version in use.
type Mode string

const (
	None Mode = "none" // no writable cgroups: nothing is limited
	V1   Mode = "v1"   // one hierarchy per controller
	V2   Mode = "v2"   // the unified hierarchy
)

// Root is the top of tenantbench's groups in every hierarchy. Groups are
// Root/<run>/<instance>.
const Root = "/tenantbench"

// v1Controllers are the only v1 controllers used: enough to limit CPU and
// memory and to account CPU, memory, IO and processes. cpuset is left out
// on purpose: a new cpuset group is unusable until cpus and mems are
// copied into it.
func v1Controllers() []cgroup1.Name {
	return []cgroup1.Name{cgroup1.Cpu, cgroup1.Cpuacct, cgroup1.Memory, cgroup1.Blkio, cgroup1.Pids}
}

// v2Controllers are enabled below the root when available, for limits
// (cpu, memory) and accounting (io, pids).
func v2Controllers() []string { return []string{"cpu", "memory", "io", "pids"} }

// System is the cgroup setup this machine offers tenantbench.
type System struct {
	Mode Mode
	// Reason says why Mode is None.
	Reason string
	// v1: the mount directory of each controller used.
	v1 map[cgroup1.Name]string
	// v2: the unified mount point.
	v2 string
	// cpuset is v1's cpuset hierarchy, "" when it is not mounted or not
	// writable: a group joins it only when given cores (Limits.Cores).
	cpuset string
}

// Detect finds the cgroup version of this machine and whether this process
// may create groups in it. A hybrid machine (v1 controllers plus an empty
// v2 tree) is treated as v1, where its controllers are.
func Detect() System {
	switch cgroups.Mode() {
	case cgroups.Unified:
		return V2At("/sys/fs/cgroup")
	case cgroups.Legacy, cgroups.Hybrid:
		return detectV1()
	}
	return System{Mode: None, Reason: "no cgroup file system is mounted at /sys/fs/cgroup"}
}

// V2At uses the unified hierarchy mounted at mount. Detect calls it for
// /sys/fs/cgroup; tests use it on the v2 tree of a hybrid machine.
func V2At(mount string) System {
	if err := unix.Access(filepath.Join(mount, "cgroup.procs"), unix.W_OK); err != nil {
		return System{Mode: None, Reason: fmt.Sprintf("cgroup v2 at %s is not writable (%v): run as root or delegate a cgroup", mount, err)}
	}
	return System{Mode: V2, v2: mount}
}

func detectV1() System {
	subsystems, err := cgroup1.Default()
	if err != nil {
		return System{Mode: None, Reason: fmt.Sprintf("cannot read the cgroup v1 mounts: %v", err)}
	}
	mounts := map[cgroup1.Name]string{}
	for _, s := range subsystems {
		p, ok := s.(interface{ Path(string) string })
		if !ok || !used(s.Name()) {
			continue
		}
		dir := p.Path("/")
		if err := unix.Access(dir, unix.W_OK); err != nil {
			return System{Mode: None, Reason: fmt.Sprintf("cgroup v1 %s at %s is not writable (%v): run as root", s.Name(), dir, err)}
		}
		mounts[s.Name()] = dir
	}
	if len(mounts) == 0 {
		return System{Mode: None, Reason: "no cgroup v1 controller among cpu, cpuacct, memory, blkio, pids is mounted"}
	}
	return System{Mode: V1, v1: mounts, cpuset: cpusetMount(subsystems)}
}

func used(n cgroup1.Name) bool {
	for _, c := range v1Controllers() {
		if c == n {
			return true
		}
	}
	return false
}

// Limits are what a group may use; zero means unlimited.
type Limits struct {
	CPUs        float64 // CFS quota in CPUs (1.5 = 150 ms per 100 ms)
	MemoryBytes int64
	// Cores are the CPUs the group's processes may run on (its cpuset),
	// nil for any.
	Cores []int
}

// cfsPeriod is the CFS period in microseconds, the kernel's default.
const cfsPeriod = 100000

func (l Limits) quota() int64 { return int64(l.CPUs * cfsPeriod) }

// Group is one cgroup, present in every hierarchy used.
type Group struct {
	mode Mode
	path string   // Root/<run>/<name>, relative to each hierarchy's root
	dirs []string // the group's directory in each hierarchy
	tops []string // each hierarchy's root directory, where removal stops
	// ctrls name each dir's hierarchy as /proc/<pid>/cgroup does: a v1
	// controller ("cpu"), "" for v2's unified hierarchy.
	ctrls []string
	// enforced: CPU and memory limits would be in force.
	enforced bool
}

var componentRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// GroupPath is the group path of instance name in run: Root/run/name.
func GroupPath(run, name string) (string, error) {
	for _, c := range []string{run, name} {
		if !componentRE.MatchString(c) || len(c) > 100 {
			return "", fmt.Errorf("cgroup name %q: use letters, digits, '_', '.' and '-' (at most 100)", c)
		}
	}
	return Root + "/" + run + "/" + name, nil
}

// Create makes the group at path (from GroupPath) with the given limits.
// An existing group of that path is reused and its limits reset.
func (s System) Create(path string, l Limits) (*Group, error) {
	if !strings.HasPrefix(path, Root+"/") || filepath.Clean(path) != path {
		return nil, fmt.Errorf("cgroup path %q is not below %s", path, Root)
	}
	if l.CPUs < 0 || l.MemoryBytes < 0 {
		return nil, fmt.Errorf("negative limits: %v CPUs, %d bytes", l.CPUs, l.MemoryBytes)
	}
	create := s.createV1
	switch s.Mode {
	case V1:
	case V2:
		create = s.createV2
	default:
		return nil, fmt.Errorf("cgroups are not available: %s", s.Reason)
	}
	// Another run removing its last group removes the shared parents too,
	// and may do so between our making a parent and making its child:
	// that shows as "no such file", and trying again is enough.
	for attempt := 1; ; attempt++ {
		g, err := create(path, l)
		if err == nil || !errors.Is(err, os.ErrNotExist) || attempt == 5 {
			return g, err
		}
	}
}

// Open returns the existing group at path, to remove it from another
// process than the one that created it.
func (s System) Open(path string) *Group {
	g := &Group{mode: s.Mode, path: path}
	switch s.Mode {
	case V1:
		for _, n := range v1Controllers() {
			if m, ok := s.v1[n]; ok {
				g.add(m, path, string(n))
			}
		}
	case V2:
		g.add(s.v2, path, "")
	}
	s.openCpuset(g)
	return g
}

func (g *Group) add(top, path, ctrl string) {
	dir := filepath.Join(top, path)
	for _, d := range g.dirs {
		if d == dir { // co-mounted controllers (cpu,cpuacct) share one directory
			return
		}
	}
	g.dirs = append(g.dirs, dir)
	g.tops = append(g.tops, top)
	g.ctrls = append(g.ctrls, ctrl)
}

// Path is the group's path below each hierarchy root.
func (g *Group) Path() string { return g.path }

// Mode is the cgroup version of the group.
func (g *Group) Mode() Mode { return g.mode }

// Dirs are the group's directories, one per hierarchy (one for v2).
func (g *Group) Dirs() []string { return append([]string(nil), g.dirs...) }

// LimitsEnforced says whether CPU and memory limits are in force for this
// group: both controllers are available to it.
func (g *Group) LimitsEnforced() bool { return g.enforced }

// ProcsFiles are the cgroup.procs files a process writes its pid into to
// join the group (v1: one per hierarchy).
func (g *Group) ProcsFiles() []string {
	out := make([]string, len(g.dirs))
	for i, d := range g.dirs {
		out[i] = filepath.Join(d, "cgroup.procs")
	}
	return out
}

// Chown hands the group's cgroup.procs files to uid: on v1 a process may
// then move itself in as that user, which is how a server started as an
// unprivileged user joins its group before it forks anything.
func (g *Group) Chown(uid, gid int) error {
	for _, f := range g.ProcsFiles() {
		if err := os.Chown(f, uid, gid); err != nil {
			return fmt.Errorf("hand %s to uid %d: %w", f, uid, err)
		}
	}
	return nil
}

// Procs lists the processes in the group, in any hierarchy.
func (g *Group) Procs() ([]int, error) {
	seen := map[int]bool{}
	for _, f := range g.ProcsFiles() {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list the processes of cgroup %s: %w", g.path, err)
		}
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil {
				seen[pid] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for pid := range seen {
		out = append(out, pid)
	}
	sort.Ints(out)
	return out, nil
}

// Kill sends SIGKILL to every process in the group.
func (g *Group) Kill() error {
	pids, err := g.Procs()
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill process %d of cgroup %s: %w", pid, g.path, err)
		}
	}
	return nil
}

// Remove deletes the group, then its parents up to Root when they are
// empty (another instance of the run may still use them). A group already
// gone is not an error. It kills what is left in the group and waits up to
// wait for it to be empty: the kernel refuses to remove a group with
// processes.
func (g *Group) Remove(wait time.Duration) error {
	if g == nil || g.mode == None {
		return nil
	}
	deadline := time.Now().Add(wait)
	for {
		pids, err := g.Procs()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s still holds processes %v after %v: kill them and run `tenantbench down` again", g.path, pids, wait)
		}
		if err := g.Kill(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	var errs []error
	for i, dir := range g.dirs {
		if err := rmdir(dir, deadline); err != nil {
			errs = append(errs, err)
			continue
		}
		// Parents: only below the hierarchy root, only while empty.
		for p := filepath.Dir(dir); len(p) > len(g.tops[i]) && strings.HasPrefix(p, filepath.Join(g.tops[i], Root)); p = filepath.Dir(p) {
			if os.Remove(p) != nil {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// rmdir removes a cgroup directory, retrying while the kernel still
// reports it busy (exited processes linger briefly as zombies in it).
func rmdir(dir string, deadline time.Time) error {
	for {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WithoutCPUController is s less v1's cpu controller: a group created
// through it is in every other hierarchy (cpuacct still accounts its CPU
// time) but its processes stay in the cpu hierarchy's root group. That is
// for a process that must wake on time whatever the servers do (the
// network delayer): in a group below /tenantbench it would be weighed
// against all of tenantbench's groups together, and v1's real-time group
// scheduling gives a new group no real-time time. v2 has one hierarchy:
// s is returned as it is.
func (s System) WithoutCPUController() System {
	if s.Mode != V1 {
		return s
	}
	out := System{Mode: s.Mode, Reason: s.Reason, v2: s.v2, v1: map[cgroup1.Name]string{}}
	for n, dir := range s.v1 {
		if n != cgroup1.Cpu {
			out.v1[n] = dir
		}
	}
	return out
}
