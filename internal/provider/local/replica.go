package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Hot standbys (sut.replicas): each a base backup of the running primary
// (the engine's engine.Replicator: PostgreSQL's pg_basebackup through a
// replication slot of its own), started as a server of its own beside the
// primary: its own directory, port, socket, log, ledger record, and a
// cgroup with the primary's limits. The primary's Stop stops them first;
// each standby's Stop drops its slot on the primary.

// streamWait bounds the wait for a started standby to stream from its
// primary.
const streamWait = 30 * time.Second

// startReplicas is Process.StartReplicas for the server prim.
func (p *Provider) startReplicas(ctx context.Context, prim *server, n int, sync bool) (out []*provider.Instance, err error) {
	rep, ok := prim.inst.Engine.(engine.Replicator)
	if !ok {
		return nil, fmt.Errorf("instance %s: engine %s cannot have replicas", prim.inst.Name, prim.inst.Engine.Name())
	}
	prim.mu.Lock()
	stopped := prim.stopped
	prim.mu.Unlock()
	prim.replMu.Lock()
	first := len(prim.replicas) + 1
	prim.replMu.Unlock()
	if stopped {
		return nil, fmt.Errorf("instance %s is stopped", prim.inst.Name)
	}
	var made []*server
	defer func() {
		if err != nil {
			for _, r := range made {
				_ = p.stopReplica(context.WithoutCancel(ctx), r)
			}
		}
	}()
	// One after the other: each base backup reads the whole primary, and
	// in parallel they would only share its disk and CPU.
	for k := first; k < first+n; k++ {
		r, err := p.startReplica(ctx, prim, rep, k)
		if err != nil {
			return nil, err
		}
		made = append(made, r)
	}
	if err := waitStreaming(ctx, prim, rep, made); err != nil {
		return nil, err
	}
	prim.replMu.Lock()
	prim.replicas = append(prim.replicas, made...)
	all := prim.replicas
	prim.replMu.Unlock()
	if sync {
		var names []string
		for _, r := range all {
			names = append(names, r.inst.Name)
		}
		if err := adminExec(ctx, prim.inst, rep.Synchronous(names)...); err != nil {
			return nil, fmt.Errorf("instance %s: making its replicas synchronous: %w", prim.inst.Name, err)
		}
		prim.replMu.Lock()
		prim.syncStandbys = true
		prim.replMu.Unlock()
	}
	for _, r := range made {
		out = append(out, r.inst)
	}
	return out, nil
}

// startReplica makes and starts standby k of prim. On error it leaves
// nothing, as Start: no process, cgroup, directory or slot.
func (p *Provider) startReplica(ctx context.Context, prim *server, rep engine.Replicator, k int) (srv *server, err error) {
	s := prim.spec
	s.Name = fmt.Sprintf("%s-r%d", prim.spec.Name, k)
	if !nameRE.MatchString(s.Name) {
		return nil, fmt.Errorf("replica name %q: use letters, digits, '_', '.' and '-' (at most 63)", s.Name)
	}
	srv = &server{eng: prim.eng, progs: prim.progs, instDir: filepath.Join(prim.workDir, s.Name), spec: s,
		workDir: prim.workDir, primary: prim, slot: slotName(s.Name)}
	if err := os.Mkdir(srv.instDir, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("instance %s: %s already exists (left by an earlier run?)", s.Name, srv.instDir)
		}
		return nil, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	registered := false
	defer func() {
		if err != nil {
			if registered {
				p.mu.Lock()
				delete(p.servers, srv.inst)
				p.mu.Unlock()
			}
			err = keepLog(s, srv, err)
			srv.abort()
			_ = dropSlot(context.WithoutCancel(ctx), prim, rep, srv.slot)
			err = fmt.Errorf("instance %s: %w", s.Name, err)
		}
	}()
	if err := p.account.chown(srv.instDir); err != nil {
		return nil, err
	}
	inst := &provider.Instance{Name: s.Name, Engine: prim.inst.Engine, Host: hostOf(s), User: superuser,
		Password: prim.inst.Password, // the copy's: it is the primary's data
		LogFile:  filepath.Join(srv.instDir, prim.eng.LogName())}
	newProcess(inst, filepath.Join(srv.instDir, "data"), s)
	Of(inst).primary = prim.inst // nobody else has inst yet
	srv.inst = inst
	srv.note()
	if err := p.prepareStorage(srv); err != nil {
		return nil, err
	}
	if err := p.makeSocketDir(srv); err != nil {
		return nil, err
	}
	if err := p.baseBackup(ctx, prim, rep, srv); err != nil {
		return nil, err
	}
	if err := p.run(ctx, srv, srv.workDir, s); err != nil {
		return nil, err
	}
	registered = true
	return srv, nil
}

// baseBackup copies the running primary into srv's data directory, as the
// server user, the password in the command's environment only.
func (p *Provider) baseBackup(ctx context.Context, prim *server, rep engine.Replicator, srv *server) error {
	args, env := rep.BaseBackup(prim.progs, dbserver.Standby{SocketDir: prim.inst.SocketDir, Port: prim.inst.Port,
		User: prim.inst.User, Password: prim.inst.Password, DataDir: Of(srv.inst).DataDir, Slot: srv.slot})
	if _, err := os.Stat(args[0]); err != nil {
		return fmt.Errorf("no %s beside the server program (%v): a standby is a copy it makes", filepath.Base(args[0]), err)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = srv.instDir
	cmd.Env = append(serverEnv(), env...)
	// Killed with tenantbench, as initdb: a half-made copy is of no use.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: p.account.credential(), Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%s failed (%v): %s", filepath.Base(args[0]), err, errorLines(out, 20))
	}
	return nil
}

