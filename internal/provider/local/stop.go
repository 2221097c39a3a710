package local

import (
	"context"
	"fmt"
	"os"
	"sort"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// immediateWait is how long the engine's faster shutdown (PostgreSQL's
// immediate one, SIGQUIT) may take before SIGKILL. The postmaster itself
// SIGKILLs its children 5 s after SIGQUIT, so a little more is enough.
const immediateWait = 6 * time.Second

// killWait bounds the wait for SIGKILLed processes to disappear.
const killWait = 10 * time.Second

// Stop shuts the server down: the engine's clean shutdown (PostgreSQL's
// fast one, SIGINT), after StopTimeout its faster one (SIGQUIT), then SIGKILL of its process group and of
// every process left of it; it waits until none remains and removes the
// cgroup and a leftover socket. The data directory stays. Stop may be
// called again, and after the server died. A cancelled ctx skips the
// waits for a clean shutdown, not the cleanup.
func (p *Provider) Stop(ctx context.Context, inst *provider.Instance) error {
	srv, err := p.serverOf(inst)
	if err != nil {
		return err
	}
	// Its standbys before it (not under its lock: each drops its slot
	// on it), so that none is left streaming from nothing.
	rerr := p.stopReplicas(ctx, srv)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.stopped {
		return rerr
	}
	if rerr != nil {
		return fmt.Errorf("stop instance %s: %w", inst.Name, rerr)
	}
	// The pooler first: its clients see it go, not a server behind it.
	if err := srv.stopPooler(); err != nil {
		return fmt.Errorf("stop instance %s: %w", inst.Name, err)
	}
	err = srv.terminate(ctx, p.opts.StopTimeout)
	if err == nil && srv.group != nil {
		err = srv.group.Remove(killWait)
	}
	removeSocket(srv.eng, inst.SocketDir, inst.Port)
	if srv.ownSocketDir {
		_ = os.Remove(inst.SocketDir)
	}
	if err != nil {
		return fmt.Errorf("stop instance %s: %w", inst.Name, err)
	}
	srv.stopped = true
	if err := srv.releaseSlot(ctx); err != nil {
		return fmt.Errorf("stop instance %s: %w", inst.Name, err)
	}
	Of(inst).mu.RLock()
	mounted := len(Of(inst).mounts) > 0
	Of(inst).mu.RUnlock()
	if !mounted {
		srv.forget()
	}
	// else the ledger keeps the server's mounts until Remove.
	return nil
}

// Remove unmounts the file systems made for a stopped server's data
// (sut.storage) and removes their images, so that its directory can go;
// the server is then forgotten by the ledger. Nothing to do for a server
// on the work directory's file system.
func (p *Provider) Remove(ctx context.Context, inst *provider.Instance) error {
	srv, err := p.serverOf(inst)
	if err != nil {
		return err
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !srv.stopped {
		return fmt.Errorf("instance %s: stop it before removing its storage", inst.Name)
	}
	if err := srv.releaseStorage(); err != nil {
		return fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	srv.forget()
	return nil
}

// serverOf is the bookkeeping of inst, which this provider started.
func (p *Provider) serverOf(inst *provider.Instance) (*server, error) {
	p.mu.Lock()
	srv := p.servers[inst]
	p.mu.Unlock()
	if srv == nil {
		return nil, fmt.Errorf("instance %s was not started by this provider", inst.Name)
	}
	return srv, nil
}

// terminate stops this provider's own child process.
func (srv *server) terminate(ctx context.Context, fast time.Duration) error {
	gone := func() bool {
		select {
		case <-srv.exited:
			return true
		default:
			return false
		}
	}
	return terminate(ctx, srv.eng, srv.cmd.Process.Pid, gone, srv.group, fast)
}

// terminate stops the server whose postmaster is pid and waits until no
// process of it remains: a fast shutdown for up to fast, an immediate one,
// then SIGKILL; fast < 0 goes to SIGKILL at once (a crash). gone reports
// whether the postmaster has exited.
// The postmaster's children leave its process group (each calls setsid),
// so they are found through the cgroup and the process tree, remembered
// while the postmaster lives: once it is gone they are orphans.
func terminate(ctx context.Context, eng engine.Server, pid int, gone func() bool, group *cgroup.Group, fast time.Duration) error {
	tree := map[int]bool{}
	remember := func() {
		for _, d := range descendants(pid) {
			tree[d] = true
		}
	}
	remember()
	clean, faster := eng.StopSignals()
	steps := []struct {
		sig  syscall.Signal
		wait time.Duration
	}{
		{clean, fast},           // PostgreSQL: abort transactions, checkpoint
		{faster, immediateWait}, // PostgreSQL: no checkpoint, recovery at next start
	}
	for _, st := range steps {
		if gone() || fast < 0 {
			break // fast < 0: a crash, SIGKILL at once
		}
		if ctx.Err() != nil || st.wait <= 0 {
			continue // no time for this step
		}
		_ = syscall.Kill(pid, st.sig)
		waitFor(ctx, st.wait, gone, remember)
	}
	if !gone() {
		remember()
		// The group holds the postmaster (and any child not yet past
		// its setsid); the pid is still ours since it has not exited.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		waitFor(context.Background(), killWait, gone, func() {})
		if !gone() {
			return fmt.Errorf("server process %d survived SIGKILL for %v", pid, killWait)
		}
	}

	deadline := time.Now().Add(killWait)
	for {
		left := map[int]bool{}
		for p := range tree {
			if alive(p) {
				left[p] = true
			}
		}
		if group != nil {
			procs, err := group.Procs()
			if err != nil {
				return err
			}
			for _, p := range procs {
				left[p] = true
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v of the server survived SIGKILL for %v", sortedPids(left), killWait)
		}
		for p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor polls until done() or the time is up, calling each() meanwhile.
func waitFor(ctx context.Context, d time.Duration, done func() bool, each func()) {
	deadline := time.Now().Add(d)
	for !done() && time.Now().Before(deadline) {
		each()
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// removeSocket deletes the socket files, which a killed server leaves
// behind.
func removeSocket(eng engine.Server, dir string, port int) {
	if dir == "" || port == 0 {
		return
	}
	for _, f := range eng.SocketFiles(dir, port) {
		_ = os.Remove(f)
	}
}

func sortedPids(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}
