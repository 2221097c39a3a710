package interfere

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// stressNG is the noise's program: the standard stressor, Debian package
// stress-ng.
const stressNG = "stress-ng"

// stressKind marks the noise kinds: they need stress-ng.
type stressKind interface{ stress() }

// noise is embedded by the noise kinds: stress-ng beside the target
// (or on the host) for the event's duration, which slows its tenants
// without interrupting them, so no F or R is measured after it.
type noise struct{}

func (noise) Lasts() bool { return true }
func (noise) Fault() bool { return false }
func (noise) Host() bool  { return true }
func (noise) stress()     {}

// shareable is a noise's placement: in a cgroup of its own beside the
// target (default), or inside the target's cgroup (share: true), where it
// competes within the target's limits.
type shareable struct{ Share bool }

func (s shareable) shared() bool { return s.Share }

// sharer is the params of a noise that may share its target's cgroup.
type sharer interface{ shared() bool }

// stressRun is what a noise occurrence measured of its stress-ng.
type stressRun struct {
	cpuS  float64       // CPU seconds its processes used
	wall  time.Duration // how long it ran
	where string        // "cgroup /tenantbench/...", "inside t01's cgroup"
}

// runStress runs stress-ng with args for the occurrence's duration, placed
// as share says, and measures the CPU it used: from its own cgroup, or
// from its processes when it shares the target's. It is in the run's
// ledger while it runs; its cgroup is removed after it.
func runStress(ctx context.Context, o *Occurrence, share bool, args []string) (stressRun, error) {
	var out stressRun
	bin, err := exec.LookPath(stressNG)
	if err != nil {
		return out, errors.New("stress-ng is not installed (Debian package stress-ng: apt-get install stress-ng)")
	}
	g, own, err := noiseGroup(o, share)
	if err != nil {
		return out, err
	}
	if own {
		defer func() {
			if rerr := g.Remove(10 * time.Second); rerr != nil && err == nil {
				err = rerr
			}
		}()
		out.where = "cgroup " + g.Path()
	} else if g != nil {
		out.where = o.Target.Name + "'s own cgroup (shared)"
	} else {
		out.where = "no cgroup"
	}
	// A safety net: stress-ng ends by itself a little after the
	// occurrence should have, whatever happens to tenantbench.
	limit := int((o.Event.Duration + 5*time.Second).Seconds())
	args = append(args, "--timeout", fmt.Sprintf("%ds", limit), "--quiet")
	cmd, done, err := g.Command(bin, args...)
	if err != nil {
		return out, err
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cpu0 := groupCPU(g, own)
	start := time.Now()
	err = cmd.Start()
	done()
	if err != nil {
		return out, fmt.Errorf("starting stress-ng: %w", err)
	}
	pid := cmd.Process.Pid
	rec := Process{Name: fmt.Sprintf("%s %s #%d", o.Event.Kind.Name(), o.Event.Path, o.N), Pid: pid, Start: provider.StartTime(pid)}
	if own {
		rec.Cgroup, rec.CgroupMode = g.Path(), string(g.Mode())
	}
	if o.env.Ledger != nil {
		o.env.Ledger.Started(rec)
		defer o.env.Ledger.Ended(rec)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t := time.NewTimer(o.Event.Duration)
	defer t.Stop()
	var early error
	select {
	case <-ctx.Done():
	case <-t.C:
	case werr := <-exited:
		early = fmt.Errorf("stress-ng ended early (%v): %s", werr, strings.TrimSpace(stderr.String()))
		exited <- werr
	}
	// Measured before it is stopped: its processes' times go with them.
	var cpu1 float64
	if own {
		cpu1 = groupCPU(g, own)
	} else {
		cpu1 = treeCPU(pid)
		cpu0 = 0
	}
	out.wall = time.Since(start)
	out.cpuS = cpu1 - cpu0
	stopGroup(pid, exited)
	return out, early
}

// stopGroup ends stress-ng's process group: SIGTERM, then SIGKILL after 2
// s, and reaps it.
func stopGroup(pid int, exited chan error) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	// Workers that outlived their parent for a moment.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// noiseGroup is the cgroup the noise runs in: the target's own (share),
// or a new one beside the target's (below the same run), or beside the
// run's servers for the host; nil when the machine has no writable
// cgroups. The driver's group is given (Env.Driver): sharing it on v1
// means sharing its CPU hierarchies only (cgroup.CreateCPU).
func noiseGroup(o *Occurrence, share bool) (g *cgroup.Group, own bool, err error) {
	sys := cgroup.Detect()
	var targetPath string
	if o.Target.Server != nil {
		targetPath, _ = provider.CgroupOf(o.Target.Server)
	}
	if d := o.Target.Driver; d != nil {
		if share {
			return d, false, nil
		}
		targetPath = d.Path()
	}
	if share {
		if targetPath == "" || sys.Mode == cgroup.None {
			return nil, false, fmt.Errorf("share: true needs a target server in a cgroup (target %s has none)", o.Target.Name)
		}
		return sys.Open(targetPath), false, nil
	}
	if sys.Mode == cgroup.None {
		return nil, false, nil
	}
	parent := ""
	if targetPath != "" {
		parent = filepath.Dir(targetPath)
	} else {
		for _, s := range o.env.Servers {
			if p, _ := provider.CgroupOf(s); p != "" {
				parent = filepath.Dir(p)
				break
			}
		}
	}
	if parent == "" {
		parent = filepath.Join(cgroup.Root, fmt.Sprintf("interfere-%d", os.Getpid()))
	}
	name := strings.NewReplacer("[", "", "]", "").Replace(fmt.Sprintf("noise-%s-%d", o.Event.Path, o.N))
	g, err = sys.Create(filepath.Join(parent, name), cgroup.Limits{})
	if err != nil {
		return nil, false, fmt.Errorf("making the noise's cgroup: %w", err)
	}
	return g, true, nil
}

func groupCPU(g *cgroup.Group, own bool) float64 {
	if !own || g == nil {
		return 0
	}
	s, _ := g.CPUSeconds()
	return s
}

// treeCPU is the CPU time (user + system, children reaped included) of
// the processes of the process group pid leads.
func treeCPU(pgid int) float64 {
	procs, err := procfs.AllProcs()
	if err != nil {
		return 0
	}
	var ticks uint
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || st.PGRP != pgid {
			continue
		}
		ticks += st.UTime + st.STime + uint(max(0, st.CUTime+st.CSTime))
	}
	return float64(ticks) / 100 // USER_HZ
}
