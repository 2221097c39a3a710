package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
)

// DefaultFetchMajor is fetched when no version is asked for and none is
// installed: the newest major published as embedded-postgres binaries
// when this was written. Pinned rather than "latest" so that a spec
// without a version gives the same server next year.
const DefaultFetchMajor = "18"

// MavenCentral is where the official builds are published
// (io.zonky.test.postgres:embedded-postgres-binaries-*, the builds
// github.com/fergusstrange/embedded-postgres uses).
const MavenCentral = maven.Central

// systemCacheDir is the cache when running as root: servers then run as an
// unprivileged user, which must be able to read and execute the binaries,
// and a root home directory is usually 0700.
const systemCacheDir = "/var/cache/tenantbench/postgres"

// DefaultCacheDir is where fetched builds go: /var/cache/tenantbench/postgres
// for root, else $XDG_CACHE_HOME/tenantbench/postgres (~/.cache/...).
func DefaultCacheDir() string {
	if os.Geteuid() == 0 {
		return systemCacheDir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tenantbench", "postgres")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tenantbench-%d", os.Geteuid()), "postgres")
}

func (f Finder) cacheDir() string {
	if f.CacheDir != "" {
		return f.CacheDir
	}
	return DefaultCacheDir()
}

func (f Finder) logf(format string, args ...any) {
	if f.Logf != nil {
		f.Logf(format, args...)
	}
}

// Fetch downloads the newest published build of version (a major such as
// "16", or "16.4" for the newest rebuild of 16.4), verifies it against the
// repository's checksum and installs it into the cache. A build already in
// the cache is reused.
func (f Finder) Fetch(ctx context.Context, version string) (Binaries, error) {
	artifact, err := artifactName()
	if err != nil {
		return Binaries{}, err
	}
	repo := strings.TrimRight(f.Repository, "/")
	if repo == "" {
		repo = MavenCentral
	}
	base := repo + "/io/zonky/test/postgres/" + artifact

	full, err := maven.Newest(ctx, base, version)
	if err != nil {
		return Binaries{}, err
	}
	cache := f.cacheDir()
	dest := filepath.Join(cache, full)
	if b, err := inspect(ctx, filepath.Join(dest, "bin")); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Binaries{}, fmt.Errorf("create the binaries cache: %w", err)
	}

	jarURL := fmt.Sprintf("%s/%s/%s-%s.jar", base, full, artifact, full)
	f.logf("fetching PostgreSQL %s from %s", full, jarURL)
	jar, err := maven.Download(ctx, jarURL, cache)
	if err != nil {
		return Binaries{}, err
	}
	defer os.Remove(jar.Name())
	defer jar.Close()

	// Extract beside the destination and rename, so that a cut download or
	// a concurrent fetch never leaves a half-installed version in the cache.
	tmp, err := os.MkdirTemp(cache, ".extract-*")
	if err != nil {
		return Binaries{}, fmt.Errorf("create an extraction directory in the cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Binaries{}, err
	}
	if err := extractJar(jar, tmp); err != nil {
		return Binaries{}, fmt.Errorf("extract %s: %w", jarURL, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		// Another process may have installed the same version meanwhile.
		if b, ierr := inspect(ctx, filepath.Join(dest, "bin")); ierr == nil {
			return b, nil
		}
		return Binaries{}, fmt.Errorf("install PostgreSQL %s into %s: %w", full, dest, err)
	}
	b, err := inspect(ctx, filepath.Join(dest, "bin"))
	if err != nil {
		return Binaries{}, fmt.Errorf("fetched PostgreSQL %s does not run: %w", full, err)
	}
	return b, nil
}

// artifactName is the Maven artifact for this machine, named as the
// embedded-postgres-binaries project names its builds.
func artifactName() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("fetching PostgreSQL binaries is supported on linux only, not %s: install PostgreSQL and set PG_BINDIR", runtime.GOOS)
	}
	arch := map[string]string{
		"amd64":   "amd64",
		"arm64":   "arm64v8",
		"arm":     "arm32v7",
		"386":     "i386",
		"ppc64le": "ppc64le",
	}[runtime.GOARCH]
	if arch == "" {
		return "", fmt.Errorf("no PostgreSQL builds are published for %s: install PostgreSQL and set PG_BINDIR", runtime.GOARCH)
	}
	if _, err := os.Stat("/etc/alpine-release"); err == nil {
		arch += "-alpine" // musl libc
	}
	return "embedded-postgres-binaries-linux-" + arch, nil
}
