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

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// poolerStopWait is how long a pooler has to end after SIGTERM.
const poolerStopWait = 5 * time.Second

// poolerState is the pooler a server has, nil fields when none runs.
type poolerState struct {
	proc  *pooler.Process
	group *cgroup.Group
	port  int
	// socketDir holds its socket: the server's it was started beside,
	// which a fail-over does not move.
	socketDir string
}

// StartPooler starts the pooler in front of the server (Pooler).
func (p *Process) StartPooler(ctx context.Context, c pooler.Config, secrets []string) (*provider.Pool, error) {
	if p.startPooler == nil {
		return nil, errors.New("the server is not running")
	}
	return p.startPooler(ctx, c, secrets)
}

// PoolerCgroup is the pooler's cgroup (Pooler).
func (p *Process) PoolerCgroup() (path, mode string) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.pooler == nil || p.pooler.CgroupMode == "" {
		return "", "none"
	}
	return p.pooler.Cgroup, p.pooler.CgroupMode
}

// PoolerStats are the running pooler's pools (Pooler), nil without one.
func (p *Process) PoolerStats(ctx context.Context) ([]pooler.PoolStat, error) {
	if p.poolerStats == nil {
		return nil, nil
	}
	return p.poolerStats(ctx)
}

// poolerStats reads srv's pooler, if one runs.
func (srv *server) poolerStats(ctx context.Context) ([]pooler.PoolStat, error) {
	srv.mu.Lock()
	proc := srv.pool.proc
	srv.mu.Unlock()
	if proc == nil {
		return nil, nil
	}
	return proc.Stats(ctx)
}

// startPooler runs the pooler c asks for as the server user, in a cgroup
// of its own beside the server's (/tenantbench/<run>/<name>-pooler), on
// a free port of the server's address (loopback, or the namespace's
// behind sut.network's link) and a unix socket in the server's socket
// directory; it forwards to the server's socket. The pooler's files are
// in the instance's directory, removed with it.
func (p *Provider) startPooler(ctx context.Context, srv *server, c pooler.Config, secrets []string) (pool *provider.Pool, err error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.stopped {
		return nil, fmt.Errorf("instance %s is stopped", srv.inst.Name)
	}
	if srv.pool.proc != nil {
		return nil, fmt.Errorf("instance %s has a pooler already", srv.inst.Name)
	}
	kind, ok := pooler.Lookup(c.Kind)
	if !ok {
		return nil, fmt.Errorf("pooler %q is not known", c.Kind)
	}
	bin, err := kind.Find()
	if err != nil {
		return nil, err
	}
	version, err := kind.Version(bin)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(srv.instDir, "pooler")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := p.account.chown(dir); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			srv.stopPooler()
			err = fmt.Errorf("instance %s: pooler %s: %w", srv.inst.Name, c.Kind, err)
		}
	}()
	if p.cgroups.Mode != cgroup.None {
		path, err := cgroup.GroupPath(p.runName(srv.workDir), srv.inst.Name+"-pooler")
		if err != nil {
			return nil, err
		}
		g, err := p.cgroups.Create(path, cgroup.Limits{})
		if err != nil {
			return nil, err
		}
		srv.pool.group = g
		if g.Mode() == cgroup.V1 && p.account != nil {
			if err := g.Chown(p.account.uid, p.account.gid); err != nil {
				return nil, err
			}
		}
		srv.notePooler()
	}
	o := pooler.Options{Config: c, Bin: bin, Version: version, Dir: dir, Group: srv.pool.group,
		Credential: p.account.credential(), Chown: p.account.chown,
		ServerHost: srv.inst.SocketDir, ServerPort: srv.inst.Port, SocketDir: srv.inst.SocketDir,
		// Every client the server was sized for, and the admin's.
		MaxClients: srv.spec.MaxConnections + 100, Secrets: secrets, Detached: srv.spec.Detached,
		// Beside the server, behind the same link: the clients cross it
		// to the pooler, which reaches the server over its socket.
		Listen: srv.inst.Host, Start: func(cmd *exec.Cmd) error { return startIn(srv.spec.Network, cmd) }}
	if o.ServerHost == "" {
		o.ServerHost = srv.inst.Host
	}
	for attempt := 1; ; attempt++ {
		if o.Port, err = p.pickPort(); err != nil {
			return nil, err
		}
		srv.pool.port, srv.pool.socketDir = o.Port, o.SocketDir
		proc, err := kind.Start(ctx, o)
		if err == nil {
			srv.pool.proc = proc
			break
		}
		if !errors.Is(err, pooler.ErrPortBusy) || attempt == bindAttempts {
			return nil, err
		}
	}
	srv.notePooler()
	pool = &provider.Pool{Endpoint: provider.Endpoint{Host: srv.inst.Host, Port: o.Port, SocketDir: o.SocketDir},
		Config: c, Version: version, NamedStatements: kind.NamedStatements(version, c.Mode)}
	srv.inst.Pool = pool
	return pool, nil
}

// notePooler puts the pooler's process and cgroup in the Process (for
// its Record) and tells the ledger.
func (srv *server) notePooler() {
	r := &provider.PoolerRecord{}
	if srv.pool.proc != nil {
		r.Pid, r.PidStart = srv.pool.proc.Pid, provider.StartTime(srv.pool.proc.Pid)
	}
	if g := srv.pool.group; g != nil {
		r.Cgroup, r.CgroupMode = g.Path(), string(g.Mode())
	}
	proc := Of(srv.inst)
	proc.mu.Lock()
	proc.pooler = r
	proc.mu.Unlock()
	srv.note()
}

// stopPooler ends srv's pooler, if any, removes its cgroup and its
// socket; called with srv.mu held (or before anyone else has srv).
func (srv *server) stopPooler() error {
	var errs []error
	if pr := srv.pool.proc; pr != nil {
		errs = append(errs, pr.Stop(poolerStopWait))
	}
	if g := srv.pool.group; g != nil {
		errs = append(errs, g.Remove(killWait))
	}
	if srv.pool.port != 0 && srv.pool.socketDir != "" {
		// A killed pgbouncer leaves its socket behind.
		_ = os.Remove(filepath.Join(srv.pool.socketDir, fmt.Sprintf(".s.PGSQL.%d", srv.pool.port)))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if srv.pool != (poolerState{}) {
		srv.pool = poolerState{}
		srv.inst.Pool = nil
		proc := Of(srv.inst)
		proc.mu.Lock()
		proc.pooler = nil
		proc.mu.Unlock()
		srv.note()
	}
	return nil
}

// stopPoolerRecord ends a recorded pooler if its pid still is that
// process (same start time) and removes its cgroup: what down does.
func stopPoolerRecord(r *provider.PoolerRecord) error {
	if r.Pid > 0 && r.PidStart != 0 && provider.StartTime(r.Pid) == r.PidStart {
		_ = syscall.Kill(r.Pid, syscall.SIGKILL)
		waitFor(context.Background(), killWait, func() bool { return !alive(r.Pid) }, func() {})
	}
	if r.Cgroup == "" || r.CgroupMode == string(cgroup.None) {
		return nil
	}
	if !strings.HasPrefix(r.Cgroup, cgroup.Root+"/") || filepath.Clean(r.Cgroup) != r.Cgroup {
		return fmt.Errorf("pooler cgroup %q is not tenantbench's", r.Cgroup)
	}
	if sys := cgroup.Detect(); string(sys.Mode) == r.CgroupMode {
		return sys.Open(r.Cgroup).Remove(killWait)
	}
	return nil
}
