package run

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/provider"
)

var _ interfere.Ledger = (*Ledger)(nil)

// Started records a process the run's interference started (stress-ng),
// so that a tenantbench killed meanwhile leaves a record of it for down.
func (l *Ledger) Started(p interfere.Process) {
	l.change(func(b *LiveBook) { b.Stressors = append(b.Stressors, p) })
}

// Ended forgets a process Started recorded.
func (l *Ledger) Ended(p interfere.Process) {
	l.change(func(b *LiveBook) {
		var out []interfere.Process
		for _, s := range b.Stressors {
			if s.Pid != p.Pid || s.Start != p.Start {
				out = append(out, s)
			}
		}
		b.Stressors = out
	})
}

// endStressor kills a recorded stressor's process group if it is still
// the process recorded (same start time) and removes its cgroup.
func endStressor(p interfere.Process) error {
	if p.Pid > 0 && p.Start != 0 && provider.StartTime(p.Pid) == p.Start {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		_ = syscall.Kill(p.Pid, syscall.SIGKILL)
	}
	if p.Cgroup == "" {
		return nil
	}
	sys := cgroup.Detect()
	if string(sys.Mode) != p.CgroupMode {
		return fmt.Errorf("stressor %s: its cgroup %s is %s, this machine's %s", p.Name, p.Cgroup, p.CgroupMode, sys.Mode)
	}
	err := sys.Open(p.Cgroup).Remove(10 * time.Second)
	if err != nil {
		return errors.Join(fmt.Errorf("stressor %s", p.Name), err)
	}
	return nil
}
