package main

import (
	"encoding/csv"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckAudit runs TPC-C through the CLI and re-checks the run's rate
// audit with `check` (no instance kept): within bounds after the run; an
// audit.csv edited so that one rate is out of bounds fails, naming the
// tenant, the rate and the line; a cell that is no number is refused,
// naming it.
func TestCheckAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads a TPC-C warehouse")
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "audit.yaml")
	os.WriteFile(specPath, []byte(`name: audit
tenancy: {model: schema, tenants: 1}
workload: {name: tpcc, scale: 1, clients: 2, duration: 3s}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	assertNoLeftovers(t, tmp)
	b, err := exec.Command(binary, "check", out).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "run 001 audit: ") || !strings.Contains(string(b), " rates within bounds") ||
		!strings.Contains(string(b), "the tenants' data is not checked") {
		t.Fatalf("check after the run: %v\n%s", err, b)
	}

	// One warehouse: no payment may be remote (clause 2.5.1.2), its
	// bounds are 0 to 0. Make every payment remote.
	path := filepath.Join(out, "runs", "001", "audit.csv")
	rows := readAudit(t, path)
	line := 0
	for i, r := range rows {
		if r[0] == "t01" && r[1] == "remote payments" {
			if r[7] != "0" || r[8] != "0" || r[4] == "0" {
				t.Fatalf("remote payments over one warehouse: %v; want bounds 0 to 0 and payments", r)
			}
			r[3] = r[4]
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("no remote payments in %v", rows)
	}
	writeAuditFile(t, path, rows)
	b, err = exec.Command(binary, "check", out).CombinedOutput()
	var ee *exec.ExitError
	want := "run 001 audit: tenant t01: remote payments (clause 2.5.1.2): observed 1.0000"
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), want) ||
		!strings.Contains(string(b), "audit.csv line "+strconv.Itoa(line)+")") || !strings.Contains(string(b), "1 rate(s) out of bounds") ||
		strings.Count(string(b), "run 001 audit: tenant") != 1 {
		t.Errorf("check of an audit with a rate out of bounds: %v; want exit 1 and %q at line %d\n%s", err, want, line, b)
	}

	rows[line-1][3] = "many"
	writeAuditFile(t, path, rows)
	b, err = exec.Command(binary, "check", out).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), `line `+strconv.Itoa(line)+` column count: "many" is not a whole number`) {
		t.Errorf("check of an audit with a bad count: %v\n%s", err, b)
	}
}

func readAudit(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func writeAuditFile(t *testing.T, path string, rows [][]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		t.Fatal(err)
	}
}
