// Package pgtest starts real PostgreSQL servers for tests through the local
// provider. No mock stands in for a database.
//
//	inst := pgtest.Start(t)                     // stopped and removed when the test ends
//	conn := pgtest.Connect(t, inst, "postgres") // superuser, closed when the test ends
package pgtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// Option changes the spec of the server Start starts.
type Option func(*provider.InstanceSpec)

// Name sets the instance name (default "pgtest").
func Name(name string) Option { return func(s *provider.InstanceSpec) { s.Name = name } }

// Engine starts a server of e (default PostgreSQL): a MariaDB server for
// the MariaDB engine's tests.
func Engine(e engine.Engine) Option { return func(s *provider.InstanceSpec) { s.Engine = e } }

// Version asks for a server major version ("15"); default: newest found.
func Version(v string) Option { return func(s *provider.InstanceSpec) { s.Version = v } }

// Settings are written to postgresql.conf.
func Settings(m map[string]string) Option {
	return func(s *provider.InstanceSpec) {
		if s.Settings == nil {
			s.Settings = map[string]string{}
		}
		for k, v := range m {
			s.Settings[k] = v
		}
	}
}

// MaxConnections sets max_connections (default: initdb's, usually 100).
func MaxConnections(n int) Option { return func(s *provider.InstanceSpec) { s.MaxConnections = n } }

// Resources limits the server's cgroup (where cgroups are writable).
func Resources(cpus float64, memoryBytes int64) Option {
	return func(s *provider.InstanceSpec) { s.CPUs, s.MemoryBytes = cpus, memoryBytes }
}

// Start starts a server for the test and returns it ready. When the test
// ends, passed or failed, the server is stopped and its directory, cgroup
// and socket are removed. It fails the test if the server cannot start.
func Start(t testing.TB, opts ...Option) *provider.Instance {
	t.Helper()
	spec := provider.InstanceSpec{Name: "pgtest", WorkDir: TempDir(t)}
	for _, o := range opts {
		o(&spec)
	}
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	inst, err := p.Start(ctx, spec)
	if err != nil {
		t.Fatalf("pgtest: start a server: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background(), inst); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return inst
}

// Connect opens a superuser connection to database over the instance's
// unix socket, closed when the test ends.
func Connect(t testing.TB, inst *provider.Instance, database string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, inst.AdminDSN(database))
	if err != nil {
		t.Fatalf("pgtest: connect to %s on instance %s: %v", database, inst.Name, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// TempDir makes a directory for server files that the unprivileged server
// user can reach, unlike t.TempDir (mode 0700, owned by root when tests
// run as root), and removes it when the test ends, after what was
// registered later (a server stopped in a later Cleanup is stopped first).
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tenantbench-test-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("pgtest: remove %s: %v", dir, err)
		}
	})
	// Searchable but not listable by others: the server user enters its
	// own subdirectory, which it owns.
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dir
}

// Replicas starts n hot standbys of inst (provider.Replicated), streaming
// (synchronous when sync), stopped with inst when the test ends.
func Replicas(t testing.TB, inst *provider.Instance, n int, sync bool) []*provider.Instance {
	t.Helper()
	r, ok := provider.As[provider.Replicated](inst)
	if !ok {
		t.Fatalf("pgtest: instance %s cannot have replicas", inst.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rs, err := r.StartReplicas(ctx, n, sync)
	if err != nil {
		t.Fatalf("pgtest: start replicas: %v", err)
	}
	return rs
}
