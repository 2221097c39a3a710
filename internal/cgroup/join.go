package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// CreateCPU makes a group at path that holds CPU only: on v1 in the cpu
// and cpuacct hierarchies alone, so that a process moved into it keeps
// its memory, IO and pids accounting (and any limit its user set there)
// where it was; on v2, where one group holds every controller, it is
// Create without limits.
func (s System) CreateCPU(path string) (*Group, error) {
	if s.Mode != V1 {
		return s.Create(path, Limits{})
	}
	cpu := System{Mode: V1, v1: map[cgroup1.Name]string{}}
	for _, n := range []cgroup1.Name{cgroup1.Cpu, cgroup1.Cpuacct} {
		if m, ok := s.v1[n]; ok {
			cpu.v1[n] = m
		}
	}
	if len(cpu.v1) == 0 {
		return nil, errors.New("no cgroup v1 cpu or cpuacct hierarchy is mounted")
	}
	return cpu.Create(path, Limits{})
}

// Join moves process pid, every thread of it (cgroup.procs), into g and
// returns back, which moves it to the groups it was in before, hierarchy
// by hierarchy. Call back before removing g: Remove kills what g holds.
// On an error nothing is left moved.
func (g *Group) Join(pid int) (back func() error, err error) {
	if g == nil || g.mode == None {
		return nil, errors.New("no cgroup to join")
	}
	was, err := groupsOf(pid)
	if err != nil {
		return nil, err
	}
	var from []string // where pid was, for each dir of g moved so far
	back = func() error {
		var errs []error
		for i := range from {
			errs = append(errs, writePid(filepath.Join(g.tops[i], from[i], "cgroup.procs"), pid))
		}
		return errors.Join(errs...)
	}
	for i, dir := range g.dirs {
		p, ok := was[g.ctrls[i]]
		if !ok {
			return nil, errors.Join(fmt.Errorf("process %d is in no %q cgroup (/proc/%d/cgroup)", pid, g.ctrls[i], pid), back())
		}
		if err := writePid(filepath.Join(dir, "cgroup.procs"), pid); err != nil {
			return nil, errors.Join(err, back())
		}
		from = append(from, p)
	}
	return back, nil
}

func writePid(file string, pid int) error {
	if err := os.WriteFile(file, []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move process %d into %s: %w", pid, filepath.Dir(file), err)
	}
	return nil
}

// groupsOf reads /proc/<pid>/cgroup: the group of each v1 controller
// (one line may name several, "cpu,cpuacct") and of v2 (key "").
func groupsOf(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			out[""] = f[2]
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out, nil
}
