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

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/suggest"
)

// CheckSettings checks settings against the server program a plan will
// run (version as sut.version, "" for the newest installed), before
// anything starts: each name must be one of the server's options (as
// `mariadbd --help --verbose` lists them), and the program itself must
// take the values (mariadbd parses them with --help, refusing a bad
// suffix, a negative unsigned or an unknown enum). The key "" is about the
// version.
func (e Engine) CheckSettings(version string, settings map[string]string) (refused, warned map[string]string) {
	refused, warned = map[string]string{}, map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := e.FindPrograms(ctx, version, zeroFind)
	if err != nil {
		refused[""] = err.Error()
		return refused, warned
	}
	prog := programsOf(p)
	names, err := optionNames(ctx, prog.Server)
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
	if why := readValues(ctx, prog.Server, settings, valued); why != "" {
		for _, k := range valued {
			if why := readValues(ctx, prog.Server, settings, []string{k}); why != "" {
				refused[k] = why
			}
		}
	}
	return refused, warned
}

// optionNames caches each server program's option names (normal form).
var optionNames = func() func(ctx context.Context, server string) (map[string]bool, error) {
	var mu sync.Mutex
	cache := map[string]map[string]bool{}
	return func(ctx context.Context, server string) (map[string]bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if n, ok := cache[server]; ok {
			return n, nil
		}
		out, err := exec.CommandContext(ctx, server, "--no-defaults", "--help", "--verbose").Output()
		if err != nil {
			return nil, fmt.Errorf("%s --help --verbose: %w", server, err)
		}
		n := parseOptionNames(out)
		if len(n) == 0 {
			return nil, fmt.Errorf("%s --help --verbose lists no variables", server)
		}
		cache[server] = n
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
func readValues(ctx context.Context, server string, settings map[string]string, keys []string) string {
	args := []string{"--no-defaults"}
	for _, k := range keys {
		args = append(args, "--"+k+"="+settings[k])
	}
	args = append(args, "--help", "--verbose")
	cmd := exec.CommandContext(ctx, server, args...)
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

// zeroFind: the plan downloads nothing, and MariaDB's programs are never
// downloaded anyway.
var zeroFind = dbserver.Find{NoFetch: true}
