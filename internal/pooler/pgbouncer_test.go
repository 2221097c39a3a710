package pooler

import (
	"strings"
	"testing"
)

func TestVersionAndStatements(t *testing.T) {
	v, err := parseVersion("PgBouncer 1.18.0\nlibevent 2.1.12-stable\n")
	if err != nil || v != "1.18.0" {
		t.Fatalf("parseVersion = %q, %v", v, err)
	}
	for _, c := range []struct {
		version, mode string
		named         bool
	}{
		{"1.18.0", "session", true},
		{"1.18.0", "transaction", false},
		{"1.21.0", "transaction", true},
		{"1.24", "transaction", true},
		{"2.0.1", "transaction", true},
		{"junk", "transaction", false},
	} {
		if got := (PgBouncer{}).NamedStatements(c.version, c.mode); got != c.named {
			t.Errorf("NamedStatements(%s, %s) = %v", c.version, c.mode, got)
		}
	}
}

// A missing program is named with the package that installs it.
func TestFindMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	saved := pgbouncerPaths
	pgbouncerPaths = []string{"/nonexistent/pgbouncer"}
	defer func() { pgbouncerPaths = saved }()
	_, err := PgBouncer{}.Find()
	if err == nil || !strings.Contains(err.Error(), "Debian package pgbouncer") {
		t.Fatalf("Find = %v", err)
	}
}
