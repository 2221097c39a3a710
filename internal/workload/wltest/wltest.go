// Package wltest has the test helpers that the workloads' tests against a
// real PostgreSQL share: tenants placed as a run places them, their
// connections, and a workload's load phases.
package wltest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Tenant is a tenant and how to connect as it.
type Tenant struct {
	tenancy.Placement
	Connect workload.Connect
}

// Place makes tenants called names on inst in model, connecting over TCP
// as a run does.
func Place(t testing.TB, inst *provider.Instance, model tenancy.Model, names ...string) []Tenant {
	t.Helper()
	ps, err := model.Place(context.Background(), []*provider.Instance{inst}, names)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Tenant, len(ps))
	for i, p := range ps {
		out[i] = Tenant{p, DSNConnect(p.DSN("tcp"))}
	}
	return out
}

// DSNConnect connects to dsn.
func DSNConnect(dsn string) workload.Connect {
	return workload.PGConnect(func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) })
}

// Conn opens a connection as the tenant, closed when the test ends.
func (tn Tenant) Conn(t testing.TB) *pgx.Conn {
	t.Helper()
	c, err := workload.ConnectPG(context.Background(), "test", tn.Connect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Load runs Setup, Ingest and PostIngest of w for the tenant.
func (tn Tenant) Load(t testing.TB, w workload.Workload) {
	t.Helper()
	ctx := context.Background()
	conn := tn.Conn(t)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := w.Ingest(ctx, tn.Connect, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

// QueryInt is the single integer sql returns.
func QueryInt(t testing.TB, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// OptionsNode parses src as the value of workload.options, as a
// workload's Parse receives it (an empty node for an empty src).
func OptionsNode(t testing.TB, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	if doc.Kind == 0 {
		return &yaml.Node{}
	}
	return doc.Content[0]
}
