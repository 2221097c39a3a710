package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Param is one parameter as the server program describes it (postgres
// --describe-config): what the plan checks a spec's setting name with.
type Param struct {
	Name    string
	Context string // when it can change: postmaster, sighup, superuser, user, internal...
	Group   string // the documentation's section: "Resource Usage / Memory"
	Type    string // BOOLEAN, INTEGER, REAL, STRING or ENUM
}

// Describe is every parameter of the server program b, by lowercase
// name. The
// description is read once per build and kept in the user's cache
// directory, keyed by the version and the program's path, so that a plan
// does not run the program again.
func Describe(ctx context.Context, b Binaries) (map[string]Param, error) {
	cache := describeCache(b)
	if cache != "" {
		if text, err := os.ReadFile(cache); err == nil {
			if params := parseDescription(string(text)); len(params) > 0 {
				return params, nil
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.Postgres(), "--describe-config")
	// The groups are compared in English: no translation.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "LC_MESSAGES=C")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s --describe-config: %w", b.Postgres(), err)
	}
	params := parseDescription(string(out))
	if len(params) == 0 {
		return nil, fmt.Errorf("%s --describe-config described no parameter", b.Postgres())
	}
	if cache != "" {
		// A cache that cannot be written costs a run of the program next
		// time, nothing more. Written beside and renamed, so that a
		// concurrent plan never reads half a file.
		if os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
			if f, err := os.CreateTemp(filepath.Dir(cache), ".describe-*"); err == nil {
				_, werr := f.Write(out)
				if cerr := f.Close(); werr == nil && cerr == nil {
					_ = os.Rename(f.Name(), cache)
				}
				_ = os.Remove(f.Name())
			}
		}
	}
	return params, nil
}

// describeCache is the cache file of b's description, "" when the user
// has no cache directory.
func describeCache(b Binaries) string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(b.Postgres()))
	return filepath.Join(d, "tenantbench", "describe-config", b.Version+"-"+hex.EncodeToString(sum[:6])+".tsv")
}

// parseDescription reads --describe-config's lines: name, context, group,
// type, then the default, bounds and descriptions, tab-separated.
func parseDescription(text string) map[string]Param {
	params := map[string]Param{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 4 || f[0] == "" {
			continue
		}
		// A spec's names are lowercase; the server ignores case
		// ("TimeZone").
		params[strings.ToLower(f[0])] = Param{Name: f[0], Context: f[1], Group: f[2], Type: f[3]}
	}
	return params
}
