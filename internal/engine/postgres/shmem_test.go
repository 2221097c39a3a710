package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// TestSharedMemoryBytes: the estimate the plan checks the machine with is
// within 10 % of what a real server reports it maps (shared_memory_size)
// at small and default buffers and at few and many connections.
func TestSharedMemoryBytes(t *testing.T) {
	for _, c := range []struct {
		settings map[string]string
		conns    int
	}{
		{map[string]string{"shared_buffers": "16MB"}, 20},
		{map[string]string{"shared_buffers": "16MB"}, 1010},
		{map[string]string{}, 110},
		{map[string]string{"shared_buffers": "4096", "wal_buffers": "2MB"}, 50},
	} {
		inst := pgtest.Start(t, pgtest.Settings(c.settings), pgtest.MaxConnections(c.conns))
		conn := pgtest.Connect(t, inst, "postgres")
		var size string
		if err := conn.QueryRow(context.Background(), "SHOW shared_memory_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		mb, ok := strings.CutSuffix(size, "MB")
		if !ok {
			t.Fatalf("shared_memory_size %q is not in MB", size)
		}
		got, err := postgres.Engine{}.SharedMemoryBytes(c.settings, c.conns)
		if err != nil {
			t.Fatal(err)
		}
		want := mustInt(t, mb) << 20
		if d := got - want; d > want/10 || -d > want/10 {
			t.Errorf("%v, %d connections: estimated %d MiB, the server maps %s", c.settings, c.conns, got>>20, size)
		}
		conn.Close(context.Background())
	}
	if _, err := (postgres.Engine{}).SharedMemoryBytes(map[string]string{"shared_buffers": "16 MiB"}, 10); err == nil ||
		!strings.Contains(err.Error(), `unit "MiB"`) {
		t.Errorf("16 MiB: %v", err)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("%q is not a whole number", s)
		}
		n = n*10 + int64(r-'0')
	}
	return n
}
