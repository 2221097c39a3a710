package local

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// superuser is the name of every instance's bootstrap superuser.
const superuser = "tenantbench"

// bindAttempts bounds the retries when the chosen port is taken between
// choosing it and the server binding it.
const bindAttempts = 5

// Start creates, configures and starts one server and waits until it
// accepts connections. On any error, ctx cancellation included, it leaves
// nothing behind: no process, no cgroup, no directory.
func (p *Provider) Start(ctx context.Context, s provider.InstanceSpec) (inst *provider.Instance, err error) {
	if !nameRE.MatchString(s.Name) {
		return nil, fmt.Errorf("instance name %q: use letters, digits, '_', '.' and '-' (at most 63)", s.Name)
	}
	if s.WorkDir == "" {
		return nil, fmt.Errorf("instance %s: no work directory given", s.Name)
	}
	eng, es, err := serverEngine(s.Engine)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	for k, v := range s.Settings {
		if err := es.CheckSetting(k, v); err != nil {
			return nil, fmt.Errorf("instance %s: %w", s.Name, err)
		}
	}
	workDir, err := filepath.Abs(s.WorkDir)
	if err != nil {
		return nil, err
	}
	bins, err := p.binaries(ctx, es, s.Version)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", s.Name, err)
	}

	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fmt.Errorf("instance %s: create the work directory: %w", s.Name, err)
	}
	if err := p.account.checkReachable(workDir); err != nil {
		return nil, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	srv := &server{eng: es, progs: bins, instDir: filepath.Join(workDir, s.Name), spec: s, workDir: workDir}
	if err := os.Mkdir(srv.instDir, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("instance %s: %s already exists (left by an earlier run?): remove it or use another work directory", s.Name, srv.instDir)
		}
		return nil, fmt.Errorf("instance %s: %w", s.Name, err)
	}
	defer func() {
		if err != nil {
			err = keepLog(s, srv, err)
			srv.abort()
			err = fmt.Errorf("instance %s: %w", s.Name, err)
		}
	}()
	if err := p.account.chown(srv.instDir); err != nil {
		return nil, err
	}

	inst = &provider.Instance{
		Name:    s.Name,
		Engine:  eng,
		Host:    hostOf(s),
		User:    superuser,
		LogFile: filepath.Join(srv.instDir, es.LogName()),
	}
	newProcess(inst, filepath.Join(srv.instDir, "data"), s)
	srv.inst = inst
	srv.note()
	if err := p.prepareStorage(srv); err != nil {
		return nil, err
	}
	if inst.Password, err = password(); err != nil {
		return nil, err
	}
	if err := p.makeSocketDir(srv); err != nil {
		return nil, err
	}
	if err := p.initdb(ctx, srv); err != nil {
		return nil, err
	}
	if err := p.run(ctx, srv, workDir, s); err != nil {
		return nil, err
	}
	return inst, nil
}

// run puts the server of srv, whose data directory is ready, in its
// cgroup, starts it on a free port (another one if that is taken meanwhile)
// and registers it.
func (p *Provider) run(ctx context.Context, srv *server, workDir string, s provider.InstanceSpec) error {
	srv.spec, srv.workDir = s, workDir
	if err := p.makeCgroup(srv, workDir, s); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err := p.launch(ctx, srv, s)
		if err == nil {
			break
		}
		var busy errPortBusy
		if !errors.As(err, &busy) || attempt == bindAttempts {
			return err
		}
	}
	p.mu.Lock()
	p.servers[srv.inst] = srv
	p.mu.Unlock()
	Of(srv.inst).restart = func(ctx context.Context, crash bool) (time.Time, error) {
		return p.restartInPlace(ctx, srv, crash)
	}
	Of(srv.inst).poolerStats = srv.poolerStats
	if srv.primary == nil { // a standby has none of its own
		p.asPrimary(srv)
	}
	Of(srv.inst).startPooler = func(ctx context.Context, c pooler.Config, secrets []string) (*provider.Pool, error) {
		return p.startPooler(ctx, srv, c, secrets)
	}
	srv.note() // with the port it got
	return nil
}

