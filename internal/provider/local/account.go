package local

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the unprivileged user servers run as when tenantbench runs as
// root: PostgreSQL refuses to run as root. A nil *account means this
// process's own user, and its methods then do nothing.
type account struct {
	name     string
	uid, gid int
	groups   []uint32
}

// createdUser is made when no user named "postgres" exists.
const createdUser = "tenantbench"

// serverAccount returns who runs the servers: nil (this process's user)
// unless running as root, else the named user, "postgres", or a system
// user "tenantbench" created for it.
func serverAccount(name string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if name != "" {
		return lookupAccount(name)
	}
	if a, err := lookupAccount("postgres"); err == nil {
		return a, nil
	}
	if a, err := lookupAccount(createdUser); err == nil {
		return a, nil
	}
	out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
		"--comment", "tenantbench database servers", createdUser).CombinedOutput()
	// Another tenantbench may have created it meanwhile: look again.
	if a, lerr := lookupAccount(createdUser); lerr == nil {
		return a, nil
	}
	return nil, fmt.Errorf("servers cannot run as root and there is no user postgres; creating user %s failed: %v: %s (create an unprivileged user and set its name in the local provider's options)", createdUser, err, out)
}

func lookupAccount(name string) (*account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q", name, u.Uid)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q", name, u.Gid)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user %s is root: PostgreSQL refuses to run as root", name)
	}
	a := &account{name: name, uid: uid, gid: gid}
	ids, _ := u.GroupIds()
	for _, g := range ids {
		if n, err := strconv.Atoi(g); err == nil {
			a.groups = append(a.groups, uint32(n))
		}
	}
	return a, nil
}

// credential is what exec needs to start a process as a; nil keeps this
// process's user.
func (a *account) credential() *syscall.Credential {
	if a == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: a.groups}
}

// chown hands path to a (nothing to do without an account).
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("hand %s to user %s: %w", path, a.name, err)
	}
	return nil
}

// checkReachable fails unless a may pass through every directory from the
// root down to dir: the server must reach its data directory, and a
// private parent (a 0700 home or test directory) would stop it with an
// obscure "permission denied" at start.
func (a *account) checkReachable(dir string) error {
	if a == nil {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit os.FileMode = 0o001
		switch {
		case int(st.Uid) == a.uid:
			bit = 0o100
		case int(st.Gid) == a.gid || a.inGroup(st.Gid):
			bit = 0o010
		}
		if fi.Mode().Perm()&bit == 0 {
			return fmt.Errorf("the server user %s cannot enter %s (mode %#o, owner uid %d): use a work directory it can reach, such as one under /tmp or /var/tmp, or allow it (chmod o+x %s)",
				a.name, d, fi.Mode().Perm(), st.Uid, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

func (a *account) inGroup(gid uint32) bool {
	for _, g := range a.groups {
		if g == gid {
			return true
		}
	}
	return false
}
