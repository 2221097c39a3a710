package benchutil

import (
	"context"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// A query that burns CPU in a backend shows in the server's CPU time, and
// the reading never goes back.
func TestServerCPUSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	conn := pgtest.Connect(t, inst, "postgres")
	before, err := ServerCPUSeconds(inst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "select count(*) from generate_series(1, 5000000) a, lateral (select a * 2) b"); err != nil {
		t.Fatal(err)
	}
	after, err := ServerCPUSeconds(inst)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server CPU %.2f s, then %.2f s", before, after)
	if after-before < 0.2 {
		t.Errorf("a query of about a second of CPU added %.2f s", after-before)
	}
}
