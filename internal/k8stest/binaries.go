package k8stest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Version is the Kubernetes release the harness runs: the wrapper module
// in kube/ requires it. Stay on v1.34.x while the machine has cgroup v1
// and Debian's containerd 1.6: later kubelets refuse both by default.
const Version = "v1.34.4"

// components are the binaries the cluster runs, built from
// k8s.io/kubernetes/cmd/<name>.
var components = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy"}

// sourceDir is this package's directory in the repository: the wrapper
// module and the image scripts live below it.
func sourceDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot find the k8stest package's source")
	}
	return filepath.Dir(file), nil
}

// binaries returns the directory holding the Kubernetes binaries of
// Version: the user's cache dir when an earlier build left them there,
// else built now from the Go module proxy through the wrapper module
// (about 4 minutes and 1.8 GiB on 2 cores when nothing is cached); a
// cache missing some components (kube-proxy came later) gets only
// those. `go install k8s.io/kubernetes/cmd/...@version` does not work:
// the kubernetes module replaces its staging modules, which only a main
// module's replace lines can do, hence kube/go.mod.
func binaries(logf func(string, ...any)) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "tenantbench", "kubernetes", Version)
	missing := absent(dir)
	if len(missing) == 0 {
		return dir, nil
	}
	src, err := sourceDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), Version+".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	major, minor, _ := strings.Cut(strings.TrimPrefix(Version, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	var ld []string
	for _, p := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		ld = append(ld, "-X", p+".gitVersion="+Version, "-X", p+".gitMajor="+major, "-X", p+".gitMinor="+minor)
	}
	ld = append(ld, "-X", "k8s.io/component-base/version.gitTreeState=clean")
	args := []string{"build", "-mod=mod", "-trimpath", "-ldflags", "-s -w " + strings.Join(ld, " "), "-o", tmp + "/"}
	for _, c := range missing {
		args = append(args, "k8s.io/kubernetes/cmd/"+c)
	}
	logf("k8stest: building Kubernetes %s %v into %s (minutes, once)", Version, missing, dir)
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(src, "kube")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-modcacherw")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building Kubernetes %s: %v\n%s", Version, err, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// A rename each, so that a build killed half-way is never taken for
	// one.
	for _, c := range missing {
		if st, err := os.Stat(filepath.Join(tmp, c)); err != nil || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("building Kubernetes %s left no %s in %s", Version, c, tmp)
		}
		if err := os.Rename(filepath.Join(tmp, c), filepath.Join(dir, c)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// absent are the components dir lacks.
func absent(dir string) []string {
	var out []string
	for _, c := range components {
		if st, err := os.Stat(filepath.Join(dir, c)); err != nil || st.Mode()&0o111 == 0 {
			out = append(out, c)
		}
	}
	return out
}
