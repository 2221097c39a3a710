package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// enterDriverGroup moves this process, every thread of it (the driver's
// clients are its goroutines), into a cgroup of its own for the workload
// phase when an event targets the driver, so that noise can run beside
// it on the same CPUs or inside it (EDB 2026's remote case: a saturated
// client host). Only then: the process stays where its user started it
// otherwise. The group holds CPU only (cgroup.CreateCPU), so the
// process's memory stays accounted, and limited, where it was. leave
// moves the process back and removes the group; the caller defers it, so
// it runs on failure and Ctrl-C too.
func (e *execution) enterDriverGroup() (leave func() error, err error) {
	leave = func() error { return nil }
	if e.interf == nil || !interfere.TargetsDriver(e.interf.events) {
		return leave, nil
	}
	sys := cgroup.Detect()
	if sys.Mode == cgroup.None {
		return leave, fmt.Errorf("an event targets the driver, which needs cgroups: %s", sys.Reason)
	}
	g, err := sys.CreateCPU(e.driverGroupPath())
	if err != nil {
		return leave, fmt.Errorf("the driver's cgroup: %w", err)
	}
	// In the ledger as a stressor without a process: a tenantbench
	// killed meanwhile leaves the group for `down` to remove.
	rec := interfere.Process{Name: "the driver's cgroup", Cgroup: g.Path(), CgroupMode: string(g.Mode())}
	e.opts.Ledger.Started(rec)
	back, err := g.Join(os.Getpid())
	if err != nil {
		rerr := g.Remove(5 * time.Second)
		if rerr == nil {
			e.opts.Ledger.Ended(rec)
		}
		return leave, errors.Join(fmt.Errorf("moving the driver into its cgroup: %w", err), rerr)
	}
	e.interf.driver = g
	e.logf("driver in cgroup %s", g.Path())
	return func() error {
		e.interf.driver = nil
		if err := back(); err != nil {
			// Not removed: Remove kills what the group holds, here
			// this process.
			return fmt.Errorf("moving the driver back out of cgroup %s (left in place): %w", g.Path(), err)
		}
		if err := g.Remove(5 * time.Second); err != nil {
			return err
		}
		e.opts.Ledger.Ended(rec)
		return nil
	}, nil
}

// driverGroupPath is beside the run's servers' groups, else a group of
// this process's own below cgroup.Root.
func (e *execution) driverGroupPath() string {
	for _, inst := range e.instances {
		if p, _ := provider.CgroupOf(inst); p != "" {
			return filepath.Join(filepath.Dir(p), "driver")
		}
	}
	return fmt.Sprintf("%s/driver-%d/driver", cgroup.Root, os.Getpid())
}
