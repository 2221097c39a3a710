package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPasswordInRunFiles runs the instance model, whose provisioning
// creates tenant roles, copies a server, gives the copy its own superuser
// password and its tenant a new one, on servers that log every statement
// and connection, and keeps them (--keep) so that their logs can be read
// before down removes them. No password of pgpass, where --keep puts them
// all, is in the output or in any other file under the run's directories:
// results, work directories, server logs and data directories.
func TestNoPasswordInRunFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	tmp := workRoot(t)
	out, b := runKept(t, tmp, "logall.yaml", `name: logall
sut:
  settings: {log_statement: all, log_connections: "on", log_disconnections: "on"}
tenancy: {model: instance, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 2s}
`)
	pgpass := filepath.Join(out, "pgpass")
	pp, err := os.ReadFile(pgpass)
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, line := range strings.Split(strings.TrimSpace(string(pp)), "\n") {
		f := strings.Split(line, ":")
		if len(f) != 5 || len(f[4]) < 16 {
			t.Fatalf("pgpass line %q", line)
		}
		secrets = append(secrets, f[4])
	}
	if len(secrets) != 4 { // two servers: a superuser and a tenant each
		t.Fatalf("pgpass has %d passwords, want 4", len(secrets))
	}
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Error("the output shows a password")
		}
	}
	logs, roles := 0, 0
	err = filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || path == pgpass {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if d.Name() == "postgres.log" {
			logs++
			if bytes.Contains(data, []byte("PASSWORD E'SCRAM-SHA-256$")) {
				roles++
			}
		}
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds a password", path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Both kept servers' logs, each with a statement that set a
	// password (logged as it was sent): otherwise the search proves
	// nothing.
	if logs != 2 || roles != 2 {
		t.Errorf("%d server logs, %d with a password statement; want 2 and 2", logs, roles)
	}
	if b, err := exec.Command(binary, "down", out).CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	assertNoLeftovers(t, tmp)
}
