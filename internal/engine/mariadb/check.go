package mariadb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
	"github.com/tenantbench/tenantbench/internal/suggest"
)

// CheckSettings checks settings against the server program a plan will
// run (version as sut.version, "" for the newest installed), before
// anything starts: each name must be one of the server's options (as
// `mariadbd --help --verbose` lists them), and the program itself must
// take the values (mariadbd parses them with --help, refusing a bad
// suffix, a negative unsigned or an unknown enum). The key "" is about the
// version, which must be installed, in the cache or published (nothing is
// downloaded here).
func (e Engine) CheckSettings(version string, settings map[string]string) (refused, warned map[string]string) {
	refused, warned = map[string]string{}, map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prog, ok, msg := server(ctx, version)
	if !ok {
		refused[""] = msg
		return refused, warned
	}
	if msg != "" {
		// Not installed but published: the run fetches it, and its
		// server refuses a bad setting when it starts.
		warned[""] = msg
		return refused, warned
	}
	names, err := optionNames(ctx, prog)
	if err != nil {
		warned[""] = fmt.Sprintf("the settings were not checked against MariaDB %s: %v", prog.Full, err)
		return refused, warned
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var valued []string
	for _, k := range keys {
		if SettingRule(k) != "" {
			continue // the plan's SettingRule check says why
		}
		n := normal(k)
		if !names[n] {
			msg := fmt.Sprintf("is not an option of MariaDB %s", prog.Full)
			if near := suggest.Nearest(n, sortedNames(names)); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			refused[k] = msg
			continue
		}
		if err := (Engine{}).CheckSetting(k, settings[k]); err != nil {
			refused[k] = err.Error()
			continue
		}
		valued = append(valued, k)
	}
	if len(valued) == 0 {
		return refused, warned
	}
	if why := readValues(ctx, prog, settings, valued); why != "" {
		for _, k := range valued {
			if why := readValues(ctx, prog, settings, []string{k}); why != "" {
				refused[k] = why
			}
		}
	}
	return refused, warned
}

// optionNames caches each server program's option names (normal form).
var optionNames = func() func(ctx context.Context, p Programs) (map[string]bool, error) {
	var mu sync.Mutex
	cache := map[string]map[string]bool{}
	return func(ctx context.Context, p Programs) (map[string]bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if n, ok := cache[p.Server]; ok {
			return n, nil
		}
		args := append(append([]string{"--no-defaults"}, p.layoutArgs()...), "--help", "--verbose")
		out, err := exec.CommandContext(ctx, p.Server, args...).Output()
		if err != nil {
			return nil, fmt.Errorf("%s --help --verbose: %w", p.Server, err)
		}
		n := parseOptionNames(out)
		if len(n) == 0 {
			return nil, fmt.Errorf("%s --help --verbose lists no variables", p.Server)
		}
		cache[p.Server] = n
		return n, nil
	}
}()

// parseOptionNames reads the table of variables that `mariadbd --help
// --verbose` ends with: after "Variables (--variable-name=value)" and a
// row of dashes, a name and its value per line.
func parseOptionNames(out []byte) map[string]bool {
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	state := 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && strings.HasPrefix(line, "Variables (--variable-name=value)"):
			state = 1
		case state == 1 && strings.HasPrefix(line, "-----"):
			state = 2
		case state == 2:
			f := strings.Fields(line)
			if len(f) == 0 {
				return names
			}
			names[normal(f[0])] = true
		}
	}
	return names
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// errorLine is an error mariadbd prints while it reads its options.
var errorLine = regexp.MustCompile(`\[ERROR\] (?:Buffered error: )?(.*)$`)

// readValues has the server read the values of keys on its command line
// with --help, and returns its errors, "" when it took them.
func readValues(ctx context.Context, p Programs, settings map[string]string, keys []string) string {
	args := append([]string{"--no-defaults"}, p.layoutArgs()...)
	for _, k := range keys {
		args = append(args, "--"+k+"="+settings[k])
	}
	args = append(args, "--help", "--verbose")
	cmd := exec.CommandContext(ctx, p.Server, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var msgs []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if m := errorLine.FindStringSubmatch(l); m != nil {
			msgs = append(msgs, strings.TrimSpace(m[1]))
		}
	}
	if len(msgs) > 0 {
		return "MariaDB refuses the value: " + strings.Join(msgs, "; ")
	}
	if err != nil {
		return fmt.Sprintf("MariaDB refuses the value (%v)", err)
	}
	return ""
}

// servers memoizes server's answer per version for the process: a plan
// asks once per case.
var servers sync.Map // version -> serverAnswer

type serverAnswer struct {
	p   Programs
	ok  bool
	msg string
}

// server is the installed (or cached) server of version ("" for the
// newest), ok; else ok and a warning when the version is published (the
// run fetches it), or not ok and why. Only the repository's list of
// versions is read, nothing is downloaded.
func server(ctx context.Context, version string) (Programs, bool, string) {
	if a, ok := servers.Load(version); ok {
		a := a.(serverAnswer)
		return a.p, a.ok, a.msg
	}
	var f Fetcher
	found := f.installed(ctx)
	a := serverAnswer{ok: true}
	if p, ok := choose(found, version); ok {
		a.p = p
	} else {
		want := version
		if want == "" {
			want = DefaultFetchVersion
		}
		full, err := f.published(ctx, want)
		if err != nil {
			a.ok, a.msg = false, fmt.Sprintf("%v; it cannot be fetched either: %v", notFound(found, version), err)
		} else {
			a.msg = fmt.Sprintf("MariaDB %s is not installed: the run fetches %s from %s before its first server starts, "+
				"and the server checks the settings then", want, full, maven.Central)
		}
	}
	if ctx.Err() == nil {
		servers.Store(version, a)
	}
	return a.p, a.ok, a.msg
}