// password is a fresh superuser password: 32 random bytes, URL-safe so
// that it needs no quoting in a DSN or a pgpass file.
func password() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// socketDirPrefix names socket directories made in the temp directory.
const socketDirPrefix = "tb-sock-"

// maxSocketDir is the longest socket directory whose socket path
// ("<dir>/.s.PGSQL.65535") fits in a unix socket address (108 bytes).
const maxSocketDir = 107 - len("/.s.PGSQL.65535")

// makeSocketDir makes the instance's socket directory, below its own
// directory when the path is short enough, else in the temp directory.
func (p *Provider) makeSocketDir(srv *server) error {
	dir := filepath.Join(srv.instDir, "socket")
	if len(dir) <= maxSocketDir {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
	} else {
		d, err := os.MkdirTemp("", socketDirPrefix+"*")
		if err != nil {
			return fmt.Errorf("make a socket directory: %w", err)
		}
		dir, srv.ownSocketDir = d, true
	}
	srv.inst.SocketDir = dir
	srv.note()
	return p.account.chown(dir)
}

// initdb creates the data directory with the superuser and its password,
// by the engine's initialisation (PostgreSQL's initdb, MariaDB's
// mariadb-install-db). The password travels in files only the server user
// can read, removed right after: never on a command line, never in a log.
func (p *Provider) initdb(ctx context.Context, srv *server) error {
	args, files, err := srv.eng.InitCommand(srv.progs, srv.instDir, Of(srv.inst).DataDir, superuser, srv.inst.Password)
	if err != nil {
		return err
	}
	for _, f := range files {
		defer os.Remove(f.Path)
		if err := os.WriteFile(f.Path, f.Data, 0o600); err != nil {
			return err
		}
		if err := p.account.chown(f.Path); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = srv.instDir // the server user may not enter the caller's directory
	cmd.Env = serverEnv()
	// Its own process group, so that cancelling kills initdb and the
	// bootstrap backend it runs.
	// Killed with tenantbench: a half-made data directory is of no use.
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

// serverEnv is the environment of initdb and the server: fixed, so that
// the caller's PG* variables or locale do not change the servers.
func serverEnv() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
}

// makeCgroup creates the instance's cgroup when cgroups are writable.
// Every instance gets one, with or without limits, so that every tenancy
// model is accounted the same way.
func (p *Provider) makeCgroup(srv *server, workDir string, s provider.InstanceSpec) error {
	if p.cgroups.Mode == cgroup.None {
		if len(s.Cores) > 0 {
			return fmt.Errorf("cores %v asked, but no cgroups are writable here: %s", s.Cores, p.cgroups.Reason)
		}
		return nil
	}
	path, err := cgroup.GroupPath(p.runName(workDir), s.Name)
	if err != nil {
		return err
	}
	g, err := p.cgroups.Create(path, cgroup.Limits{CPUs: s.CPUs, MemoryBytes: s.MemoryBytes, Cores: s.Cores})
	if err != nil {
		return err
	}
	srv.group = g
	if g.Mode() == cgroup.V1 && p.account != nil {
		// The server joins its group itself, as the server user.
		if err := g.Chown(p.account.uid, p.account.gid); err != nil {
			return err
		}
	}
	Of(srv.inst).CgroupPath = g.Path()
	Of(srv.inst).group = g
	Of(srv.inst).CgroupMode = string(g.Mode())
	// In force only when asked for: a server without limits runs
	// unlimited, whatever the cgroup could enforce.
	srv.inst.LimitsEnforced = g.LimitsEnforced() && (s.CPUs > 0 || s.MemoryBytes > 0)
	srv.note()
	return nil
}

// errPortBusy: the server could not bind its port, taken since it was
// chosen; another one is tried.
type errPortBusy struct {
	port int
	err  error // with the log
}

func (e errPortBusy) Error() string { return fmt.Sprintf("port %d is taken: %v", e.port, e.err) }

// launch starts the server on a free port and waits until it is ready.
// If it does not get ready, it is stopped again before returning.
func (p *Provider) launch(ctx context.Context, srv *server, s provider.InstanceSpec) error {
	port, err := p.pickPort()
	if err != nil {
		return err
	}
	srv.inst.Port = port
	conf := dbserver.Config{
		DataDir:        Of(srv.inst).DataDir,
		Port:           port,
		SocketDir:      srv.inst.SocketDir,
		MaxConnections: s.MaxConnections,
		Name:           s.Name,
		Settings:       s.Settings,
	}
	if n := s.Network; n != nil {
		conf.Listen, conf.Clients = n.NSAddr, n.Subnet
	}
	if err := srv.eng.WriteConfig(srv.progs, conf); err != nil {
		return err
	}
	srv.conf = conf // a restart in place starts the same server again
	if err := p.startProcess(srv, conf); err != nil {
		return err
	}
	version, err := waitReady(ctx, srv, p.opts.StartTimeout)
	if err != nil {
		// Stopped here rather than by the caller: a retry starts a new
		// process in the same data directory.
		_ = srv.terminate(context.Background(), 0)
		// Nobody holds the instance yet: a retry's server gets an Exited
		// of its own, not the one this process's end closed.
		srv.life, srv.lifeOnce = nil, sync.Once{}
		if srv.eng.PortTaken(err.Error()) {
			return errPortBusy{port, err}
		}
		return err
	}
	srv.inst.Version = version
	return nil
}

// waitReady connects as the superuser over the socket until it works, and
// returns the server's version. It fails at once, with the end of the
// log, if the server exits.
func waitReady(ctx context.Context, srv *server, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := srv.inst.Engine.Connect(cctx, srv.inst.AdminDSN(srv.eng.MaintenanceDatabase()))
		cancel()
		if err == nil {
			v := conn.ServerVersion()
			_ = conn.Close(context.Background())
			return v, nil
		}
		last = err
		select {
		case <-srv.exited:
			return "", fmt.Errorf("the server exited while starting (%s); the end of its log:\n%s",
				srv.cmd.ProcessState, logTail(srv.inst.LogFile, 20))
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the server did not accept connections within %v (last error: %v); the end of its log:\n%s",
				timeout, last, logTail(srv.inst.LogFile, 20))
		}
	}
}

