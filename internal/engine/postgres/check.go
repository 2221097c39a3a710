package postgres

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
	"github.com/tenantbench/tenantbench/internal/suggest"
)

// CheckSettings checks settings against the server program a plan will
// run (version as sut.version, "" for the newest found), before anything
// starts: each name must be a parameter the program describes (a custom
// "prefix.name" passes with a warning), a spec may set it, and the program
// itself must accept the value (postgres -C reads a scratch configuration
// file: units, ranges and enum values as PostgreSQL reads them);
// shared_preload_libraries must name installed libraries. Refusals and
// warnings are by settings key; the key "" is about the version, which
// must be installed, in the fetch cache or published (nothing is
// downloaded here).
func (Engine) CheckSettings(version string, settings map[string]string) (refused, warned map[string]string) {
	refused, warned = map[string]string{}, map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, ok, msg := server(ctx, version)
	if !ok {
		refused[""] = msg
		return refused, warned
	}
	if msg != "" {
		// Not installed but published: the run fetches it, and its
		// server checks the settings when it starts.
		warned[""] = msg
		return refused, warned
	}
	params, err := Describe(ctx, b)
	if err != nil {
		warned[""] = fmt.Sprintf("the settings were not checked against PostgreSQL %s: %v", b.Version, err)
		return refused, warned
	}
	valued := map[string]string{}
	for _, key := range sortedKeys(settings) {
		value := settings[key]
		if why := checkName(b, params, key); why != "" {
			refused[key] = why
			continue
		}
		if err := CheckSetting(key, value); err != nil {
			refused[key] = err.Error()
			continue
		}
		if _, known := params[strings.ToLower(key)]; !known {
			warned[key] = fmt.Sprintf("is not a parameter of PostgreSQL %s: a custom setting, passed to the server unchecked "+
				"(an extension checks its own settings only once it is loaded)", b.Version)
		}
		if strings.ToLower(key) == "shared_preload_libraries" {
			if why := checkLibraries(ctx, b, value); why != "" {
				refused[key] = why
				continue
			}
		}
		valued[key] = value
	}
	if len(valued) == 0 {
		return refused, warned
	}
	why := readConfig(ctx, b, valued)
	if why != "" && len(valued) > 1 {
		// Something is refused: ask setting by setting which.
		for k, v := range valued {
			if why := readConfig(ctx, b, map[string]string{k: v}); why != "" {
				refused[k] = why
			}
		}
	} else if why != "" {
		for k := range valued {
			refused[k] = why
		}
	}
	return refused, warned
}

// checkName says why a spec may not set key on server b, "" when it may.
func checkName(b Binaries, params map[string]Param, key string) string {
	if why := SettingRule(key); why != "" {
		return why
	}
	p, known := params[strings.ToLower(key)]
	if !known {
		if strings.Contains(key, ".") {
			return ""
		}
		msg := fmt.Sprintf("is not a parameter of PostgreSQL %s", b.Version)
		if near := nearest(strings.ToLower(key), params); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return msg
	}
	if why := deniedGroups[p.Group]; why != "" {
		return "cannot be set in a spec: " + why
	}
	return ""
}

// logLine is a message of the server's log without its prefix.
var logLine = regexp.MustCompile(`(?:^|\s)(LOG|WARNING|DETAIL|HINT|FATAL):\s+(.*)$`)

