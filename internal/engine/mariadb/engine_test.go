package mariadb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

func TestSettingRule(t *testing.T) {
	for key, want := range map[string]string{
		"innodb_buffer_pool_size": "",
		"max-connections":         "",
		"Innodb_Buffer_Pool_Size": "in lowercase",
		"datadir":                 "lays out each instance's data directory",
		"bind-address":            "loopback only",
		"bind_address":            "loopback only",
		"plugin-load-add":         "loads code",
		"ssl_cert":                "TLS",
		"log_error":               "stderr",
	} {
		got := SettingRule(key)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("SettingRule(%q) = %q, want %q", key, got, want)
		}
	}
	if err := (Engine{}).CheckSetting("innodb_log_file_size", "1G\n[client]"); err == nil {
		t.Error("a value with a line break was accepted: it would add a section to the file")
	}
}

func TestRender(t *testing.T) {
	text, err := render(dbserver.Config{DataDir: "/d/data", SocketDir: "/d/s", Port: 3407, MaxConnections: 12,
		Settings: map[string]string{"innodb_buffer_pool_size": "64M", "max_connections": "50"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[mariadbd]\n", "datadir=/d/data\n", "socket=/d/s/.s.mysql.3407\n", "port=3407\n",
		"bind-address=127.0.0.1\n", "skip-name-resolve\n", "max_connections=12\n", "innodb_buffer_pool_size=64M\n",
		"tmpdir=/d\n"} { // the instance's directory: no other server's start deletes its temporary tables
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q:\n%s", want, text)
		}
	}
	// The spec's max_connections comes after tenantbench's: the last wins.
	if strings.Index(text, "max_connections=50") < strings.Index(text, "max_connections=12") {
		t.Errorf("the spec's setting is not last:\n%s", text)
	}
	if _, err := render(dbserver.Config{DataDir: "/d", SocketDir: "/s", Port: 3407, Settings: map[string]string{"port": "1"}}); err == nil {
		t.Error("an owned setting was written")
	}
}

func TestDSNAndErrors(t *testing.T) {
	e := Engine{}
	for _, c := range []struct{ host, net, addr string }{
		{"127.0.0.1", "tcp", "127.0.0.1:3407"},
		{"/tmp/a b", "unix", "/tmp/a b/.s.mysql.3407"},
	} {
		cfg, err := mysql.ParseDSN(e.DSN(c.host, 3407, dbserver.TLS{}, "t01", "t01", "p@ss:/w?d"))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Net != c.net || cfg.Addr != c.addr || cfg.Passwd != "p@ss:/w?d" || cfg.DBName != "t01" {
			t.Errorf("DSN for %s: %+v", c.host, cfg)
		}
	}
	deadlock := &mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "Deadlock found"}
	if c := e.ErrorClass(fmt.Errorf("x: %w", deadlock)); c != "40" {
		t.Errorf("class %q, want 40", c)
	}
	if c := e.ErrorClass(errors.New("broken pipe")); c != "" {
		t.Errorf("class of a connection error %q", c)
	}
}

// TestNativeHash: MySQL's documented hash of "password".
func TestNativeHash(t *testing.T) {
	if h := NativeHash("password"); h != "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19" {
		t.Errorf("NativeHash = %s", h)
	}
}

func TestParseVersion(t *testing.T) {
	v, m, err := ParseVersion("/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)")
	if err != nil || v != "10.11.19" || m != "10.11" {
		t.Errorf("%q %q %v", v, m, err)
	}
	if _, _, err := ParseVersion("mysqld  Ver 8.0.36 for Linux"); err == nil {
		t.Error("a MySQL version was read as MariaDB's")
	}
}
