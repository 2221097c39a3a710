package local

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// joinScript runs as the server's first process: it writes its own pid
// into each cgroup.procs file given before "--", then becomes the server
// (exec keeps the pid). The postmaster thus starts inside its v1 groups
// and every process it forks is born there; moving it after start would
// leave out the children it forks at once.
const joinScript = `for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"`

// startProcess starts the postmaster: as the server user, in its own
// process group (a Ctrl-C at the terminal reaches tenantbench only, which
// then stops the servers in order), inside its cgroup from the first
// instruction, with stdout and stderr appended to the log file.
func (p *Provider) startProcess(srv *server, conf dbserver.Config) error {
	log, err := os.OpenFile(srv.inst.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the server log: %w", err)
	}
	defer log.Close() // the child has its own copy
	if err := p.account.chown(srv.inst.LogFile); err != nil {
		return err
	}

	args := srv.eng.StartCommand(srv.progs, conf)
	attr := &syscall.SysProcAttr{Setpgid: true, Credential: p.account.credential()}
	if !srv.spec.Detached {
		// The kernel signals the server when the thread of tenantbench
		// that started it ends, tenantbench's death included (SIGKILL).
		// Go sets it after switching to the server user, so the switch
		// does not clear it, and exec (of the sh below, then of postgres)
		// keeps it: the postmaster itself gets it. Go's threads end only
		// with the process (the one netns.Start locks goes back to the
		// pool unless it could not leave the namespace).
		attr.Pdeathsig = deathSignal(srv.eng)
	}
	var cmd *exec.Cmd
	switch {
	case srv.group != nil && srv.group.Mode() == cgroup.V2:
		// clone3(CLONE_INTO_CGROUP): born in the group.
		dir, err := srv.group.OpenDir()
		if err != nil {
			return fmt.Errorf("open cgroup %s: %w", srv.group.Path(), err)
		}
		defer dir.Close()
		attr.UseCgroupFD = true
		attr.CgroupFD = int(dir.Fd())
		cmd = exec.Command(args[0], args[1:]...)
	case srv.group != nil:
		shArgs := append([]string{"-c", joinScript, "sh"}, srv.group.ProcsFiles()...)
		shArgs = append(shArgs, "--")
		cmd = exec.Command("/bin/sh", append(shArgs, args...)...)
	default:
		cmd = exec.Command(args[0], args[1:]...)
	}
	cmd.Dir = srv.instDir
	cmd.Env = serverEnv()
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = attr
	if err := startIn(srv.spec.Network, cmd); err != nil {
		return fmt.Errorf("start %s: %w", args[0], err)
	}
	exited := make(chan struct{})
	srv.cmd = cmd
	srv.exited = exited
	Of(srv.inst).setPid(cmd.Process.Pid, provider.StartTime(cmd.Process.Pid))
	srv.note()
	// The instance's Exited outlives an in-place restart: it closes when
	// a postmaster ends that no restart is replacing.
	if srv.life == nil {
		srv.life = make(chan struct{})
		srv.inst.Exited = srv.life
	}
	go func() {
		_ = cmd.Wait()
		if !srv.restarting.Load() {
			srv.lifeOnce.Do(func() { close(srv.life) })
		}
		close(exited)
	}()
	return nil
}

// freePort asks the kernel for a loopback port nobody uses now. Another
// process may take it before the server binds it: Start then retries.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startIn starts cmd in the network namespace n, or where tenantbench
// runs when n is nil.
func startIn(n *netns.Net, cmd *exec.Cmd) error {
	if n == nil {
		return cmd.Start()
	}
	return n.Start(cmd)
}