// abort undoes a failed Start: stops the process if there is one, removes
// the cgroup and every file.
func (srv *server) abort() {
	_ = srv.stopPooler()
	if srv.cmd != nil {
		_ = srv.terminate(context.Background(), 0)
	}
	if srv.group != nil {
		_ = srv.group.Remove(10 * time.Second)
	}
	if srv.ownSocketDir && srv.inst != nil {
		_ = os.RemoveAll(srv.inst.SocketDir)
	}
	if srv.inst != nil {
		_ = srv.releaseStorage()
	}
	_ = os.RemoveAll(srv.instDir)
	srv.forget()
}

// keepLog adds to err, the error of a failed start, where the server's
// log was kept (InstanceSpec.KeepLog): abort removes the original.
func keepLog(s provider.InstanceSpec, srv *server, err error) error {
	if s.KeepLog == nil || srv.inst == nil {
		return err
	}
	if _, serr := os.Stat(srv.inst.LogFile); serr != nil {
		return err
	}
	return fmt.Errorf("%w (%s)", err, s.KeepLog(s.Name, srv.inst.LogFile))
}

// logTail is the end of a log file, for error messages.
func logTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	// The last 16 KiB hold the last lines; the log may be long.
	if fi, err := f.Stat(); err == nil && fi.Size() > 16<<10 {
		_, _ = f.Seek(-16<<10, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return tail(b, lines)
}

func tail(b []byte, lines int) string {
	s := strings.TrimRight(string(b), "\n")
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// errorLines is the end of a program's output, after the lines that name
// an error if any come earlier (mariadb-install-db prints its advice after
// the server's error).
func errorLines(out []byte, lines int) string {
	var errs []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "[Error]") {
			errs = append(errs, l)
		}
	}
	if len(errs) > 10 {
		errs = errs[len(errs)-10:]
	}
	t := tail(out, lines)
	if len(errs) == 0 {
		return t
	}
	return strings.Join(errs, "\n") + "\n...\n" + t
}

// hostOf is the address the server of s listens on: loopback, or the
// namespace's end of the link (sut.network), which the clients cross.
func hostOf(s provider.InstanceSpec) string {
	if s.Network != nil {
		return s.Network.NSAddr
	}
	return "127.0.0.1"
}
