package postgres

import (
	"context"
	"os"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct{ in, version, major string }{
		{"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n", "15.18", "15"},
		{"postgres (PostgreSQL) 16.4\n", "16.4", "16"},
		{"postgres (PostgreSQL) 18beta1", "18", "18"},
		{"postgres (PostgreSQL) 9.6.24", "9.6.24", "9.6"},
	} {
		v, m, err := ParseVersion(c.in)
		if err != nil || v != c.version || m != c.major {
			t.Errorf("ParseVersion(%q) = %q, %q, %v; want %q, %q", c.in, v, m, err, c.version, c.major)
		}
	}
	if _, _, err := ParseVersion("mysqld  Ver 8.0"); err == nil {
		t.Error("a non-PostgreSQL version was accepted")
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"15.18", "15.9", 1},
		{"9.6.24", "10.1", -1},
		{"10.5.0-1", "10.5.0", 1},
		{"16.4", "16.4.0", 0},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestChoose(t *testing.T) {
	found := []Binaries{{Dir: "/a", Version: "17.2", Major: "17"}, {Dir: "/b", Version: "15.8", Major: "15"}}
	for _, c := range []struct {
		want, dir string
		ok        bool
	}{{"", "/a", true}, {"15", "/b", true}, {"15.8", "/b", true}, {"16", "", false}} {
		b, ok := choose(found, c.want)
		if ok != c.ok || b.Dir != c.dir {
			t.Errorf("choose(%q) = %s, %v; want %s, %v", c.want, b.Dir, ok, c.dir, c.ok)
		}
	}
}

// TestInstalled runs against this machine's installations, if any.
func TestInstalled(t *testing.T) {
	found := Finder{NoFetch: true}.Installed(context.Background())
	if len(found) == 0 {
		t.Skip("no PostgreSQL installed")
	}
	for i, b := range found {
		t.Logf("%s in %s", b.Version, b.Dir)
		if b.Major == "" || b.Version == "" {
			t.Errorf("incomplete %+v", b)
		}
		if i > 0 && os.Getenv("PG_BINDIR") == "" && compareVersions(found[i-1].Version, b.Version) < 0 {
			t.Errorf("not newest first: %s before %s", found[i-1].Version, b.Version)
		}
	}
	b, err := Finder{NoFetch: true}.Find(context.Background(), found[0].Major)
	if err != nil || b.Major != found[0].Major {
		t.Errorf("Find(%s) = %+v, %v", found[0].Major, b, err)
	}
	if _, err := (Finder{NoFetch: true}).Find(context.Background(), "7"); err == nil {
		t.Error("Find(7) found something with fetching off")
	}
}
