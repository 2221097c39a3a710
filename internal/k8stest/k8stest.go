// Package k8stest starts a real single-node Kubernetes cluster for a
// test package: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, a kubelet on containerd and runc and kube-proxy, with PostgreSQL
// and pause images built from the host's files (no registry). No fake
// stands in for the cluster.
//
//	func TestMain(m *testing.M) { k8stest.Main(m) } // one cluster per package (or os.Exit(k8stest.Run(m)))
//	c := k8stest.Get(t)                             // skips when there is none
//
// It needs root and TENANTBENCH_K8S=1 (else every test that asks for the
// cluster is skipped, saying why), Debian's containerd, runc,
// containernetworking-plugins, etcd-server, iptables, conntrack and
// nftables, and a PostgreSQL of Debian's packages. The Kubernetes
// binaries are built once from the Go module proxy (kube/ is the wrapper
// module) and cached under the user's cache directory by version.
// Teardown runs when the package's tests end and on SIGINT, SIGTERM and
// SIGHUP, and removes every trace of the cluster from the host
// (processes, mounts, links, iptables chains, sysctls, cgroups, paths);
// the package fails when the host then differs from the baseline taken
// before the start.
package k8stest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Enable is the variable that opts in: the cluster changes the host's
// network and sysctls for as long as it runs.
const Enable = "TENANTBENCH_K8S"

// lockFile serializes the clusters of test packages run at once.
const lockFile = "/tmp/tenantbench-k8stest.lock"

var (
	mu      sync.Mutex
	current *Cluster
	skipped string // why there is no cluster
)

// Get is the package's cluster; it skips t when there is none.
func Get(t testing.TB) *Cluster {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if current == nil {
		t.Skip("k8stest: " + skipped)
	}
	return current
}

// unavailable says why no cluster can start here, "" when one can.
func unavailable() string {
	if os.Getenv(Enable) != "1" {
		return Enable + "=1 is not set: the Kubernetes tests start a cluster that changes the host's network and sysctls while it runs"
	}
	if os.Geteuid() != 0 {
		return "not root: the kubelet, containerd and the pod network need root"
	}
	for _, p := range []string{"containerd", "ctr", "runc", "etcd", "iptables", "nft", "conntrack", "ip", "bash", "go"} {
		if _, err := exec.LookPath(p); err != nil {
			return p + " is not installed (apt-get install containerd runc containernetworking-plugins etcd-server iptables conntrack nftables)"
		}
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		return "the CNI plugins are not installed in /usr/lib/cni (containernetworking-plugins)"
	}
	if hostPostgres() == "" {
		return "no PostgreSQL in /usr/lib/postgresql to build the image from"
	}
	return ""
}

// Main runs the package's tests around one cluster and exits: with no
// cluster (unavailable) the tests run and skip.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain with more to do before it exits: it returns
// the exit code.
func Run(m *testing.M) int {
	if skipped = unavailable(); skipped != "" {
		return m.Run()
	}
	// One cluster on the machine at a time (fixed ports, bridge, paths):
	// test packages run at once by `go test ./...` take turns. The lock
	// goes with the process, however it ends.
	lock, err := os.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8stest: %v\n", err)
		return 1
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		fmt.Fprintf(os.Stderr, "k8stest: locking %s: %v\n", lockFile, err)
		return 1
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var once sync.Once
	var downErr error
	var c *Cluster
	down := func() {
		once.Do(func() {
			mu.Lock()
			cl := c
			current = nil
			mu.Unlock()
			if cl != nil {
				t0 := time.Now()
				downErr = cl.Teardown()
				fmt.Fprintf(os.Stderr, "k8stest: cluster torn down in %s\n", time.Since(t0).Round(100*time.Millisecond))
			}
		})
	}
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "k8stest: %v: tearing the cluster down\n", s)
		down()
		if downErr != nil {
			fmt.Fprintln(os.Stderr, downErr)
		}
		os.Exit(1)
	}()
	t0 := time.Now()
	cl, err := Start(context.Background(), func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) },
		func(cl *Cluster) { mu.Lock(); c = cl; mu.Unlock() })
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8stest: %v\n", err)
		down()
		if downErr != nil {
			fmt.Fprintln(os.Stderr, downErr)
		}
		return 1
	}
	fmt.Fprintf(os.Stderr, "k8stest: cluster up in %s\n", time.Since(t0).Round(100*time.Millisecond))
	mu.Lock()
	current = cl
	mu.Unlock()
	code := m.Run()
	down()
	if downErr != nil {
		fmt.Fprintln(os.Stderr, downErr)
		code = 1
	}
	return code
}

// Start builds (or finds) the binaries and images and starts a cluster.
// made is called as soon as anything of the cluster exists, so that a
// caller can tear down what a failed or interrupted start left.
func Start(ctx context.Context, logf func(string, ...any), made func(*Cluster)) (*Cluster, error) {
	if err := portsFree(); err != nil {
		return nil, err
	}
	bin, err := binaries(logf)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tbk8s-")
	if err != nil {
		return nil, err
	}
	v := hostPostgres()
	c := &Cluster{Dir: dir, bin: bin, PGVersion: v, PGImage: "localhost/postgres:" + v, base: readBaseline()}
	made(c)
	if err := c.up(ctx); err != nil {
		return c, err
	}
	return c, nil
}
