package postgres

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultFetchMajor is fetched when no version is asked for and none is
// installed: the newest major published as embedded-postgres binaries
// when this was written. Pinned rather than "latest" so that a spec
// without a version gives the same server next year.
const DefaultFetchMajor = "18"

// MavenCentral is where the official builds are published
// (io.zonky.test.postgres:embedded-postgres-binaries-*, the builds
// github.com/fergusstrange/embedded-postgres uses).
const MavenCentral = "https://repo1.maven.org/maven2"

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

	full, err := newestRelease(ctx, base, version)
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
	jar, err := os.CreateTemp(cache, ".download-*.jar")
	if err != nil {
		return Binaries{}, fmt.Errorf("create a download file in the cache: %w", err)
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	if err := download(ctx, jarURL, jar); err != nil {
		return Binaries{}, err
	}
	if err := verify(ctx, jarURL, jar); err != nil {
		return Binaries{}, err
	}

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

// newestRelease reads maven-metadata.xml and picks the newest release
// whose version starts with the requested components.
func newestRelease(ctx context.Context, base, version string) (string, error) {
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	url := base + "/maven-metadata.xml"
	body, err := get(ctx, url)
	if err != nil {
		return "", err
	}
	if err := xml.Unmarshal(body, &meta); err != nil {
		return "", fmt.Errorf("read %s: %w", url, err)
	}
	want := strings.Split(version, ".")
	best := ""
	for _, v := range meta.Versions {
		parts := strings.Split(strings.SplitN(v, "-", 2)[0], ".")
		if len(parts) < len(want) {
			continue
		}
		match := true
		for i := range want {
			if parts[i] != want[i] {
				match = false
			}
		}
		if match && (best == "" || compareVersions(v, best) > 0) {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("no build of PostgreSQL %s is published at %s", version, url)
	}
	return best, nil
}

func get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download %s: %s", url, resp.Status)
	}
	// Metadata and checksums are small; a bound keeps a wrong URL from
	// filling memory.
	return io.ReadAll(io.LimitReader(resp.Body, 4<<20))
}

func download(ctx context.Context, url string, to *os.File) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	if _, err := io.Copy(to, resp.Body); err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	return nil
}

// verify checks the downloaded file against the strongest checksum the
// repository publishes beside it. No checksum at all is an error: an
// unverified server binary is not run.
func verify(ctx context.Context, url string, f *os.File) error {
	sums := []struct {
		ext string
		h   func() hash.Hash
	}{{"sha512", sha512.New}, {"sha256", sha256.New}, {"sha1", sha1.New}}
	var errs []error
	for _, s := range sums {
		body, err := get(ctx, url+"."+s.ext)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fields := strings.Fields(string(body))
		if len(fields) == 0 {
			errs = append(errs, fmt.Errorf("%s.%s is empty", url, s.ext))
			continue
		}
		h := s.h()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(h, f); err != nil {
			return fmt.Errorf("checksum the download: %w", err)
		}
		got := hex.EncodeToString(h.Sum(nil))
		if !strings.EqualFold(got, fields[0]) {
			return fmt.Errorf("download %s is corrupt: %s %s, published %s", url, s.ext, got, fields[0])
		}
		return nil
	}
	return fmt.Errorf("cannot verify %s, no checksum published: %w", url, errors.Join(errs...))
}
