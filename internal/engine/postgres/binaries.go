// Package postgres is the PostgreSQL engine: where its server binaries are
// (installed or fetched), and the configuration files tenantbench writes.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
)

// Binaries is one installation of the PostgreSQL server programs.
type Binaries struct {
	Dir     string // holds postgres, initdb, ...
	Version string // as `postgres --version` says, e.g. "15.18"
	Major   string // "15" (or "9.6" for the old numbering)
}

// Postgres is the path of the server program.
func (b Binaries) Postgres() string { return filepath.Join(b.Dir, "postgres") }

// Initdb is the path of initdb.
func (b Binaries) Initdb() string { return filepath.Join(b.Dir, "initdb") }

// Finder locates server binaries and fetches them when none fit.
// The zero value searches the usual places and fetches into the default
// cache from Maven Central.
type Finder struct {
	// CacheDir holds fetched builds, one directory per version.
	// "" = DefaultCacheDir().
	CacheDir string
	// NoFetch makes Find fail instead of downloading.
	NoFetch bool
	// Repository is the Maven repository root; "" = Maven Central.
	Repository string
	// Logf reports slow steps (a download); nil = silent.
	Logf func(format string, args ...any)
}

// Find returns binaries of the requested version: a major ("15"), a full
// version ("15.8"), or "" for the newest found. It searches $PG_BINDIR,
// PATH, /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin and the fetch cache,
// and fetches official builds from Maven Central when none fits.
func Find(version string) (Binaries, error) {
	return Finder{}.Find(context.Background(), version)
}

// Find is the package-level Find with a context (for the download) and the
// finder's options.
func (f Finder) Find(ctx context.Context, version string) (Binaries, error) {
	found := f.Installed(ctx)
	if err := ctx.Err(); err != nil {
		return Binaries{}, err // the search was cut short
	}
	if b, ok := choose(found, version); ok {
		return b, nil
	}
	if f.NoFetch {
		return Binaries{}, notFoundError(found, version)
	}
	want := version
	if want == "" {
		want = DefaultFetchMajor
	}
	b, err := f.Fetch(ctx, want)
	if ctx.Err() != nil {
		return Binaries{}, ctx.Err()
	}
	if err != nil {
		return Binaries{}, fmt.Errorf("%w; fetching them failed too: %v", notFoundError(found, version), err)
	}
	return b, nil
}

// Installed lists every usable installation found, newest first; an
// explicit $PG_BINDIR comes first whatever its version.
func (f Finder) Installed(ctx context.Context) []Binaries {
	var dirs []string
	if d := os.Getenv("PG_BINDIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin"} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	m, _ := filepath.Glob(filepath.Join(f.cacheDir(), "*", "bin"))
	dirs = append(dirs, m...)
	if d := systemCacheDir; d != f.cacheDir() {
		// Binaries root fetched earlier serve ordinary users too.
		m, _ := filepath.Glob(filepath.Join(d, "*", "bin"))
		dirs = append(dirs, m...)
	}

	seen := map[string]bool{}
	var out []Binaries
	for _, d := range dirs {
		b, err := inspect(ctx, d)
		if err != nil || seen[b.Dir] {
			continue
		}
		seen[b.Dir] = true
		out = append(out, b)
	}
	pinned := 0
	if os.Getenv("PG_BINDIR") != "" && len(out) > 0 && out[0].Dir == resolvedDir(os.Getenv("PG_BINDIR")) {
		pinned = 1
	}
	rest := out[pinned:]
	sort.SliceStable(rest, func(i, j int) bool { return compareVersions(rest[i].Version, rest[j].Version) > 0 })
	return out
}

// choose picks the first installation matching version ("" matches any).
func choose(found []Binaries, version string) (Binaries, bool) {
	for _, b := range found {
		if version == "" || b.Major == version || b.Version == version {
			return b, true
		}
	}
	return Binaries{}, false
}

func notFoundError(found []Binaries, version string) error {
	what := "PostgreSQL server binaries"
	if version != "" {
		what = "PostgreSQL " + version + " server binaries"
	}
	var have []string
	for _, b := range found {
		have = append(have, b.Version+" in "+b.Dir)
	}
	msg := fmt.Sprintf("no %s found in $PG_BINDIR, PATH, /usr/lib/postgresql/*/bin or the cache", what)
	if len(have) > 0 {
		msg += " (found " + strings.Join(have, ", ") + ")"
	}
	return errors.New(msg + ": install them, set PG_BINDIR, or allow fetching")
}

// resolvedDir is the directory a binary really lives in, so that a symlink
// in PATH and its target count once.
func resolvedDir(dir string) string {
	p, err := filepath.EvalSymlinks(filepath.Join(dir, "postgres"))
	if err != nil {
		return ""
	}
	p, err = filepath.Abs(p)
	if err != nil {
		return ""
	}
	return filepath.Dir(p)
}

// inspect checks that dir has postgres and initdb and asks postgres its
// version.
func inspect(ctx context.Context, dir string) (Binaries, error) {
	d := resolvedDir(dir)
	if d == "" {
		return Binaries{}, fmt.Errorf("no postgres in %s", dir)
	}
	for _, name := range []string{"postgres", "initdb"} {
		fi, err := os.Stat(filepath.Join(d, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return Binaries{}, fmt.Errorf("no executable %s in %s", name, d)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// --version is answered before the refusal to run as root.
	out, err := exec.CommandContext(ctx, filepath.Join(d, "postgres"), "--version").Output()
	if err != nil {
		return Binaries{}, fmt.Errorf("%s/postgres --version: %w", d, err)
	}
	v, major, err := ParseVersion(string(out))
	if err != nil {
		return Binaries{}, err
	}
	return Binaries{Dir: d, Version: v, Major: major}, nil
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?(?:\.(\d+))?`)

// ParseVersion reads the output of `postgres --version`
// ("postgres (PostgreSQL) 15.18 (Debian ...)") into the version and its
// major ("15"; "9.6" before PostgreSQL 10).
func ParseVersion(s string) (version, major string, err error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", fmt.Errorf("cannot read a PostgreSQL version from %q", strings.TrimSpace(s))
	}
	first, _ := strconv.Atoi(m[1])
	version = m[1]
	if m[2] != "" {
		version += "." + m[2]
	}
	if m[3] != "" {
		version += "." + m[3]
	}
	major = m[1]
	if first < 10 && m[2] != "" {
		major = m[1] + "." + m[2]
	}
	return version, major, nil
}

// compareVersions orders dotted versions numerically, with an optional
// "-N" rebuild suffix ("10.5.0-1" > "10.5.0"): -1, 0 or 1.
func compareVersions(a, b string) int { return maven.CompareVersions(a, b) }
