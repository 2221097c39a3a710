package postgres_test

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestSpecRefusesManaged: every setting the server start refuses is
// already refused when the spec is validated, before anything starts.
func TestSpecRefusesManaged(t *testing.T) {
	for _, name := range []string{"port", "unix_socket_directories", "data_directory", "config_file",
		"hba_file", "ident_file", "external_pid_file", "logging_collector", "log_destination"} {
		if !postgres.Managed(name) {
			t.Errorf("%s is not managed", name)
		}
		s, problems := spec.Parse([]byte("name: x\nsut: {settings: {" + name + ": 'on'}}\nworkload: {name: tpcb}\n"))
		if s == nil || len(problems) != 1 || !strings.Contains(problems[0].Path, name) {
			t.Errorf("spec setting %s: problems %v, want one naming it", name, problems)
		}
	}
}
