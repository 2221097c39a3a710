package mariadb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// installed skips the test, saying why, where no MariaDB server is
// installed (.ci/run installs Debian's).
func installed(t *testing.T) {
	t.Helper()
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", local.Options{}.Find); err != nil {
		t.Skip(err)
	}
}

// TestServerAndTenants starts a MariaDB server through the local
// provider, places two tenants in the database model, and checks what each
// tenant's user can reach: its own database, never the other's nor the
// system's; the password is nowhere in the server's files; Stop leaves no
// process and no socket.
func TestServerAndTenants(t *testing.T) {
	installed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := pgtest.TempDir(t)
	inst, err := p.Start(ctx, provider.InstanceSpec{Name: "m1", WorkDir: dir, Engine: mariadb.Engine{}, MaxConnections: 40,
		Settings: map[string]string{"innodb_buffer_pool_size": "64M", "general_log": "1", "general_log_file": ""}})
	if err == nil {
		t.Fatal("a spec's general_log_file was accepted")
	}
	inst, err = p.Start(ctx, provider.InstanceSpec{Name: "m1", WorkDir: dir, Engine: mariadb.Engine{}, MaxConnections: 40,
		Settings: map[string]string{"innodb_buffer_pool_size": "64M", "general_log": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = p.Stop(context.Background(), inst)
		}
	}()
	if !strings.HasPrefix(inst.Version, "1") || inst.Engine.Name() != "mariadb" {
		t.Errorf("version %q engine %s", inst.Version, inst.Engine.Name())
	}
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01", "t02"})
	if err != nil {
		t.Fatal(err)
	}
	e := mariadb.Engine{}
	for i, pl := range ps {
		for _, transport := range []string{"tcp", "unix"} {
			c, err := e.Connect(ctx, pl.DSN(transport))
			if err != nil {
				t.Fatalf("%s over %s: %v", pl.Tenant, transport, err)
			}
			if err := c.Exec(ctx, "create table if not exists own (k int primary key)"); err != nil {
				t.Errorf("%s cannot create in its database: %v", pl.Tenant, err)
			}
			other := ps[1-i].Database
			if _, err := c.QueryStrings(ctx, "select count(*) from "+mariadb.Ident(other)+".own"); err == nil {
				t.Errorf("%s reads %s's table", pl.Tenant, other)
			}
			if err := c.Exec(ctx, "use "+mariadb.Ident(other)); err == nil {
				t.Errorf("%s opens %s's database", pl.Tenant, other)
			}
			if err := c.Exec(ctx, "use mysql"); err == nil {
				t.Errorf("%s opens the system database", pl.Tenant)
			}
			dbs, err := c.QueryStrings(ctx, "show databases")
			if err != nil || strings.Join(dbs, ",") != "information_schema,"+pl.Database {
				t.Errorf("%s sees databases %v (%v), want its own", pl.Tenant, dbs, err)
			}
			c.Close(ctx)
		}
	}
	// The statements carry the passwords' hashes only: the general log
	// (every statement) and every file of the server hold no password.
	secrets := []string{inst.Password, ps[0].Password, ps[1].Password}
	logged := false
	_ = filepath.WalkDir(filepath.Join(dir, "m1"), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(path)
		logged = logged || strings.Contains(string(b), "IDENTIFIED BY PASSWORD")
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds a password", path)
			}
		}
		return nil
	})
	if !logged {
		t.Error("no file logged the CREATE USER statements: the password check saw nothing")
	}
	pid := local.Of(inst).Pid
	sock := mariadb.SocketPath(inst.SocketDir, inst.Port)
	if err := p.Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mariadbd %d is still there after Stop", pid)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s left after Stop", sock)
	}
}

// TestStats: the monitor's statistics session lists a tenant's session by
// its user and database and leaves out its own, and SHOW GLOBAL STATUS's
// counters grow with the work done.
func TestStats(t *testing.T) {
	installed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}))
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	e := mariadb.Engine{}
	st, err := e.OpenStats(ctx, inst.AdminDSN(e.MaintenanceDatabase()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	before, _, err := st.ReadView(ctx, "global_status")
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Connect(ctx, ps[0].DSN("unix"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.Exec(ctx, "create table x (k int primary key)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "insert into x values (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	// The server answers a statement before its session shows Sleep
	// again: on a busy machine the first look may still see it active.
	var seen []string
	for try := 0; try < 20; try++ {
		seen = seen[:0]
		err = st.Activity(ctx, func(a *server.Activity) {
			if a.Pid == st.Pid() {
				t.Error("the monitor's own session is listed")
			}
			seen = append(seen, string(a.Type)+"/"+string(a.User)+"/"+string(a.Database)+"/"+string(a.State))
		})
		if err != nil || len(seen) != 1 || seen[0] != "client backend/t01/t01/active" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || len(seen) != 1 || seen[0] != "client backend/t01/t01/idle" {
		t.Errorf("activity %v, %v; want t01's idle session", seen, err)
	}
	after, _, err := st.ReadView(ctx, "global_status")
	if err != nil {
		t.Fatal(err)
	}
	if d := after["all"]["Handler_write"] - before["all"]["Handler_write"]; d < 3 {
		t.Errorf("Handler_write grew by %v, want at least the 3 rows inserted: %v -> %v", d, before, after)
	}
	// Inserting reads the table's pages: InnoDB counts page gets.
	if d := after["all"]["Innodb_buffer_pool_read_requests"] - before["all"]["Innodb_buffer_pool_read_requests"]; d <= 0 {
		t.Errorf("Innodb_buffer_pool_read_requests grew by %v: %v -> %v", d, before, after)
	}
}

// TestCheckSettings: names and values are judged by the installed server
// program, before anything starts.
func TestCheckSettings(t *testing.T) {
	installed(t)
	refused, warned := mariadb.Engine{}.CheckSettings("", map[string]string{
		"innodb_buffer_pool_size":        "64M",
		"innodb-flush-log-at-trx-commit": "2",
		"innodb_bufer_pool_size":         "64M",
		"max_connections":                "-5",
		"sort_buffer_size":               "12Q",
	})
	if len(warned) > 0 {
		t.Errorf("warned %v", warned)
	}
	for k, want := range map[string]string{
		"innodb_bufer_pool_size": "did you mean innodb_buffer_pool_size?",
		"max_connections":        "-5",
		"sort_buffer_size":       "suffix",
	} {
		if !strings.Contains(refused[k], want) {
			t.Errorf("%s refused %q, want %q", k, refused[k], want)
		}
	}
	for _, k := range []string{"innodb_buffer_pool_size", "innodb-flush-log-at-trx-commit"} {
		if refused[k] != "" {
			t.Errorf("%s refused: %s", k, refused[k])
		}
	}
	if refused, _ := (mariadb.Engine{}).CheckSettings("9.9", nil); !strings.Contains(refused[""], "MariaDB 9.9") {
		t.Errorf("version 9.9: %v", refused)
	}
}
