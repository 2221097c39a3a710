package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
)

// installed15 is the PostgreSQL 15 server installed here; the test is
// skipped where there is none.
func installed15(t *testing.T) Binaries {
	t.Helper()
	b, ok := choose(Finder{NoFetch: true}.Installed(context.Background()), "15")
	if !ok {
		t.Skip("no PostgreSQL 15 installed")
	}
	return b
}

// TestCheckSettings asks the real PostgreSQL 15 program about names and
// values a spec may hold.
func TestCheckSettings(t *testing.T) {
	installed15(t)
	refused, warned := Engine{}.CheckSettings("15", map[string]string{
		"shared_buffers":           "1PB",
		"work_mem":                 "lots",
		"wal_level":                "bogus",
		"max_connections":          "3000000",
		"shared_bufers":            "1GB",
		"foo.bar":                  "1",
		"shared_preload_libraries": "pg_stat_statements, no_such_lib",
		"ssl_cert_file":            "/tmp/x",
		"effective_cache_size":     "4GB",
		"maintenance_work_mem":     "64MB",
		"random_page_cost":         "1.1",
		"timezone":                 "UTC",
	})
	for key, want := range map[string]string{
		"shared_buffers":           `invalid value for parameter "shared_buffers": "1PB"`,
		"work_mem":                 `invalid value for parameter "work_mem": "lots"`,
		"wal_level":                "Available values: minimal, replica, logical",
		"max_connections":          "outside the valid range",
		"shared_bufers":            "did you mean shared_buffers?",
		"shared_preload_libraries": "no library no_such_lib installed",
		"ssl_cert_file":            "TLS",
	} {
		if !strings.Contains(refused[key], want) {
			t.Errorf("%s: refused %q, want it to say %q", key, refused[key], want)
		}
	}
	for _, key := range []string{"foo.bar", "effective_cache_size", "maintenance_work_mem", "random_page_cost", "timezone", ""} {
		if msg, ok := refused[key]; ok {
			t.Errorf("%s refused: %s", key, msg)
		}
	}
	if !strings.Contains(warned["foo.bar"], "custom setting") || len(warned) != 1 {
		t.Errorf("warnings %q, want one for foo.bar", warned)
	}
}

// TestCheckSettingsAcceptsValid: a valid set is accepted whole, an
// installed preload library included.
func TestCheckSettingsAcceptsValid(t *testing.T) {
	installed15(t)
	refused, warned := Engine{}.CheckSettings("15", map[string]string{
		"shared_buffers": "256MB", "work_mem": "4096", "wal_level": "minimal", "max_wal_senders": "0",
		"shared_preload_libraries": `pg_stat_statements,"auto_explain"`, "log_statement": "all",
	})
	if len(refused)+len(warned) > 0 {
		t.Errorf("refused %q, warned %q", refused, warned)
	}
}

// TestCheckSettingsVersion: a version neither installed nor published is
// refused, saying how to get one.
func TestCheckSettingsVersion(t *testing.T) {
	refused, _ := Engine{}.CheckSettings("99", map[string]string{"work_mem": "4MB"})
	msg := refused[""]
	if !strings.Contains(msg, "no PostgreSQL 99 server binaries found") || !strings.Contains(msg, "install them") {
		t.Errorf("version 99: %q", msg)
	}
	if len(refused) != 1 {
		t.Errorf("settings checked without a server: %q", refused)
	}
}

// TestDescribeCached: the description is read from the cache the first
// call wrote.
func TestDescribeCached(t *testing.T) {
	b := installed15(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	first, err := Describe(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if p := first["timezone"]; p.Name != "TimeZone" || p.Type != "STRING" {
		t.Errorf("timezone described as %+v", p)
	}
	if p := first["listen_addresses"]; p.Group != "Connections and Authentication / Connection Settings" {
		t.Errorf("listen_addresses described as %+v", p)
	}
	// The program is not asked again: what the cache file says is the
	// description.
	cache := describeCache(b)
	text, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	text = append(text, "cached_only\tuser\tTest\tBOOLEAN\ton\t\t\tx\t\n"...)
	if err := os.WriteFile(cache, text, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Describe(context.Background(), b)
	if err != nil || len(again) != len(first)+1 || again["cached_only"].Type != "BOOLEAN" {
		t.Fatalf("second read: %d parameters (first %d), %v", len(again), len(first), err)
	}
	other := b
	other.Dir = t.TempDir()
	if describeCache(other) == cache {
		t.Error("two programs of one version share a cache file")
	}
}

// TestEveryDeniedGroupIsNamed: every parameter of PostgreSQL 15 in a
// denied group is in the static list too, so that a start, which has no
// description, refuses it as well.
func TestEveryDeniedGroupIsNamed(t *testing.T) {
	b := installed15(t)
	params, err := Describe(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, p := range params {
		if deniedGroups[p.Group] != "" {
			n++
			if !Managed(name) {
				t.Errorf("%s (%s) is refused by the plan but not at start", name, p.Group)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d parameters in the denied groups", n)
	}
}
