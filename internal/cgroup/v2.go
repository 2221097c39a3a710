package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup2"
)

// createV2 makes the group and enables, in the subtree_control of every
// parent down from the root, the controllers the root offers among cpu,
// memory, io and pids: a v2 group only has the controllers its parent
// hands down, and accounting needs them even without limits.
func (s System) createV2(path string, l Limits) (*Group, error) {
	g := s.Open(path)
	fail := func(err error) (*Group, error) {
		_ = g.Remove(time.Second)
		return nil, fmt.Errorf("create cgroup %s (v2) with %v CPUs and %d bytes of memory: %w", path, l.CPUs, l.MemoryBytes, err)
	}
	offered, err := controllers(s.v2)
	if err != nil {
		return fail(err)
	}
	var enable []string
	if len(l.Cores) > 0 {
		if !offered["cpuset"] {
			return fail(fmt.Errorf("the cpuset controller is not offered at %s: cannot place on cores %v", s.v2, l.Cores))
		}
		enable = append(enable, "cpuset")
	}
	for _, c := range v2Controllers() {
		if offered[c] {
			enable = append(enable, c)
		}
	}
	m, err := cgroup2.NewManager(s.v2, path, &cgroup2.Resources{})
	if err != nil {
		return fail(err)
	}
	if len(enable) > 0 {
		// This fails where a parent holds processes (the root of a
		// container's cgroup namespace): the group then works for
		// placement and accounting of CPU time, without limits.
		_ = m.ToggleControllers(enable, cgroup2.Enable)
	}
	// What the group got is what counts.
	if offered, err = controllers(g.dirs[0]); err != nil {
		return fail(err)
	}
	res := &cgroup2.Resources{}
	if offered["cpu"] {
		period := uint64(cfsPeriod)
		var quota *int64 // nil: "max", no quota
		if l.CPUs > 0 {
			q := l.quota()
			quota = &q
		}
		res.CPU = &cgroup2.CPU{Max: cgroup2.NewCPUMax(quota, &period)}
	}
	if offered["memory"] && l.MemoryBytes > 0 {
		limit := l.MemoryBytes
		res.Memory = &cgroup2.Memory{Max: &limit}
	}
	if err := m.Update(res); err != nil {
		return fail(err)
	}
	if offered["memory"] && l.MemoryBytes == 0 {
		// A reused group must not keep an old limit.
		if err := os.WriteFile(filepath.Join(g.dirs[0], "memory.max"), []byte("max"), 0); err != nil {
			return fail(err)
		}
	}
	if len(l.Cores) > 0 {
		if err := os.WriteFile(filepath.Join(g.dirs[0], "cpuset.cpus"), []byte(coreList(l.Cores)), 0); err != nil {
			return fail(fmt.Errorf("place on cores %s: %w", coreList(l.Cores), err))
		}
	}
	g.enforced = offered["cpu"] && offered["memory"]
	return g, nil
}

// controllers reads the controllers available in a v2 group.
func controllers(dir string) (map[string]bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, c := range strings.Fields(string(b)) {
		out[c] = true
	}
	return out, nil
}

// OpenDir opens the group's directory (v2), for starting a process right
// into it (clone3 with CLONE_INTO_CGROUP, syscall.SysProcAttr.UseCgroupFD).
func (g *Group) OpenDir() (*os.File, error) {
	if g.mode != V2 || len(g.dirs) != 1 {
		return nil, fmt.Errorf("cgroup %s is not a v2 group", g.path)
	}
	return os.Open(g.dirs[0])
}
