package pgtest_test

import (
	"context"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

func TestStartConnect(t *testing.T) {
	inst := pgtest.Start(t, pgtest.Settings(map[string]string{"work_mem": "8MB"}))
	conn := pgtest.Connect(t, inst, "postgres")
	var wm string
	if err := conn.QueryRow(context.Background(), "SHOW work_mem").Scan(&wm); err != nil {
		t.Fatal(err)
	}
	if wm != "8MB" {
		t.Errorf("work_mem = %q, want 8MB", wm)
	}
	if inst.Version == "" {
		t.Error("no version")
	}
}
