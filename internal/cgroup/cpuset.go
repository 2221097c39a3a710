package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/cgroups/v3/cgroup1"
	"golang.org/x/sys/unix"
)

// Cpusets says why the servers cannot be placed on cores here (no
// writable cpuset controller), "" when they can.
func (s System) Cpusets() string {
	switch s.Mode {
	case V1:
		if s.cpuset == "" {
			return "the cgroup v1 cpuset controller is not mounted or not writable (run as root)"
		}
		return ""
	case V2:
		offered, err := controllers(s.v2)
		if err != nil {
			return fmt.Sprintf("cannot read the controllers of cgroup v2 at %s: %v", s.v2, err)
		}
		if !offered["cpuset"] {
			return fmt.Sprintf("cgroup v2 at %s does not offer the cpuset controller", s.v2)
		}
		return ""
	}
	return "cgroups are not available: " + s.Reason
}

// cpusetMount is v1's cpuset hierarchy among subsystems, "" when absent
// or not writable.
func cpusetMount(subsystems []cgroup1.Subsystem) string {
	for _, sub := range subsystems {
		p, ok := sub.(interface{ Path(string) string })
		if !ok || sub.Name() != cgroup1.Cpuset {
			continue
		}
		if dir := p.Path("/"); unix.Access(dir, unix.W_OK) == nil {
			return dir
		}
	}
	return ""
}

// openCpuset adds g's directory in v1's cpuset hierarchy when it exists,
// so that a group given cores is removed whole by another process
// (`down`).
func (s System) openCpuset(g *Group) {
	if s.Mode != V1 || s.cpuset == "" {
		return
	}
	if _, err := os.Stat(filepath.Join(s.cpuset, g.path)); err == nil {
		g.add(s.cpuset, g.path, "cpuset")
	}
}

// placeV1 makes g's directory in the cpuset hierarchy with cores and the
// parent's memory nodes. v1 refuses a task in a cpuset whose cpus or mems
// are empty, and a new cpuset starts empty: each level made on the way
// copies its parent's first.
func (s System) placeV1(g *Group, cores []int) error {
	if len(cores) == 0 {
		return nil
	}
	if s.cpuset == "" {
		return fmt.Errorf("place cgroup %s on cores %s: %s", g.path, coreList(cores), s.Cpusets())
	}
	dir := s.cpuset
	parts := strings.Split(strings.TrimPrefix(g.path, "/"), "/")
	for _, part := range parts {
		parent := dir
		dir = filepath.Join(dir, part)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create cpuset %s: %w", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if err := inherit(parent, dir, f); err != nil {
				return err
			}
		}
	}
	g.add(s.cpuset, g.path, "cpuset") // removed with the group from here on
	if err := os.WriteFile(filepath.Join(dir, "cpuset.cpus"), []byte(coreList(cores)), 0); err != nil {
		return fmt.Errorf("place cgroup %s on cores %s: %w", g.path, coreList(cores), err)
	}
	return nil
}

// inherit copies file from parent to dir when dir's is empty.
func inherit(parent, dir, file string) error {
	own, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(own)) != "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(parent, file))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.TrimSpace(string(b))), 0); err != nil {
		return fmt.Errorf("copy %s of %s: %w", file, parent, err)
	}
	return nil
}

// Cores are the CPUs the group may run on, as its cpuset says (v1: the
// cpuset hierarchy, v2: cpuset.cpus.effective); nil when it has none.
func (g *Group) Cores() ([]int, error) {
	for _, d := range g.dirs {
		for _, f := range []string{"cpuset.effective_cpus", "cpuset.cpus.effective"} {
			b, err := os.ReadFile(filepath.Join(d, f))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			return ParseCores(string(b))
		}
	}
	return nil, nil
}

// coreList writes cores as a cpuset list ("0,1").
func coreList(cores []int) string {
	parts := make([]string, len(cores))
	for i, c := range cores {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// ParseCores reads a cpuset list ("0-2,5").
func ParseCores(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpuset list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpuset list %q: %w", s, err)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
