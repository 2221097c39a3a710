package postgres

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuoteValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "''"},
		{"8MB", "'8MB'"},
		{"it's", "'it''s'"},
		{`C:\dir`, `'C:\\dir'`},
		{"a\nb", `'a\nb'`},
		{"'; drop", "'''; drop'"},
		{"ünïcode", "'ünïcode'"},
	} {
		if got := QuoteValue(c.in); got != c.want {
			t.Errorf("QuoteValue(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCheckSetting(t *testing.T) {
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"work_mem", "4MB", true},
		{"Shared_Buffers", "1GB", true},
		{"tenantbench.note", "x", true},
		{"pg_stat_statements.track", "all", true},
		{"a.b.c", "x", false},
		{"bad name", "x", false},
		{"x = 1\nport", "x", false},
		{"", "x", false},
		{"port", "5432", false},
		{"PORT", "5432", false},
		{"unix_socket_directories", "/tmp", false},
		{"work_mem", "a\x00b", false},
	} {
		if err := CheckSetting(c.name, c.value); (err == nil) != c.ok {
			t.Errorf("CheckSetting(%q, %q) = %v, want ok=%v", c.name, c.value, err, c.ok)
		}
	}
}

func TestWriteConfig(t *testing.T) {
	dir := t.TempDir()
	initdb := "# initdb's\nmax_connections = 100\nshared_buffers = 128MB\n"
	path := filepath.Join(dir, "postgresql.conf")
	if err := os.WriteFile(path, []byte(initdb), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Config{Port: 5555, SocketDir: "/tmp/s", MaxConnections: 42, ClusterName: "t01",
		Settings: map[string]string{"work_mem": "8MB", "search_path": `"$user", public`}}
	if err := WriteConfig(dir, c); err != nil {
		t.Fatal(err)
	}
	// A retry on another port replaces tenantbench's block, once.
	c.Port = 6666
	if err := WriteConfig(dir, c); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if !strings.HasPrefix(got, initdb+configMarker+"\n") || strings.Count(got, configMarker) != 1 {
		t.Errorf("initdb's part not kept or block repeated:\n%s", got)
	}
	for _, line := range []string{
		"port = '6666'",
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '/tmp/s'",
		"max_connections = '42'",
		"cluster_name = 't01'",
		"work_mem = '8MB'",
		`search_path = '"$user", public'`,
	} {
		if !strings.Contains(got, "\n"+line+"\n") {
			t.Errorf("missing %q in:\n%s", line, got)
		}
	}
	if strings.Contains(got, "5555") {
		t.Errorf("the old port is still there:\n%s", got)
	}
	// The spec's settings come after tenantbench's, so they win.
	if strings.Index(got, "work_mem") < strings.Index(got, "max_connections = '42'") {
		t.Error("spec settings are written before tenantbench's")
	}
	if err := WriteConfig(dir, Config{Port: 1, Settings: map[string]string{"port": "2"}}); err == nil {
		t.Error("a spec setting port was accepted")
	}
}

func TestWriteHBA(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pg_hba.conf")
	if err := os.WriteFile(path, []byte("host all all 0.0.0.0/0 trust\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := func(clients string) string {
		t.Helper()
		if err := WriteHBA(dir, clients); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		var rules []string
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
				rules = append(rules, strings.Join(f, " "))
			}
		}
		return strings.Join(rules, "|")
	}
	want := "local all all scram-sha-256|host all all 127.0.0.1/32 scram-sha-256|local replication all scram-sha-256"
	if got := rules(""); got != want {
		t.Errorf("rules %q, want %q", got, want)
	}
	// The host's end of a network namespace's link (sut.network).
	if got := rules("198.51.100.0/30"); got != want+"|host all all 198.51.100.0/30 scram-sha-256" {
		t.Errorf("rules with a client subnet %q", got)
	}
	if err := WriteHBA(dir, "0.0.0.0/0 trust\nhost"); err == nil {
		t.Error("a subnet with a newline was written")
	}
}
