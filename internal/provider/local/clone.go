package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Cloning: a loaded server is stopped (Stop: a fast shutdown, which ends
// with a checkpoint and leaves a consistent data directory), copied for
// every server that should hold the same data (Clone), and started again
// (Restart).

// stoppedServer is the bookkeeping of inst, which must have been stopped.
func (p *Provider) stoppedServer(inst *provider.Instance) (*server, error) {
	srv, err := p.serverOf(inst)
	if err != nil {
		return nil, err
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !srv.stopped {
		return nil, fmt.Errorf("instance %s is running: stop it before copying or restarting it", inst.Name)
	}
	return srv, nil
}

// Clone starts a new server, named and limited as s says, on a copy of the
// data directory of src, a server of this provider that has been stopped.
// The copy is made by the user the servers run as (cp -a), so that its
// files keep the owner and modes PostgreSQL insists on. The new server has
// its own directory, port, socket, cgroup and log, and a superuser password
// of its own: the copy comes with src's, which Clone replaces before
// returning. copied is how long the copy of the files took. Several clones
// of one src may be made at once; src must stay stopped meanwhile. On any
// error Clone leaves nothing behind, as Start.
func (p *Provider) Clone(ctx context.Context, src *provider.Instance, s provider.InstanceSpec) (inst *provider.Instance, copied time.Duration, err error) {
	if !nameRE.MatchString(s.Name) {
		return nil, 0, fmt.Errorf("instance name %q: use letters, digits, '_', '.' and '-' (at most 63)", s.Name)
	}
	if s.WorkDir == "" {
		return nil, 0, fmt.Errorf("instance %s: no work directory given", s.Name)
	}
	old, err := p.stoppedServer(src)
	if err != nil {
		return nil, 0, err
	}
	// The copy runs the engine of the data it copies.
	eng, es := src.Engine, old.eng
	for k, v := range s.Settings {
		if err := es.CheckSetting(k, v); err != nil {
			return nil, 0, fmt.Errorf("instance %s: %w", s.Name, err)
		}
	}
	workDir, err := filepath.Abs(s.WorkDir)
	if err != nil {
		return nil, 0, err
	}
	bins, err := p.binaries(ctx, es, s.Version)
	if err != nil {
		return nil, 0, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, 0, fmt.Errorf("instance %s: create the work directory: %w", s.Name, err)
	}
	if err := p.account.checkReachable(workDir); err != nil {
		return nil, 0, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	srv := &server{eng: es, progs: bins, instDir: filepath.Join(workDir, s.Name), spec: s, workDir: workDir}
	if err := os.Mkdir(srv.instDir, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, 0, fmt.Errorf("instance %s: %s already exists (left by an earlier run?): remove it or use another work directory", s.Name, srv.instDir)
		}
		return nil, 0, fmt.Errorf("instance %s: %w", s.Name, err)
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
			err = fmt.Errorf("instance %s: %w", s.Name, err)
		}
	}()
	if err := p.account.chown(srv.instDir); err != nil {
		return nil, 0, err
	}
	own, err := password()
	if err != nil {
		return nil, 0, err
	}
	inst = &provider.Instance{
		Name:     s.Name,
		Engine:   eng,
		Host:     hostOf(s),
		User:     superuser,
		Password: src.Password, // the copy's, until replaced below
		LogFile:  filepath.Join(srv.instDir, es.LogName()),
	}
	newProcess(inst, filepath.Join(srv.instDir, "data"), s)
	srv.inst = inst
	srv.note()
	if err := p.prepareStorage(srv); err != nil {
		return nil, 0, err
	}
	if err := p.makeSocketDir(srv); err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if err := p.copyDataDir(ctx, Of(src).DataDir, srv); err != nil {
		return nil, 0, err
	}
	copied = time.Since(start)
	if err := p.run(ctx, srv, workDir, s); err != nil {
		return nil, 0, err
	}
	registered = true
	if err := setSuperuserPassword(ctx, inst, own); err != nil {
		return nil, 0, err
	}
	inst.Password = own
	return inst, copied, nil
}

// copyDataDir copies the data directory from into srv's, as the server
// user, keeping modes and times.
func (p *Provider) copyDataDir(ctx context.Context, from string, srv *server) error {
	// The contents ("from/."): the data directory may exist already, the
	// mount point of its own file system (sut.storage).
	cmd := exec.CommandContext(ctx, "cp", "-a", "--", from+"/.", Of(srv.inst).DataDir)
	cmd.Dir = srv.instDir
	cmd.Env = serverEnv()
	// Killed with tenantbench, as initdb.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: p.account.credential(), Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("copying the data directory %s: %v: %s", from, err, tail(out, 10))
	}
	// A server stopped cleanly leaves no postmaster.pid; one killed
	// leaves it, and the copy must not look in use.
	_ = os.Remove(srv.eng.PidFile(Of(srv.inst).DataDir))
	return nil
}

// setSuperuserPassword replaces the superuser's password of inst, which
// accepts inst.Password now. The statements carry the password's hash, not
// the password (the engine's Admin.SetPassword): the copy may log every
// statement.
func setSuperuserPassword(ctx context.Context, inst *provider.Instance, pw string) error {
	admin, ok := inst.Engine.(engine.Admin)
	if !ok {
		return fmt.Errorf("engine %s has no admin SQL to set the copy's superuser password with", inst.Engine.Name())
	}
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(admin.MaintenanceDatabase()))
	if err != nil {
		return fmt.Errorf("connecting to the copy as superuser: %w", err)
	}
	defer conn.Close(context.Background())
	for _, st := range admin.SetPassword(superuser, pw) {
		if err := conn.Exec(ctx, st); err != nil {
			return fmt.Errorf("setting the copy's superuser password: %w", err)
		}
	}
	return nil
}

// Restart starts the server of inst, stopped by Stop, again on its data
// directory, with the spec it was started with: a new cgroup at the same
// path with the same limits, a free port (the old one if it is still
// free), the same socket directory and log. It returns a new Instance for
// it; inst stays stopped (Stop of it does nothing) and must not be read by
// anyone while Restart runs. On error the data directory is kept.
func (p *Provider) Restart(ctx context.Context, inst *provider.Instance) (*provider.Instance, error) {
	old, err := p.stoppedServer(inst)
	if err != nil {
		return nil, err
	}
	bins, err := p.binaries(ctx, old.eng, old.spec.Version)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	again := &provider.Instance{Name: inst.Name, Engine: inst.Engine, Host: inst.Host, User: inst.User, Password: inst.Password,
		LogFile: inst.LogFile, SocketDir: inst.SocketDir}
	newProcess(again, Of(inst).DataDir, old.spec)
	// The same data directory on the same file systems.
	Of(again).mounts = append([]provider.Mount(nil), Of(inst).mounts...)
	srv := &server{eng: old.eng, progs: bins, instDir: old.instDir, inst: again, spec: old.spec, workDir: old.workDir}
	if old.ownSocketDir {
		// Stop removed the socket directory it had made.
		if err := p.makeSocketDir(srv); err != nil {
			return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
		}
	}
	if err := p.run(ctx, srv, old.workDir, old.spec); err != nil {
		if srv.group != nil {
			_ = srv.group.Remove(killWait)
		}
		if srv.ownSocketDir {
			_ = os.RemoveAll(srv.inst.SocketDir)
		}
		srv.forget() // the data directory is the run's to remove
		return nil, fmt.Errorf("instance %s: restart: %w", inst.Name, err)
	}
	return again, nil
}
