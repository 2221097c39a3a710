package netns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// Start starts cmd inside the namespace: the program's sockets are the
// namespace's, everything else (user, cgroup, process group, files) as
// cmd says. A network namespace belongs to a thread, and Go forks a
// child from the thread that calls Start, so the thread is locked, moved
// into the namespace for the fork and moved back. Were it not moved
// back, it is left locked, so that Go ends it with the goroutine rather
// than reuse it elsewhere (then a child's parent-death signal, which
// follows the thread that forked it, would fire: only on that failure).
func (n *Net) Start(cmd *exec.Cmd) error {
	target, err := os.Open(filepath.Join(nsDir, n.Name))
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", n.Name, err)
	}
	defer target.Close()
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter network namespace %s: %w", n.Name, err)
	}
	startErr := cmd.Start()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// Stays locked: the goroutine's end ends the thread.
		return errors.Join(startErr, fmt.Errorf("leave network namespace %s: %w", n.Name, err))
	}
	runtime.UnlockOSThread()
	return startErr
}

// Usable says why sut.network cannot run on this machine, "" when it
// can: root (network namespaces and tc need it), iproute2's ip and tc,
// and, for a link that is not plain, its emulator (link.Emulator, or
// the one Auto would choose), tried in a namespace of its own that is
// removed at once.
func Usable(ctx context.Context, link Link) string {
	if os.Geteuid() != 0 {
		return "needs root: tenantbench makes a network namespace, a veth pair and tc qdiscs"
	}
	for _, p := range []string{"ip", "tc"} {
		if _, err := lookPath(p); err != nil {
			return p + " not found: install iproute2"
		}
	}
	_, why := ChooseEmulator(ctx, link.Emulator, link)
	return why
}
