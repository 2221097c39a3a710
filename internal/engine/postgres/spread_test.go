package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// TestDatabasesSpread: a started server's base/ carries ext4's
// top-directory flag (FS_TOPDIR_FL), where the file system knows it, and
// databases are still made in it.
func TestDatabasesSpread(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	conn := pgtest.Connect(t, inst, "postgres")
	var dataDir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dataDir, "base")
	f, err := os.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		t.Skipf("%s: the file system keeps no inode flags: %v", base, err)
	}
	const topdir = 0x00020000
	if flags&topdir == 0 {
		t.Errorf("%s: flags %#x, without the top-directory flag %#x", base, flags, topdir)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE spread TEMPLATE template1 STRATEGY FILE_COPY"); err != nil {
		t.Fatal(err)
	}
	var oid string
	if err := conn.QueryRow(ctx, "SELECT oid::text FROM pg_database WHERE datname = 'spread'").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(base, oid)); err != nil {
		t.Errorf("the new database's directory: %v", err)
	}
}
