package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepServerLog: a small log is copied whole; a log over the cap keeps
// its last lines, whole, under the cap, and says what it left out.
func TestKeepServerLog(t *testing.T) {
	tmp := t.TempDir()
	d, err := Create(filepath.Join(tmp, "results"), nil)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(tmp, "small.log")
	os.WriteFile(small, []byte("LOG:  ready\nLOG:  terminated by signal 9\n"), 0o600)
	path, err := d.KeepServerLog("001", "shared", small)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(d.Path, "runs", "001", "server-shared.log"); path != want {
		t.Errorf("copied to %s, want %s", path, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "LOG:  ready\nLOG:  terminated by signal 9\n" {
		t.Errorf("copy of a small log = %q", b)
	}

	big := filepath.Join(tmp, "big.log")
	line := strings.Repeat("x", 99) + "\n"
	os.WriteFile(big, []byte(strings.Repeat(line, 3*ServerLogCap/100)+"LOG:  the last line\n"), 0o600)
	path, err = d.KeepServerLog("001", "t01", big)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(b) > ServerLogCap+200 || !strings.HasPrefix(lines[0], "[tenantbench: the first ") ||
		lines[len(lines)-1] != "LOG:  the last line" {
		t.Fatalf("copy of a big log: %d bytes, first line %q, last %q", len(b), lines[0], lines[len(lines)-1])
	}
	for _, l := range lines[1 : len(lines)-1] {
		if l+"\n" != line {
			t.Fatalf("a line cut in the copy: %q", l)
		}
	}
}
