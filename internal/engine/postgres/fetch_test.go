package postgres

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
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
</versions></versioning></metadata>`

// TestFetchRefusesCorrupt serves a jar whose published checksum does not
// match: nothing may be installed.
func TestFetchRefusesCorrupt(t *testing.T) {
	artifact, err := artifactName()
	if err != nil {
		t.Skip(err)
	}
	jar := []byte("not the published jar")
	sum := sha256.Sum256([]byte("the published jar"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/maven-metadata.xml"):
			w.Write([]byte(metadata))
		case strings.HasSuffix(r.URL.Path, ".jar"):
			w.Write(jar)
		case strings.HasSuffix(r.URL.Path, ".jar.sha256"):
			w.Write([]byte(hex.EncodeToString(sum[:])))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cache := t.TempDir()
	_, err = Finder{CacheDir: cache, Repository: srv.URL}.Fetch(context.Background(), "16")
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("Fetch of a corrupt jar: %v", err)
	}
	if !strings.Contains(err.Error(), artifact) {
		t.Errorf("the error does not name the download: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the cache holds %v after a failed fetch", entries)
	}
}

func TestExtractTarRefusesEscapes(t *testing.T) {
	for _, h := range []tar.Header{
		{Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "bin/../../evil", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "lib/x.so", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		{Name: "lib/x.so", Typeflag: tar.TypeSymlink, Linkname: "../../etc/passwd"},
		{Name: "dev", Typeflag: tar.TypeChar},
	} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Close()
		if err := extractTar(tar.NewReader(&buf), t.TempDir()); err == nil {
			t.Errorf("entry %q -> %q extracted", h.Name, h.Linkname)
		}
	}
}
