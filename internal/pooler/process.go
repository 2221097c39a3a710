package pooler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

// Options say how to run one pooler in front of one server.
type Options struct {
	Config
	Bin     string // the program (Kind.Find)
	Version string // its version (Kind.Version)
	// Dir is the pooler's own directory: its configuration, auth file
	// and log. It exists and the pooler's user may write in it.
	Dir string
	// Group is the pooler's cgroup, nil for none: it runs there from its
	// first instruction.
	Group *cgroup.Group
	// Credential runs the pooler as another user (pgbouncer refuses to
	// run as root); nil: this process's.
	Credential *syscall.Credential
	// Chown gives a file the pooler reads to its user.
	Chown func(path string) error
	// ServerHost (a unix socket directory, or an address) and ServerPort
	// are where the server listens.
	ServerHost string
	ServerPort int
	// Port is the TCP port to listen on, on Listen ("" for 127.0.0.1);
	// SocketDir, when not "", a directory for its unix socket too.
	Port      int
	Listen    string
	SocketDir string
	// Start starts the pooler's command, nil for cmd.Start: the local
	// provider's starts it in the server's network namespace.
	Start func(cmd *exec.Cmd) error
	// MaxClients bounds the client connections it takes at once.
	MaxClients int
	// Secrets are "role verifier" lines (engine.Pooled's SecretsQuery):
	// the roles it lets in, each with the server's own SCRAM verifier.
	Secrets []string
	// Detached poolers outlive tenantbench; any other is killed with it.
	Detached bool
}

// Process is a running pooler.
type Process struct {
	Pid     int
	LogFile string
	exited  chan struct{}
	stats   *statsConn // the admin console (Stats)
	// retarget rewrites the configuration for another server and
	// reloads it (Retarget); nil for a kind that cannot.
	retarget func(host string, port int) error
}

// Retarget sends the pooler's new server connections to the server at
// host (a unix socket directory, or an address) and port from now on:
// after a fail-over, the promoted server. Its clients keep their
// connections to it.
func (p *Process) Retarget(host string, port int) error {
	if p.retarget == nil {
		return errors.New("this pooler cannot change its server while it runs")
	}
	return p.retarget(host, port)
}

// Exited is closed when the pooler's process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ErrPortBusy: the port was taken between choosing it and binding it;
// start again on another.
var ErrPortBusy = errors.New("the pooler's port is taken")

// Stop ends the pooler: SIGTERM (pgbouncer's immediate shutdown: it
// closes its clients' and servers' connections), SIGKILL after wait.
func (p *Process) Stop(wait time.Duration) error {
	p.closeStats()
	_ = syscall.Kill(p.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(wait):
	}
	_ = syscall.Kill(p.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("pooler process %d survived SIGKILL", p.Pid)
	}
}

// waitReady waits until the pooler accepts TCP connections on host and
// port, or fails with the end of its log if it exits first.
func (p *Process) waitReady(ctx context.Context, host string, port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	addr := net.JoinHostPort(host, fmt.Sprint(port))
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.exited:
			tail := logTail(p.LogFile)
			if strings.Contains(tail, "Address already in use") {
				return ErrPortBusy
			}
			return fmt.Errorf("the pooler exited while starting; the end of its log:\n%s", tail)
		case <-ctx.Done():
			_ = p.Stop(0)
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.Stop(0)
			return fmt.Errorf("the pooler did not accept connections on %s within %v; the end of its log:\n%s", addr, timeout, logTail(p.LogFile))
		}
	}
}

// logTail is the last lines of a log, for errors.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

// writeFile writes a file of dir the pooler reads, for its user only.
func writeFile(o Options, name, text string) (string, error) {
	path := filepath.Join(o.Dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	if o.Chown != nil {
		if err := o.Chown(path); err != nil {
			return "", err
		}
	}
	return path, nil
}

// listen is the address o's pooler listens on.
func (o Options) listen() string {
	if o.Listen == "" {
		return "127.0.0.1"
	}
	return o.Listen
}
