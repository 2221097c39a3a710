package postgres

import (
	"archive/tar"
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
	"github.com/xi2/xz"
)

// extractJar unpacks the .txz archive inside a binaries jar into dir.
func extractJar(jar *os.File, dir string) error {
	fi, err := jar.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(jar, fi.Size())
	if err != nil {
		return fmt.Errorf("not a jar: %w", err)
	}
	for _, zf := range zr.File {
		if !strings.HasSuffix(zf.Name, ".txz") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		xr, err := xz.NewReader(rc, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		return extractTar(tar.NewReader(xr), dir)
	}
	return errors.New("the jar holds no .txz archive")
}

// extractTar writes a tar stream below dir, refusing entries (and link
// targets) that would land outside it.
func extractTar(tr *tar.Reader, dir string) error {
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		target, err := maven.Inside(dir, h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			// Readable by all: the server may run as another user than
			// the one that fetched it.
			mode := os.FileMode(0o644)
			if h.FileInfo().Mode()&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", h.Name, err)
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(h.Linkname) {
				return fmt.Errorf("%s links outside the archive to %s", h.Name, h.Linkname)
			}
			if _, err := maven.Inside(dir, filepath.Join(filepath.Dir(h.Name), h.Linkname)); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		case tar.TypeLink:
			src, err := maven.Inside(dir, h.Linkname)
			if err != nil {
				return err
			}
			if err := os.Link(src, target); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader:
			// pax metadata for the whole archive, not a file
		default:
			// Device files and the like have no place in a binaries archive.
			return fmt.Errorf("%s: unexpected entry type %q", h.Name, h.Typeflag)
		}
	}
}
