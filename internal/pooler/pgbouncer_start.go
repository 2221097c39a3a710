package pooler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds the wait for a started pgbouncer to listen.
const startTimeout = 30 * time.Second

// Start runs pgbouncer in the foreground (no -d: it stays our child, so
// that its end is seen and a parent death signal reaches it), logging to
// pgbouncer.log in o.Dir.
func (k PgBouncer) Start(ctx context.Context, o Options) (*Process, error) {
	var auth strings.Builder
	for _, line := range o.Secrets {
		role, secret, ok := strings.Cut(line, " ")
		if !ok || strings.ContainsAny(role, "\"\n") || strings.ContainsAny(secret, "\"\n") {
			return nil, fmt.Errorf("pgbouncer: a role's secret is not of the form \"role verifier\"")
		}
		// Only verifiers: pgbouncer then passes the client's own SCRAM
		// proof on to the server ("SCRAM pass-through"), so no password
		// is ever written.
		if !strings.HasPrefix(secret, "SCRAM-SHA-256$") {
			return nil, fmt.Errorf("pgbouncer: role %s has no SCRAM verifier", role)
		}
		fmt.Fprintf(&auth, "%q %q\n", role, secret)
	}
	// The monitor's user of the admin console (Process.Stats): a
	// password of its own, drawn now, which pgbouncer checks with SCRAM.
	statsPassword, err := newStatsPassword()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&auth, "%q %q\n", statsUser, statsPassword)
	authFile, err := writeFile(o, "userlist.txt", auth.String())
	if err != nil {
		return nil, err
	}
	ini, err := writeFile(o, "pgbouncer.ini", k.config(o, authFile))
	if err != nil {
		return nil, err
	}
	logFile := filepath.Join(o.Dir, "pgbouncer.log")
	log, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	if o.Chown != nil {
		if err := o.Chown(logFile); err != nil {
			return nil, err
		}
	}
	cmd, done, err := o.Group.Command(o.Bin, ini)
	if err != nil {
		return nil, err
	}
	cmd.Dir = o.Dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Credential = o.Credential
	if !o.Detached {
		// Nothing of a pooler is worth keeping: it dies with tenantbench.
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if o.Start != nil {
		err = o.Start(cmd)
	} else {
		err = cmd.Start()
	}
	done()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", o.Bin, err)
	}
	p := &Process{Pid: cmd.Process.Pid, LogFile: logFile, exited: make(chan struct{}),
		stats: &statsConn{host: o.listen(), port: o.Port, password: statsPassword}}
	p.retarget = func(host string, port int) error {
		o := o
		o.ServerHost, o.ServerPort = host, port
		if _, err := writeFile(o, "pgbouncer.ini", k.config(o, authFile)); err != nil {
			return err
		}
		// SIGHUP: pgbouncer reloads its configuration; a changed
		// wildcard database re-registers the databases made from it and
		// drops their server connections.
		return syscall.Kill(p.Pid, syscall.SIGHUP)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitReady(ctx, o.listen(), o.Port, startTimeout); err != nil {
		return nil, err
	}
	return p, nil
}

// config is pgbouncer.ini: one wildcard database, so that each tenant's
// database and role pair gets a pool of its own of pool_size server
// connections, reached over the server's unix socket.
func (PgBouncer) config(o Options, authFile string) string {
	var b strings.Builder
	line := func(k string, v any) { fmt.Fprintf(&b, "%s = %v\n", k, v) }
	b.WriteString("[databases]\n")
	fmt.Fprintf(&b, "* = host=%s port=%d\n\n[pgbouncer]\n", o.ServerHost, o.ServerPort)
	line("listen_addr", o.listen())
	line("listen_port", o.Port)
	line("unix_socket_dir", o.SocketDir) // "" is none
	line("auth_type", "scram-sha-256")
	line("auth_file", authFile)
	line("stats_users", statsUser)
	line("pool_mode", o.Mode)
	line("default_pool_size", o.PoolSize)
	line("max_client_conn", max(o.MaxClients, 1))
	// After a server restart (a fault), try its login again soon: the
	// default waits 15 s.
	line("server_login_retry", 1)
	if o.Mode != "session" && atLeast(o.Version, preparedSince) {
		// Protocol-level prepared statements (pgbouncer >= 1.21).
		line("max_prepared_statements", 1000)
	}
	return b.String()
}
