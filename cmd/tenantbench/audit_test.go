package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditKept: `audit` on the instances of a shared-table run kept with
// --keep reports the model's outcomes (no other tenant's row read, a
// shared table locked whole), writes the run's isolation.csv and leaves
// the servers as it found them.
func TestAuditKept(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-C warehouses")
	}
	tmp := workRoot(t)
	out, _ := runKept(t, tmp, "audit.yaml", `name: audit
tenancy: {model: shared-table, tenants: 2}
workload: {name: tpcc, scale: 1, clients: 4, duration: 1s}
`)
	csvPath := filepath.Join(out, "runs", "001", "isolation.csv")
	if _, err := os.Stat(csvPath); err == nil {
		t.Fatal("isolation.csv written by a run that did not ask for the audit")
	}
	var b []byte
	for range 2 { // twice: the first audit left nothing in the second's way
		var err error
		if b, err = exec.Command(binary, "audit", out).CombinedOutput(); err != nil {
			t.Fatalf("audit: %v\n%s", err, b)
		}
	}
	for _, want := range []string{"model shared-table: t01 against t02", "0 of t02's 3 rows read",
		"lock: LOCK TABLE", "possible", "57014"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("audit output lacks %q:\n%s", want, b)
		}
	}
	rows := readCSV(t, csvPath)
	got := map[string]string{}
	for _, r := range rows {
		got[r["probe"]] = r["outcome"]
	}
	if got["read: direct"] != "denied" || got["lock: LOCK TABLE"] != "possible" || got["metadata: row counts"] != "visible" {
		t.Errorf("isolation.csv: %v", got)
	}
	if b, err := exec.Command(binary, "down", out).CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	assertNoLeftovers(t, tmp)
}

// TestAuditNothingKept: `audit` on a directory without kept instances is
// bad input (exit 2), and says why.
func TestAuditNothingKept(t *testing.T) {
	b, err := exec.Command(binary, "audit", t.TempDir()).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), "nothing to audit") {
		t.Errorf("audit of an empty directory: %v\n%s", err, b)
	}
}
