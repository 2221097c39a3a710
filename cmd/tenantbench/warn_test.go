package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanSettings: plan prints the warnings of a spec it accepts on
// stderr, and refuses an included file before anything starts.
func TestPlanSettings(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("name: w\nsut:\n  settings:\n    foo.bar: 1\nworkload: {name: tpcb}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"plan", good}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if want := good + ": warning: sut.settings.foo.bar (line 4): 1: is not a parameter of PostgreSQL"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: w\nsut:\n  settings:\n    include: /tmp/x.conf\nworkload: {name: tpcb}\n"), 0o644)
	stdout.Reset()
	stderr.Reset()
	if code := execute([]string{"plan", bad}, &stdout, &stderr); code != exitBadInput {
		t.Fatalf("exit %d, want %d\n%s", code, exitBadInput, stderr.String())
	}
	if want := "1 problem(s), nothing was started:\n  - sut.settings.include (line 4): cannot be set in a spec"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}
