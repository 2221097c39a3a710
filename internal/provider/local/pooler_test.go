package local

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// poolerReady starts a server with a login role and a pgbouncer in front
// of it, in mode; it skips without pgbouncer.
func poolerReady(t *testing.T, p *Provider, name, mode string, ledger provider.Ledger) (*provider.Instance, *provider.Pool, string) {
	t.Helper()
	if _, err := (pooler.PgBouncer{}).Find(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	inst := start(t, p, provider.InstanceSpec{Name: name, WorkDir: testDir(t), Ledger: ledger})
	admin := connect(t, inst.AdminDSN("postgres"))
	const pw = "secret-of-t01"
	for _, q := range (postgres.Engine{}).CreateLogin("t01", pw) {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var secrets []string
	rows, _ := admin.Query(ctx, postgres.Engine{}.SecretsQuery(), []string{"t01"})
	secrets, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(secrets) != 1 {
		t.Fatalf("secrets %v, %v", secrets, err)
	}
	pl, ok := provider.As[provider.Pooler](inst)
	if !ok {
		t.Fatal("a local instance has no pooler")
	}
	pool, err := pl.StartPooler(ctx, pooler.Config{Kind: "pgbouncer", Mode: mode, PoolSize: 2}, secrets)
	if err != nil {
		t.Fatal(err)
	}
	return inst, pool, pw
}

// TestPooler: a pgbouncer in front of a server, in its own cgroup, lets
// the role in with its SCRAM verifier only and passes its sessions on to
// the server's socket; in transaction mode on a pgbouncer before 1.21 the
// clients' statements go unnamed and still run many times; Stop and
// StopRecord leave no pooler process, cgroup or socket.
func TestPooler(t *testing.T) {
	p := newProvider(t, Options{})
	for _, mode := range []string{"transaction", "session"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			book := &lastRecord{}
			inst, pool, pw := poolerReady(t, p, "pooled-"+mode, mode, book)
			if r := book.get(); r.Pooler == nil || r.Pooler.Pid != Of(inst).pooler.Pid {
				t.Errorf("the ledger's record has pooler %+v, want the running one", r.Pooler)
			}
			if pool.Port == inst.Port || inst.Pool != pool {
				t.Fatalf("pool %+v, server port %d", pool, inst.Port)
			}
			auth, err := os.ReadFile(Of(inst).DataDir + "/../pooler/userlist.txt")
			if err != nil || !strings.Contains(string(auth), `"t01" "SCRAM-SHA-256$`) || strings.Contains(string(auth), pw) {
				t.Errorf("auth file %q (%v): want the verifier, never the password", auth, err)
			}
			if mode == "session" && !pool.NamedStatements {
				t.Error("session mode keeps named statements")
			}
			for _, transport := range []string{"tcp", "unix"} {
				dsn := inst.WorkloadDSN(transport, "postgres", "t01", pw)
				c := connect(t, dsn)
				if pool.NamedStatements == (c.Config().DefaultQueryExecMode != pgx.QueryExecModeCacheStatement) {
					t.Errorf("%s: exec mode %v with named statements %v", transport, c.Config().DefaultQueryExecMode, pool.NamedStatements)
				}
				for i := range 20 {
					var n int
					var socket bool
					// The server sees the pooler's session over its socket.
					if err := c.QueryRow(ctx, "SELECT $1::int + 1, client_addr IS NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()", i).Scan(&n, &socket); err != nil || n != i+1 || !socket {
						t.Fatalf("%s: query %d through the pooler: %d, socket %v, %v", transport, i, n, socket, err)
					}
				}
				c.Close(ctx)
			}
			if _, err := pgx.Connect(ctx, inst.WorkloadDSN("tcp", "postgres", "t01", "wrong")); err == nil {
				t.Error("the pooler let in a wrong password")
			}
			pl, _ := provider.As[provider.Pooler](inst)
			gpath, gmode := pl.PoolerCgroup()
			rec := inst.Record()
			if rec.Pooler == nil || rec.Pooler.Pid == 0 || !alive(rec.Pooler.Pid) || rec.Pooler.Cgroup != gpath {
				t.Fatalf("record of the pooler %+v, cgroup %s", rec.Pooler, gpath)
			}
			var group *cgroup.Group
			if gpath != "" {
				group = p.cgroups.Open(gpath)
				procs, err := group.Procs()
				if err != nil || len(procs) == 0 || procs[0] != rec.Pooler.Pid {
					t.Errorf("pooler cgroup %s (%s) holds %v (%v), want %d", gpath, gmode, procs, err, rec.Pooler.Pid)
				}
			}
			if mode == "transaction" {
				// down's way: from the record alone.
				if err := StopRecord(ctx, rec); err != nil {
					t.Fatal(err)
				}
			} else if err := p.Stop(ctx, inst); err != nil {
				t.Fatal(err)
			}
			if mode == "session" {
				if r := book.get(); !book.gone || r.Pooler != nil {
					t.Errorf("after Stop the ledger has the server gone %v, pooler %+v", book.gone, r.Pooler)
				}
			}
			if alive(rec.Pooler.Pid) {
				t.Errorf("pooler %d still runs", rec.Pooler.Pid)
			}
			if group != nil {
				for _, d := range group.Dirs() {
					if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("pooler cgroup %s still exists", d)
					}
				}
			}
		})
	}
}

// lastRecord is a ledger keeping the last record it was told of.
type lastRecord struct {
	mu   sync.Mutex
	last provider.Record
	gone bool
}

func (l *lastRecord) Live(r provider.Record) { l.mu.Lock(); l.last, l.gone = r, false; l.mu.Unlock() }
func (l *lastRecord) Gone(r provider.Record) { l.mu.Lock(); l.last, l.gone = r, true; l.mu.Unlock() }

func (l *lastRecord) get() provider.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
