package pooler

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// PgBouncer is the pgbouncer kind (Debian package pgbouncer).
type PgBouncer struct{}

func init() { register(PgBouncer{}) }

func (PgBouncer) Name() string { return "pgbouncer" }

// Modes are pgbouncer's pool modes but statement: that one refuses a
// transaction of several statements, which every workload runs.
func (PgBouncer) Modes() []string { return []string{"session", "transaction"} }

// pgbouncerPaths are where Debian puts the program; PATH is tried first.
var pgbouncerPaths = []string{"/usr/sbin/pgbouncer", "/usr/local/sbin/pgbouncer", "/usr/local/bin/pgbouncer"}

func (PgBouncer) Find() (string, error) {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	for _, p := range pgbouncerPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("pgbouncer is not installed (Debian package pgbouncer: apt-get install pgbouncer)")
}

var versionRE = regexp.MustCompile(`(?i)pgbouncer\s+(\d+\.\d+(?:\.\d+)?)`)

func (PgBouncer) Version(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v: %s", bin, err, strings.TrimSpace(string(out)))
	}
	return parseVersion(string(out))
}

func parseVersion(out string) (string, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("no version in pgbouncer --version's output %q", strings.TrimSpace(out))
	}
	return m[1], nil
}

// preparedSince is the first pgbouncer that keeps a client's prepared
// statements in transaction mode (max_prepared_statements, protocol-level
// prepared statements).
var preparedSince = [2]int{1, 21}

// NamedStatements: a session pool gives a client one server connection
// for its session, so its statements stay; a transaction pool moves it
// between server connections, which only pgbouncer >= 1.21 follows.
func (PgBouncer) NamedStatements(version, mode string) bool {
	if mode == "session" {
		return true
	}
	return atLeast(version, preparedSince)
}

// Holds: in session mode a client keeps its server connection until it
// disconnects.
func (PgBouncer) Holds(mode string) bool { return mode == "session" }

// atLeast compares a "major.minor[.patch]" version with want.
func atLeast(version string, want [2]int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > want[0] || major == want[0] && minor >= want[1]
}
