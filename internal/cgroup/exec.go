package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// joinScript runs as the command's first process: it writes its own pid
// into each cgroup.procs file given before "--", then becomes the command
// (exec keeps the pid), so that the command and all it forks are born in
// the group (v1, where no clone into a group exists).
const joinScript = `for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"`

// Command is a command whose process starts inside g: v2 clones it into
// the group (CLONE_INTO_CGROUP), v1 runs it through a shell that joins the
// group first. A nil g or a group of mode None is an ordinary command.
// done closes what Command opened; call it once the command has started.
func (g *Group) Command(name string, args ...string) (cmd *exec.Cmd, done func(), err error) {
	done = func() {}
	switch {
	case g == nil || g.mode == None:
		cmd = exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	case g.mode == V2:
		dir, err := g.OpenDir()
		if err != nil {
			return nil, done, fmt.Errorf("open cgroup %s: %w", g.path, err)
		}
		cmd = exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
		done = func() { dir.Close() }
	default:
		sh := append([]string{"-c", joinScript, "sh"}, g.ProcsFiles()...)
		sh = append(append(sh, "--", name), args...)
		cmd = exec.Command("/bin/sh", sh...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd, done, nil
}

// CPUSeconds is the CPU time the group's processes have used since it was
// made (v1: cpuacct.usage, v2: cpu.stat usage_usec).
func (g *Group) CPUSeconds() (float64, error) {
	for _, d := range g.dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cpuacct.usage")); err == nil {
			ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			return float64(ns) / 1e9, err
		}
		if b, err := os.ReadFile(filepath.Join(d, "cpu.stat")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "usage_usec" {
					us, err := strconv.ParseInt(f[1], 10, 64)
					return float64(us) / 1e6, err
				}
			}
		}
	}
	return 0, fmt.Errorf("cgroup %s: no CPU accounting file", g.path)
}

// MemoryPeak is the most memory the group's processes held at once since
// it was made (v1: memory.max_usage_in_bytes, v2: memory.peak, kernel
// 5.19 and later; else memory.current, the use now).
func (g *Group) MemoryPeak() (int64, error) {
	for _, name := range []string{"memory.max_usage_in_bytes", "memory.peak", "memory.current"} {
		for _, d := range g.dirs {
			if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
				return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("cgroup %s: no memory accounting file", g.path)
}
