package tenancy

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// logEverything makes a server log every statement, connection and
// error in full: what a spec's sut.settings may ask for.
var logEverything = map[string]string{
	"log_statement":              "all",
	"log_min_duration_statement": "0",
	"log_connections":            "on",
	"log_disconnections":         "on",
	"log_error_verbosity":        "verbose",
}

// TestNoPasswordInLogs places tenants in every model, and clones as the
// cloned provisioning does (a database copy, a server copy with its own
// superuser handed to a new tenant), on servers that log everything; each
// tenant then logs in. No generated password, the superusers' included,
// is in any file the servers leave (logs, data directories) or on any
// process's command line or environment.
func TestNoPasswordInLogs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := pgtest.TempDir(t)
	var secrets []string
	var placed []Placement
	start := func(name string) *provider.Instance {
		t.Helper()
		inst, err := p.Start(ctx, provider.InstanceSpec{Name: name, WorkDir: dir, Settings: logEverything})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Stop(context.Background(), inst) })
		secrets = append(secrets, inst.Password)
		return inst
	}
	place := func(ps []Placement, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		placed = append(placed, ps...)
	}

	// Schema and database models side by side, and a database clone.
	one := start("one")
	place(Schema{}.Place(ctx, []*provider.Instance{one}, []string{"s1", "s2"}))
	place(Database{}.Place(ctx, []*provider.Instance{one}, []string{"d1", "d2"}))
	d3, err := AddRole(ctx, one, "d3", 2)
	place([]Placement{d3}, err)
	if err := CloneDatabase(ctx, placed[2], d3); err != nil {
		t.Fatal(err)
	}
	place(SharedTable{}.Place(ctx, []*provider.Instance{start("two")}, []string{"h1", "h2"}))

	// Instance model: a stopped server copied, the copy given its own
	// superuser password and handed to another tenant.
	src := start("t01")
	ps, err := Instance{}.Place(ctx, []*provider.Instance{src}, []string{"t01"})
	place(ps, err)
	tmpl := ps[0]
	if err := p.Stop(ctx, src); err != nil {
		t.Fatal(err)
	}
	cp, _, err := p.Clone(ctx, src, provider.InstanceSpec{Name: "t02", WorkDir: dir, Settings: logEverything})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background(), cp) })
	secrets = append(secrets, cp.Password)
	again, err := p.Restart(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background(), again) })
	tmpl.Instance = again
	placed[len(placed)-1] = tmpl
	t02, err := AdoptClone(ctx, cp, tmpl, "t02", 1)
	place([]Placement{t02}, err)

	for _, pl := range placed {
		secrets = append(secrets, pl.Password)
		c := connectAs(t, pl)
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
	for _, s := range secrets {
		if len(s) < 16 {
			t.Fatalf("a password of %d characters: the search would find it by chance", len(s))
		}
	}

	// While the servers are still up: their logs and data directories...
	logged := false
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if filepath.Base(path) == "postgres.log" && bytes.Contains(b, []byte("CREATE ROLE")) {
			logged = true
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a password", path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !logged {
		t.Error("no server log shows CREATE ROLE: the statements were not logged, the search proves nothing")
	}
	// ...and every process's command line and environment.
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, pd := range procs {
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile(filepath.Join(pd, f))
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s/%s holds a password", pd, f)
				}
			}
		}
	}
}
