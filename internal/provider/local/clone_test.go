package local

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestCloneAndRestart: a stopped server's data directory is copied for
// another server, which starts on its own port, socket and password with
// the same data, its files owned like the original's; the original starts
// again as a new Instance, with its data and password.
func TestCloneAndRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := newProvider(t, Options{})
	dir := testDir(t)
	src := start(t, p, provider.InstanceSpec{Name: "src", WorkDir: dir, Settings: map[string]string{"work_mem": "8MB"}})
	conn := connect(t, src.AdminDSN("postgres"))
	if _, err := conn.Exec(ctx, "create table kept as select g from generate_series(1, 1000) g"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	if _, _, err := p.Clone(ctx, src, provider.InstanceSpec{Name: "early", WorkDir: dir}); err == nil {
		t.Fatal("Clone of a running server succeeded")
	}
	if err := p.Stop(ctx, src); err != nil {
		t.Fatal(err)
	}
	clone, copied, err := p.Clone(ctx, src, provider.InstanceSpec{Name: "copy", WorkDir: dir, MaxConnections: 33})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background(), clone); err != nil {
			t.Error(err)
		}
	})
	if copied <= 0 {
		t.Errorf("copy time %v", copied)
	}
	again, err := p.Restart(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background(), again); err != nil {
			t.Error(err)
		}
	})
	if clone.Port == again.Port || Of(clone).DataDir == Of(src).DataDir || clone.Password == src.Password || clone.SocketDir == again.SocketDir {
		t.Errorf("the copy shares the original's endpoint, directory or password: %+v vs %+v", clone, again)
	}
	for _, inst := range []*provider.Instance{clone, again} {
		c := connect(t, inst.AdminDSN("postgres"))
		var n, maxConns int
		if err := c.QueryRow(ctx, "select count(*) from kept").Scan(&n); err != nil || n != 1000 {
			t.Errorf("%s: %d rows kept (%v), want 1000", inst.Name, n, err)
		}
		if err := c.QueryRow(ctx, "select current_setting('max_connections')::int").Scan(&maxConns); err != nil {
			t.Fatal(err)
		}
		if inst == clone && maxConns != 33 {
			t.Errorf("the copy has max_connections %d, want its own 33", maxConns)
		}
	}
	// The original's superuser password does not open the copy.
	stale := *clone
	stale.Password = src.Password
	if c, err := pgx.Connect(ctx, stale.AdminDSN("postgres")); err == nil {
		c.Close(ctx)
		t.Error("the original's superuser password opens the copy")
	}
	// The copy's files belong to the servers' user, with the original's
	// modes.
	var want, got syscall.Stat_t
	if err := syscall.Stat(filepath.Join(Of(src).DataDir, "PG_VERSION"), &want); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(filepath.Join(Of(clone).DataDir, "PG_VERSION"), &got); err != nil {
		t.Fatal(err)
	}
	if got.Uid != want.Uid || got.Mode != want.Mode {
		t.Errorf("copied file: uid %d mode %o, original uid %d mode %o", got.Uid, got.Mode, want.Uid, want.Mode)
	}
	if fi, err := os.Stat(Of(clone).DataDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("copied data directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	// A stopped original cannot be restarted twice over, nor a running one.
	if _, err := p.Restart(ctx, again); err == nil {
		t.Error("Restart of a running server succeeded")
	}
}
