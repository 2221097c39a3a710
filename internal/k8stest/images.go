package k8stest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// PauseImage is the pod sandbox's image: the 20-line program in pause/,
// built here (no registry to pull registry.k8s.io/pause from).
const PauseImage = "localhost/pause:k8stest"

// hostPostgres is the newest PostgreSQL major version installed from
// Debian's packages (/usr/lib/postgresql/N/bin/postgres), "" for none.
func hostPostgres() string {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	var versions []int
	for _, f := range found {
		if v, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(f)))); err == nil {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return ""
	}
	sort.Ints(versions)
	return strconv.Itoa(versions[len(versions)-1])
}

// buildImages packs the pause program and a PostgreSQL of the host's
// files into OCI archives under c.Dir/images, for `ctr images import`:
// scripts/pg-rootfs.sh makes the PostgreSQL root file system (its
// entrypoint runs initdb on first start, then postgres with the pod's
// arguments), scripts/oci.sh packs a directory as a one-layer image.
func (c *Cluster) buildImages() error {
	src, err := sourceDir()
	if err != nil {
		return err
	}
	dir := filepath.Join(c.Dir, "images")
	pauseRoot := filepath.Join(dir, "pauseroot")
	if err := os.MkdirAll(pauseRoot, 0o755); err != nil {
		return err
	}
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(pauseRoot, "pause"), ".")
	build.Dir = filepath.Join(src, "pause")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building pause: %v\n%s", err, out)
	}
	pgRoot := filepath.Join(dir, "pgroot")
	steps := [][]string{
		{filepath.Join(src, "scripts", "oci.sh"), PauseImage, pauseRoot, filepath.Join(dir, "pause.tar"), `["/pause"]`, "65535"},
		{filepath.Join(src, "scripts", "pg-rootfs.sh"), pgRoot, c.PGVersion},
		{filepath.Join(src, "scripts", "oci.sh"), c.PGImage, pgRoot, filepath.Join(dir, "postgres.tar"), `["/bin/pg-entrypoint"]`, "999"},
	}
	for _, s := range steps {
		if out, err := exec.Command("bash", s...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", filepath.Base(s[0]), err, out)
		}
	}
	// the root file systems are in the archives now
	if err := os.RemoveAll(pgRoot); err != nil {
		return err
	}
	return os.RemoveAll(pauseRoot)
}

// importImages loads the archives into containerd's k8s.io namespace,
// where the kubelet looks for images.
func (c *Cluster) importImages() error {
	for _, f := range []string{"pause.tar", "postgres.tar"} {
		out, err := exec.Command("ctr", "-a", c.socket(), "-n", "k8s.io", "images", "import", filepath.Join(c.Dir, "images", f)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("importing %s: %v\n%s", f, err, out)
		}
	}
	return nil
}
