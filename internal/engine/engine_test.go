package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRegistry(t *testing.T) {
	r := Builtin()
	if got := strings.Join(r.Names(), ","); got != "mariadb,postgres" {
		t.Errorf("builtin engines %s, want mariadb,postgres", got)
	}
	if e, err := r.Get("postgres"); err != nil || e.Name() != "postgres" {
		t.Errorf("Get(postgres) = %v, %v", e, err)
	}
	if _, err := r.Get("oracle"); err == nil || !strings.Contains(err.Error(), "known: mariadb, postgres") {
		t.Errorf("Get(oracle) error %v, want the known engines", err)
	}
	if c := r.ErrorClass(fmt.Errorf("x: %w", &pgconn.PgError{Code: "23505"})); c != "23" {
		t.Errorf("class %q, want 23", c)
	}
	if c := r.ErrorClass(fmt.Errorf("broken pipe")); c != "" {
		t.Errorf("class of a connection error %q, want empty", c)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second postgres was registered")
		}
	}()
	r.Add(r["postgres"])
}

// TestPostgresChecksSettings: the plan finds PostgreSQL's settings
// checker by asking the registered engine, not by its name.
func TestPostgresChecksSettings(t *testing.T) {
	if _, ok := Builtin()["postgres"].(SettingsChecker); !ok {
		t.Error("the postgres engine has no SettingsChecker")
	}
}