// readConfig has server b read a configuration file holding settings and
// returns what it refused, in its words; "" when it accepted them. Only
// the file is read (postgres -C prints a setting and exits): no data
// directory, no process left.
func readConfig(ctx context.Context, b Binaries, settings map[string]string) string {
	dir, err := os.MkdirTemp("", "tenantbench-settings-")
	if err != nil {
		return "cannot check the value: " + err.Error()
	}
	defer os.RemoveAll(dir)
	var text strings.Builder
	for _, k := range sortedKeys(settings) {
		fmt.Fprintf(&text, "%s = %s\n", k, QuoteValue(settings[k]))
	}
	for name, body := range map[string]string{"postgresql.conf": text.String(), "postgresql.auto.conf": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return "cannot check the value: " + err.Error()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// -C comes first: only then does the program run as root, as
	// tenantbench may. It prints port, which every version has.
	cmd := exec.CommandContext(ctx, b.Postgres(), "-C", "port", "-D", dir, "-c", "log_line_prefix=")
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "LC_MESSAGES=C")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	var said []string
	for _, line := range strings.Split(string(out), "\n") {
		m := logLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || m[1] == "FATAL" && strings.Contains(m[2], "contains errors") ||
			strings.HasPrefix(m[2], "skipping missing configuration file") {
			continue
		}
		said = append(said, strings.TrimSpace(m[2]))
	}
	if len(said) == 0 {
		return fmt.Sprintf("PostgreSQL %s refuses it (%v): %s", b.Version, err, strings.TrimSpace(string(out)))
	}
	return fmt.Sprintf("PostgreSQL %s refuses it: %s", b.Version, strings.Join(said, "; "))
}

// checkLibraries says which of a shared_preload_libraries value's
// libraries server b does not have installed, "" when it has them all.
func checkLibraries(ctx context.Context, b Binaries, value string) string {
	libs, err := PreloadLibraries(value)
	if err != nil {
		return err.Error()
	}
	dirs := libraryDirs(ctx, b)
	var missing []string
	for _, l := range libs {
		found := false
		for _, d := range dirs {
			for _, name := range []string{l, l + ".so", l + ".dylib"} {
				if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
					found = true
				}
			}
		}
		if !found {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("PostgreSQL %s has no library %s installed (looked in %s): install the extension's package for this version",
		b.Version, strings.Join(missing, ", "), strings.Join(dirs, ", "))
}

// libraryDirs is where server b loads a library named without a
// directory from ($libdir): as its pg_config says, or beside its bin
// directory where a build has no pg_config.
func libraryDirs(ctx context.Context, b Binaries) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, filepath.Join(b.Dir, "pg_config"), "--pkglibdir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			return []string{d}
		}
	}
	up := filepath.Dir(b.Dir)
	return []string{filepath.Join(up, "lib", "postgresql"), filepath.Join(up, "lib")}
}

// servers memoizes server's answer per version for the process: a plan
// asks once per case.
var servers sync.Map // version -> serverAnswer

type serverAnswer struct {
	b   Binaries
	ok  bool
	msg string
}

// server is the installed server of version ("" for the newest), ok;
// else, ok and a warning when the version is published (the run fetches
// it), or not ok and why. Only the repository's list of versions is read,
// nothing is downloaded.
func server(ctx context.Context, version string) (Binaries, bool, string) {
	if a, ok := servers.Load(version); ok {
		a := a.(serverAnswer)
		return a.b, a.ok, a.msg
	}
	f := Finder{NoFetch: true}
	found := f.Installed(ctx)
	a := serverAnswer{ok: true}
	if b, ok := choose(found, version); ok {
		a.b = b
	} else {
		want := version
		if want == "" {
			want = DefaultFetchMajor
		}
		full, err := f.published(ctx, want)
		if err != nil {
			a.ok, a.msg = false, fmt.Sprintf("%v; it cannot be fetched either: %v", notFoundError(found, version), err)
		} else {
			a.msg = fmt.Sprintf("PostgreSQL %s is not installed: the run fetches %s from %s before its first server starts, "+
				"and the server checks the settings then", want, full, MavenCentral)
		}
	}
	servers.Store(version, a)
	return a.b, a.ok, a.msg
}

// published is the newest published build of version, from the
// repository's list of versions.
func (f Finder) published(ctx context.Context, version string) (string, error) {
	artifact, err := artifactName()
	if err != nil {
		return "", err
	}
	repo := strings.TrimRight(f.Repository, "/")
	if repo == "" {
		repo = MavenCentral
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return maven.Newest(ctx, repo+"/io/zonky/test/postgres/"+artifact, version)
}

// nearest is the parameter key was probably meant to be, "" for none.
func nearest(key string, params map[string]Param) string {
	return suggest.Nearest(key, sortedKeys(params))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