// waitStreaming waits until the primary sees each standby of rs streaming.
func waitStreaming(ctx context.Context, prim *server, rep engine.Replicator, rs []*server) error {
	var names []string
	for _, r := range rs {
		names = append(names, r.inst.Name)
	}
	deadline := time.Now().Add(streamWait)
	for {
		got, err := adminStrings(ctx, prim.inst, rep.Streaming(), names)
		if err == nil && len(got) == 1 && got[0] == fmt.Sprint(len(names)) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("instance %s: replicas %s not streaming after %v (%v, %v)", prim.inst.Name,
				strings.Join(names, ", "), streamWait, got, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stopReplicas stops prim's standbys, before prim itself: the primary
// first stops waiting for them at commit.
func (p *Provider) stopReplicas(ctx context.Context, prim *server) error {
	prim.replMu.Lock()
	rs, sync := prim.replicas, prim.syncStandbys
	prim.replMu.Unlock()
	if len(rs) == 0 {
		return nil
	}
	if rep, ok := prim.inst.Engine.(engine.Replicator); ok && sync {
		_ = adminExec(ctx, prim.inst, rep.Synchronous(nil)...) // a dead primary waits for nobody
	}
	var errs []error
	for _, r := range rs {
		errs = append(errs, p.stopReplica(ctx, r))
	}
	return errors.Join(errs...)
}

// stopReplica stops the standby r; Stop removes its slot on the primary.
// A storage of its own (sut.storage) stays for Remove, as a primary's.
func (p *Provider) stopReplica(ctx context.Context, r *server) error {
	if r.inst == nil {
		return nil
	}
	return p.Stop(ctx, r.inst)
}

// releaseSlot drops the slot of srv, a standby that has stopped, on its
// primary; nothing for a primary.
func (srv *server) releaseSlot(ctx context.Context) error {
	if srv.primary == nil {
		return nil
	}
	rep, ok := srv.primary.inst.Engine.(engine.Replicator)
	if !ok {
		return nil
	}
	return dropSlot(ctx, srv.primary, rep, srv.slot)
}

// dropSlot drops the slot on the primary once its walsender has let go
// of it (a moment after the standby stopped); nothing to do when the
// primary is down, the slot then goes with its data directory.
func dropSlot(ctx context.Context, prim *server, rep engine.Replicator, slot string) error {
	deadline := time.Now().Add(killWait)
	for {
		select {
		case <-prim.exited:
			return nil
		default:
		}
		_, err := adminStrings(ctx, prim.inst, rep.DropSlot(), slot)
		if err != nil {
			return fmt.Errorf("dropping replication slot %s: %w", slot, err)
		}
		left, err := adminStrings(ctx, prim.inst, "SELECT slot_name::text FROM pg_replication_slots WHERE slot_name = $1", slot)
		if err == nil && len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("replication slot %s still in use on %s after %v", slot, prim.inst.Name, killWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// slotName is a replication slot's name for the standby named name:
// lower-case letters, digits and underscores only.
func slotName(name string) string {
	return "tenantbench_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, name)
}

// adminExec runs statements as the superuser on inst's maintenance
// database.
func adminExec(ctx context.Context, inst *provider.Instance, statements ...string) error {
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(maintenanceDB(inst)))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, st := range statements {
		if err := conn.Exec(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// adminStrings runs query as the superuser on inst's maintenance database
// and returns its first column.
func adminStrings(ctx context.Context, inst *provider.Instance, query string, args ...any) ([]string, error) {
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(maintenanceDB(inst)))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.QueryStrings(ctx, query, args...)
}

func maintenanceDB(inst *provider.Instance) string {
	if s, ok := inst.Engine.(engine.Server); ok {
		return s.MaintenanceDatabase()
	}
	return ""
}

// StartReplicas starts n hot standbys of the server (provider.Replicated).
func (p *Process) StartReplicas(ctx context.Context, n int, sync bool) ([]*provider.Instance, error) {
	p.mu.RLock()
	start := p.startReplicas
	p.mu.RUnlock()
	if start == nil {
		return nil, errors.New("the server is not running, or is a standby")
	}
	return start(ctx, n, sync)
}

// Replicas are the standbys started so far.
func (p *Process) Replicas() []*provider.Instance {
	p.mu.RLock()
	replicas := p.replicas
	p.mu.RUnlock()
	if replicas == nil {
		return nil
	}
	return replicas()
}

// PrimaryOf is the server a standby follows, nil for a primary.
func (p *Process) PrimaryOf() *provider.Instance {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.primary
}

// replicaInstances are srv's standbys' instances.
func (srv *server) replicaInstances() []*provider.Instance {
	srv.replMu.Lock()
	defer srv.replMu.Unlock()
	out := make([]*provider.Instance, len(srv.replicas))
	for i, r := range srv.replicas {
		out[i] = r.inst
	}
	return out
}
