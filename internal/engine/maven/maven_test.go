package maven

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

const metadata = `<?xml version="1.0" encoding="UTF-8"?>
<metadata><versioning><versions>
<version>15.9.0</version><version>15.13.0</version><version>15.2.0</version>
<version>16.4.0</version><version>16.4.0-1</version><version>16.10.0</version>
<version>10.11.5</version><version>11.4.5</version>
</versions></versioning></metadata>`

func TestNewest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(metadata))
	}))
	defer srv.Close()
	for want, version := range map[string]string{"15": "15.13.0", "16": "16.10.0", "16.4": "16.4.0-1", "15.2": "15.2.0",
		"10.11": "10.11.5", "11": "11.4.5", "10.11.5": "10.11.5"} {
		got, err := Newest(context.Background(), srv.URL, want)
		if err != nil || got != version {
			t.Errorf("Newest(%s) = %q, %v; want %s", want, got, err, version)
		}
	}
	if _, err := Newest(context.Background(), srv.URL, "17"); err == nil || !strings.Contains(err.Error(), "11.4.5") {
		t.Errorf("a 17 found, or the error does not list what is published: %v", err)
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
		{"11.4.5", "10.11.5", 1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestDownload serves an artifact with only a SHA-1 beside it (as Maven
// Central has for most): the right one is kept, a wrong one refused and
// removed, and one without any checksum refused.
func TestDownload(t *testing.T) {
	good := []byte("the published jar")
	sum := sha1.Sum(good)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.jar", "/bad.jar", "/bare.jar":
			if r.URL.Path == "/bad.jar" {
				w.Write([]byte("not the published jar"))
				return
			}
			w.Write(good)
		case "/good.jar.sha1", "/bad.jar.sha1":
			w.Write([]byte(hex.EncodeToString(sum[:]) + "  good.jar\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	f, err := Download(context.Background(), srv.URL+"/good.jar", dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, err := os.ReadFile(f.Name()); err != nil || string(b) != string(good) {
		t.Errorf("downloaded %q, %v", b, err)
	}
	os.Remove(f.Name())
	if _, err := Download(context.Background(), srv.URL+"/bad.jar", dir); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("a corrupt download: %v", err)
	}
	if _, err := Download(context.Background(), srv.URL+"/bare.jar", dir); err == nil || !strings.Contains(err.Error(), "no checksum") {
		t.Errorf("a download without a checksum: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed downloads left %v", entries)
	}
}

func TestInside(t *testing.T) {
	for name, ok := range map[string]bool{"bin/mariadbd": true, "../y": false, "a/../../y": false, "a/../b": true} {
		if _, err := Inside("/cache/x", name); (err == nil) != ok {
			t.Errorf("Inside(%q): %v", name, err)
		}
	}
}
