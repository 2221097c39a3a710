package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// owned are settings a spec may not set: the include directives, and
// what reaches listening, authentication, file locations, logging,
// loading code and shell commands.
var owned = []string{"include", "include_dir", "include_if_exists",
	"port", "listen_addresses", "unix_socket_directories", "unix_socket_permissions",
	"data_directory", "config_file", "hba_file", "ident_file", "external_pid_file",
	"logging_collector", "log_destination", "log_directory",
	"password_encryption", "ssl", "ssl_cert_file", "ssl_passphrase_command",
	"dynamic_library_path", "session_preload_libraries", "local_preload_libraries", "jit_provider",
	"archive_command", "restore_command", "primary_conninfo"}

// TestRuleRefusesManaged: every setting the engine's rule refuses is
// refused at a server's start too, and the other way round.
func TestRuleRefusesManaged(t *testing.T) {
	for _, name := range owned {
		if !postgres.Managed(name) {
			t.Errorf("%s is not managed", name)
		}
		if postgres.SettingRule(name) == "" {
			t.Errorf("the rule lets a spec set %s", name)
		}
		if postgres.CheckSetting(strings.ToUpper(name), "x") == nil {
			t.Errorf("the start lets a spec set %s", strings.ToUpper(name))
		}
	}
	for _, name := range []string{"work_mem", "shared_preload_libraries", "max_connections", "log_statement", "log_min_duration_statement"} {
		if postgres.Managed(name) || postgres.SettingRule(name) != "" {
			t.Errorf("%s is refused", name)
		}
	}
	if postgres.CheckSetting("shared_preload_libraries", "pg_stat_statements,/tmp/evil") == nil {
		t.Error("a preload library with a directory passed")
	}
}

// TestStartRefusesOwned: a server asked to include a file or to listen
// beyond loopback is refused before anything starts, so that a caller
// that skips the plan's checks cannot loosen a server either.
func TestStartRefusesOwned(t *testing.T) {
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	include := filepath.Join(t.TempDir(), "x.conf")
	if err := os.WriteFile(include, []byte("listen_addresses = '*'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]string{"listen_addresses": "127.0.0.1,127.0.0.2", "include": include} {
		work := filepath.Join(pgtest.TempDir(t), "w")
		inst, err := p.Start(context.Background(), provider.InstanceSpec{Name: "owned", WorkDir: work,
			Settings: map[string]string{key: value}})
		if err == nil {
			_ = p.Stop(context.Background(), inst)
			t.Errorf("%s: the server started", key)
			continue
		}
		if !strings.Contains(err.Error(), "managed by tenantbench") {
			t.Errorf("%s: %v", key, err)
		}
		if _, serr := os.Stat(work); !os.IsNotExist(serr) {
			t.Errorf("%s: the work directory was made", key)
		}
	}
}
