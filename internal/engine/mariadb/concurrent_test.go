package mariadb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// TestConcurrentStarts starts six servers at once, three times over, as
// parallel tests and runs of several tenants do. Every mariadbd deletes
// the "#sql*" files of its tmpdir when it starts; with /tmp shared, one
// server's start deleted the temporary tables another's
// mariadb-install-db was making ("Unknown table 'mysql.tmp_user_sys'"),
// in about a third of such starts here. Each server's tmpdir is its own
// instance directory, for its initialisation and when it runs.
func TestConcurrentStarts(t *testing.T) {
	installed(t)
	if testing.Short() {
		t.Skip("starts 18 servers")
	}
	const servers, rounds = 6, 3
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, err := local.New(local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := mariadb.Engine{}
	for round := 1; round <= rounds; round++ {
		dir := pgtest.TempDir(t)
		var wg sync.WaitGroup
		errs := make([]error, servers)
		for i := range servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("m%d", i+1)
				inst, err := p.Start(ctx, provider.InstanceSpec{Name: name, WorkDir: dir, Engine: e, MaxConnections: 10,
					Settings: map[string]string{"innodb_buffer_pool_size": "16M"}})
				if err != nil {
					errs[i] = err
					return
				}
				defer func() {
					if err := p.Stop(context.Background(), inst); err != nil && errs[i] == nil {
						errs[i] = err
					}
				}()
				c, err := e.Connect(ctx, inst.AdminDSN(e.MaintenanceDatabase()))
				if err != nil {
					errs[i] = err
					return
				}
				defer c.Close(context.Background())
				got, err := c.QueryStrings(ctx, "select @@tmpdir")
				want := filepath.Join(dir, name)
				if err != nil || len(got) != 1 || filepath.Clean(got[0]) != want {
					errs[i] = fmt.Errorf("tmpdir %v (%v), want %s", got, err, want)
				}
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, server %d: %v", round, i+1, err)
			}
		}
		if t.Failed() {
			return
		}
	}
}
