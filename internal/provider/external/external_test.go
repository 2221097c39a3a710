package external

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// book is a ledger that keeps the last record of each instance, as
// live.json does.
type book struct {
	mu   sync.Mutex
	live map[string]provider.Record
}

func (b *book) Live(r provider.Record) { b.mu.Lock(); b.live[r.DataDir] = r; b.mu.Unlock() }
func (b *book) Gone(r provider.Record) { b.mu.Lock(); delete(b.live, r.DataDir); b.mu.Unlock() }

func (b *book) objects() []provider.Object {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []provider.Object
	for _, r := range b.live {
		out = append(out, r.Objects...)
	}
	return out
}

func count(t *testing.T, inst *provider.Instance, q string) int {
	t.Helper()
	var n int
	if err := pgtest.Connect(t, inst, "postgres").QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const ours = `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'r001\_%'`

// TestBorrowed: an instance on the user's server lists each object in the
// ledger before it is made, has none of a started server's capabilities,
// and Stop (or StopRecord, for down) drops exactly what it listed.
func TestBorrowed(t *testing.T) {
	users := pgtest.Start(t)
	t.Setenv("TB_EXT_DSN", users.DSN("tcp", "postgres", users.User, users.Password))
	admin := pgtest.Connect(t, users, "postgres")
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "CREATE ROLE r001_mine"); err != nil { // the user's, with a name like ours
		t.Fatal(err)
	}
	l := &book{live: map[string]provider.Record{}}
	spec := provider.InstanceSpec{Name: "shared", WorkDir: t.TempDir(), RunID: "r001_abc123", Ledger: l,
		Server: &provider.Server{Name: "main", DSNEnv: "TB_EXT_DSN"}}
	// tenantbench cannot raise a server's max_connections: a run that
	// needs more is refused before it creates anything.
	big := spec
	big.MaxConnections = 100000
	if _, err := (Provider{}).Start(ctx, big); err == nil || !strings.Contains(err.Error(), "the run needs 100000") {
		t.Errorf("Start with 100000 connections: %v", err)
	}
	spec.MaxConnections = 10
	inst, err := Provider{}.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Version == "" || provider.PrefixOf(inst) != "r001_abc123_" {
		t.Errorf("version %q, prefix %q", inst.Version, provider.PrefixOf(inst))
	}
	if _, ok := provider.As[provider.ResourceSampler](inst); ok {
		t.Error("a server tenantbench did not start has a ResourceSampler")
	}
	if _, ok := provider.As[provider.Killer](inst); ok {
		t.Error("a server tenantbench did not start has a Killer")
	}
	if len(l.live) != 1 {
		t.Fatalf("ledger %v: want the instance listed from its start (and no other)", l.live)
	}
	for _, name := range []string{"r001_abc123_t01", "r001_abc123_t02"} {
		provider.NoteCreated(inst, provider.Object{Kind: provider.ObjectRole, Name: name})
		if got := l.objects(); got[len(got)-1].Name != name {
			t.Fatalf("ledger %v: %s not listed before it is created", got, name)
		}
		if _, err := admin.Exec(ctx, "CREATE ROLE "+name); err != nil {
			t.Fatal(err)
		}
	}
	provider.NoteCreated(inst, provider.Object{Kind: provider.ObjectDatabase, Name: "r001_abc123_t01"})
	if _, err := admin.Exec(ctx, "CREATE DATABASE r001_abc123_t01 OWNER r001_abc123_t01"); err != nil {
		t.Fatal(err)
	}
	// Listed but never created (a crash in between): dropped if there.
	provider.NoteCreated(inst, provider.Object{Kind: provider.ObjectDatabase, Name: "r001_abc123_t02"})
	if n := count(t, users, ours); n != 3 {
		t.Fatalf("%d roles r001_*, want 3", n)
	}

	// A later tenantbench (down) drops from the record alone.
	rec := l.live[inst.Record().DataDir]
	if rec.Server == nil || rec.Server.DSNEnv != "TB_EXT_DSN" {
		t.Fatalf("record %+v does not name the server's variable", rec)
	}
	if err := StopRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if n := count(t, users, ours); n != 1 {
		t.Errorf("%d roles r001_* left, want the user's own", n)
	}
	if n := count(t, users, "SELECT count(*) FROM pg_database WHERE datname LIKE 'r001%'"); n != 0 {
		t.Errorf("%d databases of the run left", n)
	}
	// Stop after that finds nothing to drop, and forgets the instance.
	if err := (Provider{}).Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	if len(l.live) != 0 {
		t.Errorf("ledger still lists %v", l.live)
	}
	if n := count(t, users, "SELECT count(*) FROM pg_roles WHERE rolname = 'r001_mine'"); n != 1 {
		t.Error("the user's role r001_mine was dropped")
	}
}

// TestCheckServer: the plan's check names an unset variable, each
// privilege the role lacks and an unreachable server; a superuser whose
// password is in a password file passes.
func TestCheckServer(t *testing.T) {
	users := pgtest.Start(t)
	admin := pgtest.Connect(t, users, "postgres")
	ctx := context.Background()
	for _, st := range []string{"CREATE ROLE nothing LOGIN PASSWORD 'pw'", "CREATE ROLE halfway LOGIN CREATEROLE PASSWORD 'pw'"} {
		if _, err := admin.Exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	sv := provider.Server{Name: "main", DSNEnv: "TB_EXT_CHECK"}
	t.Setenv(sv.DSNEnv, "")
	os.Unsetenv(sv.DSNEnv)
	if msg := CheckServer(ctx, nil, sv); !strings.Contains(msg, "TB_EXT_CHECK is not set") {
		t.Errorf("unset: %q", msg)
	}
	for role, want := range map[string]string{
		"nothing": "role nothing on server main lacks CREATEROLE and CREATEDB",
		"halfway": "role halfway on server main lacks CREATEDB:",
	} {
		t.Setenv(sv.DSNEnv, users.DSN("tcp", "postgres", role, "pw"))
		if msg := CheckServer(ctx, nil, sv); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", role, msg, want)
		}
	}
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("*:*:*:"+users.User+":"+users.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", pass)
	t.Setenv(sv.DSNEnv, "host=127.0.0.1 port="+strconv.Itoa(users.Port)+" user="+users.User+" dbname=postgres sslmode=disable")
	if msg := CheckServer(ctx, nil, sv); msg != "" {
		t.Errorf("superuser with a password file: %q", msg)
	}
	t.Setenv(sv.DSNEnv, "host=127.0.0.1 port=1 user=x sslmode=disable")
	if msg := CheckServer(ctx, nil, sv); !strings.Contains(msg, "cannot connect to server main (127.0.0.1 port 1 as x, sslmode disable, from TB_EXT_CHECK)") {
		t.Errorf("unreachable: %q", msg)
	}
}
