package postgres

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

func TestSettingRule(t *testing.T) {
	for _, key := range []string{"work_mem", "shared_buffers", "pg_stat_statements.max", "max_connections"} {
		if msg := SettingRule(key); msg != "" {
			t.Errorf("%s refused: %s", key, msg)
		}
	}
	for key, want := range map[string]string{
		"Work_Mem":          "lowercase",
		"work mem":          "parameter name",
		"port":              "free port",
		"listen_addresses":  "loopback",
		"logging_collector": "stderr",
		"hba_file":          "authentication files",
	} {
		if msg := SettingRule(key); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want it to say %q", key, msg, want)
		}
	}
	// Every setting the start refuses is refused by the rule too.
	for _, name := range []string{"port", "unix_socket_directories", "data_directory", "config_file",
		"hba_file", "ident_file", "external_pid_file", "logging_collector", "log_destination"} {
		if !Managed(name) || SettingRule(name) == "" {
			t.Errorf("%s: managed %v, rule %q", name, Managed(name), SettingRule(name))
		}
	}
}

func TestDSN(t *testing.T) {
	dsn := Engine{}.DSN("/tmp/s p", 5433, srv.TLS{}, "t01", "t01", "p@ss:/w'd")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if u.Scheme != "postgres" || u.Path != "/t01" || u.User.Username() != "t01" || pw != "p@ss:/w'd" ||
		u.Query().Get("host") != "/tmp/s p" || u.Query().Get("port") != "5433" || u.Query().Get("sslmode") != "disable" {
		t.Errorf("DSN %s does not round-trip", dsn)
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "/tmp/s p" || cfg.Port != 5433 || cfg.Password != "p@ss:/w'd" || cfg.Database != "t01" {
		t.Errorf("pgconn reads %+v", cfg)
	}
}

func TestErrorClass(t *testing.T) {
	e := Engine{}
	wrapped := fmt.Errorf("txn: %w", &pgconn.PgError{Code: "40001"})
	if got := e.ErrorClass(wrapped); got != "40" {
		t.Errorf("class %q, want 40", got)
	}
	if got := e.ErrorClass(fmt.Errorf("dial: refused")); got != "" {
		t.Errorf("class of a non-server error %q, want empty", got)
	}
	if !e.InUse(&pgconn.PgError{Code: "55006"}) || e.InUse(wrapped) {
		t.Error("InUse misreads SQLSTATE 55006")
	}
}

func TestQuoting(t *testing.T) {
	for in, want := range map[string]string{`t01`: `"t01"`, `a"b`: `"a""b"`, "x\x00y": `"xy"`} {
		if got := ident(in); got != want {
			t.Errorf("ident(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{`abc`: `E'abc'`, `a'b`: `E'a''b'`, `a\b`: `E'a\\b'`} {
		if got := literal(in); got != want {
			t.Errorf("literal(%q) = %s, want %s", in, got, want)
		}
	}
	e := Engine{}
	// The role is quoted; the password is not there at all, its verifier is.
	if got := e.CreateLogin(`t"1`, "pw'")[0]; !strings.HasPrefix(got, `CREATE ROLE "t""1" LOGIN PASSWORD E'SCRAM-SHA-256$4096:`) ||
		strings.Contains(got, "pw'") {
		t.Errorf("CreateLogin: %s", got)
	}
	if got := e.CopyDatabase("t02", "t01", "t02", 140000)[0]; strings.Contains(got, "STRATEGY") {
		t.Errorf("a server before 15 has no STRATEGY: %s", got)
	}
	if got := e.CopyDatabase("t02", "t01", "t02", 150004)[0]; !strings.HasSuffix(got, "STRATEGY FILE_COPY") {
		t.Errorf("15 copies files: %s", got)
	}
}
