package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A negative --procs is bad input (exit 2) with a message naming the
// flag, before anything starts: no results directory, no tau file.
func TestNegativeProcs(t *testing.T) {
	tmp := t.TempDir()
	specPath := filepath.Join(tmp, "s.yaml")
	if err := os.WriteFile(specPath, []byte(calibrateSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	for _, args := range [][]string{
		{"run", specPath, "--procs", "-3", "--out", out},
		{"calibrate", specPath, "--procs", "-1", "--out", filepath.Join(out, "tau.yaml")},
	} {
		var stdout, stderr bytes.Buffer
		if code := execute(args, &stdout, &stderr); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d\n%s%s", args, code, exitBadInput, stdout.String(), stderr.String())
		}
		if !strings.Contains(stderr.String(), "--procs "+args[3]+": must be 1 or more") {
			t.Errorf("%v: stderr does not name the flag and its rule:\n%s", args, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s was created: %v", args, out, err)
		}
	}
}
