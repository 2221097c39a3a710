package postgres_test

import (
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
)

// TestRuleRefusesManaged: every setting the server start refuses is
// refused by the engine's rule too, which the plan applies to a spec
// before anything starts.
func TestRuleRefusesManaged(t *testing.T) {
	for _, name := range []string{"port", "unix_socket_directories", "data_directory", "config_file",
		"hba_file", "ident_file", "external_pid_file", "logging_collector", "log_destination"} {
		if !postgres.Managed(name) {
			t.Errorf("%s is not managed", name)
		}
		if postgres.SettingRule(name) == "" {
			t.Errorf("the rule lets a spec set %s", name)
		}
	}
}
