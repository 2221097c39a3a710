package provision

import (
	"fmt"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// TestChoose: every built-in model, asked to load or to clone, with one
// or two tenants, on a provider that can or cannot copy servers, gets the
// strategy written here; a cloning strategy exactly where the spec's
// Provision says clone (and, for copied servers, the provider can); and
// the strategy is found again by its name.
func TestChoose(t *testing.T) {
	// want[model][asked] for two tenants on a provider that can (first)
	// and cannot (second) copy servers; one tenant always loads (or
	// shares the tables).
	want := map[string]map[string][2]string{
		"schema":       {spec.ProvisionLoad: {LoadEach, LoadEach}, spec.ProvisionClone: {LoadEach, LoadEach}},
		"database":     {spec.ProvisionLoad: {LoadEach, LoadEach}, spec.ProvisionClone: {CloneDatabase, CloneDatabase}},
		"instance":     {spec.ProvisionLoad: {LoadEach, LoadEach}, spec.ProvisionClone: {CloneDatadir, LoadEach}},
		"shared-table": {spec.ProvisionLoad: {SharedTables, SharedTables}, spec.ProvisionClone: {SharedTables, SharedTables}},
	}
	models := tenancy.Builtin()
	if len(want) != len(models) {
		t.Fatalf("the test knows %d models, tenancy %d (%v)", len(want), len(models), models.Names())
	}
	for name, m := range models {
		for _, asked := range []string{spec.ProvisionLoad, spec.ProvisionClone} {
			for _, tenants := range []int{1, 2} {
				for ci, canClone := range []bool{true, false} {
					w, ok := want[name][asked]
					if !ok {
						t.Fatalf("no expectation for model %s", name)
					}
					exp := w[ci]
					if tenants == 1 && exp != SharedTables {
						exp = LoadEach
					}
					s := Choose(m, postgres.Engine{}, asked, tenants, canClone)
					what := fmt.Sprintf("Choose(%s, %s, %d tenants, can clone servers %v)", name, asked, tenants, canClone)
					if s.Name() != exp {
						t.Errorf("%s = %s, want %s", what, s.Name(), exp)
					}
					if cloning := s.Name() == CloneDatabase || s.Name() == CloneDatadir; s.Clones() != cloning {
						t.Errorf("%s = %s, which says it clones: %v", what, s.Name(), s.Clones())
					}
					if got, ok := Lookup(s.Name()); !ok || got.Name() != s.Name() {
						t.Errorf("Lookup(%q) = %v, %v", s.Name(), got, ok)
					}
				}
			}
		}
	}
	// MariaDB copies no database and renames none: every tenant loads.
	for _, name := range []string{"database", "instance"} {
		if s := Choose(models[name], mariadb.Engine{}, spec.ProvisionClone, 2, true); s.Name() != LoadEach {
			t.Errorf("Choose(%s, mariadb, clone) = %s, want %s", name, s.Name(), LoadEach)
		}
	}
	if _, ok := Lookup("load"); ok {
		t.Error(`Lookup("load") found a strategy`)
	}
}

// TestCanCloneServers: the local provider copies stopped servers; a
// provider that only starts and stops them does not.
func TestCanCloneServers(t *testing.T) {
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !CanCloneServers(p) {
		t.Error("the local provider cannot clone servers")
	}
	if CanCloneServers(startStop{p}) {
		t.Error("a provider with Start and Stop only can clone servers")
	}
}

// startStop hides every method of a provider but Start and Stop.
type startStop struct{ provider.Provider }
