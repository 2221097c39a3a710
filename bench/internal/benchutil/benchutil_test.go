package benchutil

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// TestPassFile: a libpq client given the password through PassFile logs
// in (psql -w never prompts, so a missing or wrong file fails), the
// password is on no command line, and the file is gone after remove.
func TestPassFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("no psql on PATH")
	}
	inst := pgtest.Start(t)
	args := []string{"-w", "-X", "-A", "-t", "-h", inst.Host, "-p", strconv.Itoa(inst.Port), "-U", inst.User,
		"-d", "postgres", "-c", "SELECT 6*7"}
	for _, pw := range []string{inst.Password, inst.Password + "-wrong"} {
		cmd := exec.Command("psql", args...)
		remove, err := PassFile(cmd, pw)
		if err != nil {
			t.Fatal(err)
		}
		file := strings.TrimPrefix(cmd.Env[len(cmd.Env)-1], "PGPASSFILE=")
		out, err := cmd.CombinedOutput()
		remove()
		if _, serr := os.Stat(file); !os.IsNotExist(serr) {
			t.Errorf("pgpass file %s left behind", file)
		}
		if strings.Contains(strings.Join(cmd.Args, " "), pw) {
			t.Errorf("password on the command line: %v", cmd.Args)
		}
		right := pw == inst.Password
		if got := strings.TrimSpace(string(out)); right && (err != nil || got != "42") {
			t.Errorf("with the right password: %v, %q", err, got)
		} else if !right && err == nil {
			t.Errorf("a wrong password in the pgpass file logged in: %q", got)
		}
	}
}
