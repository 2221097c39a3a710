package k8stest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// sysctls are the settings the kubelet (overcommit, panics), the CNI
// bridge plugin (forwarding) and kube-proxy (route_localnet, were its
// localhost node ports on) change on the host: teardown puts back the
// values they had.
var sysctls = []string{"kernel/panic", "kernel/panic_on_oops", "vm/overcommit_memory", "vm/panic_on_oom", "net/ipv4/ip_forward",
	"net/ipv4/conf/all/route_localnet"}

// fixedPaths are where the kubelet, containerd and libcni write whatever
// their configuration says: teardown removes those that did not exist.
var fixedPaths = []string{"/var/lib/kubelet", "/var/log/containers", "/var/log/pods", "/usr/libexec/kubernetes",
	"/run/containerd", "/var/lib/containerd", "/var/lib/cni", "/etc/cni"}

// cgroupTops are the cgroups the kubelet (cgroupfs driver) and containerd
// make below each hierarchy's root.
var cgroupTops = []string{"kubepods", "k8s.io"}

// baseline is the host as it was before the cluster: what teardown
// restores and checks against.
type baseline struct {
	sysctl  map[string]string
	chains  map[string]bool // "iptables filter KUBE-X", of KUBE- and CNI- chains
	tables  map[string]bool // "iptables nat": the tables that existed
	paths   map[string]bool
	cgroups map[string]bool
}

func readBaseline() *baseline {
	b := &baseline{sysctl: map[string]string{}, paths: map[string]bool{}, cgroups: map[string]bool{}}
	for _, k := range sysctls {
		if v, err := os.ReadFile("/proc/sys/" + k); err == nil {
			b.sysctl[k] = strings.TrimSpace(string(v))
		}
	}
	b.chains, b.tables = ourChains()
	for _, p := range fixedPaths {
		if _, err := os.Lstat(p); err == nil {
			b.paths[p] = true
		}
	}
	for _, c := range cgroupDirs() {
		b.cgroups[c] = true
	}
	return b
}

// iptablesTables are the tables the kubelet and the CNI plugins write.
var iptablesTables = []string{"filter", "nat", "mangle", "raw"}

// ourChains lists the KUBE- and CNI- chains there are, and the tables.
func ourChains() (chains, tables map[string]bool) {
	chains, tables = map[string]bool{}, map[string]bool{}
	for _, ipt := range []string{"iptables", "ip6tables"} {
		out, _ := exec.Command(ipt + "-save").Output()
		table := ""
		for _, l := range strings.Split(string(out), "\n") {
			switch {
			case strings.HasPrefix(l, "*"):
				table = l[1:]
				tables[ipt+" "+table] = true
			case strings.HasPrefix(l, ":KUBE-"), strings.HasPrefix(l, ":CNI-"):
				chains[ipt+" "+table+" "+strings.Fields(l[1:])[0]] = true
			}
		}
	}
	return chains, tables
}

// cgroupDirs are the kubelet's and containerd's top cgroups that exist.
func cgroupDirs() []string {
	var out []string
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	roots = append(roots, "/sys/fs/cgroup") // cgroup v2: one hierarchy
	for _, r := range roots {
		for _, t := range cgroupTops {
			if st, err := os.Stat(filepath.Join(r, t)); err == nil && st.IsDir() {
				out = append(out, filepath.Join(r, t))
			}
		}
	}
	return out
}

// Teardown stops the cluster and removes every trace it left on the
// host, then checks the host against the baseline taken before it
// started. Safe to call on a cluster that started only in part.
func (c *Cluster) Teardown() error {
	var errs []error
	running := func(name string) bool {
		for _, p := range c.procs {
			if p.name == name {
				select {
				case <-p.done:
					return false
				default:
					return true
				}
			}
		}
		return false
	}
	// 1. The kubelet tears its pods down itself (CNI DEL, unmounts).
	if running("kubelet") && running("kube-apiserver") {
		c.deletePods()
	}
	// 2. The components, the kubelet first, containerd last.
	for _, name := range []string{"kube-proxy", "kubelet", "kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd"} {
		for _, p := range c.procs {
			if p.name == name {
				p.stop()
			}
		}
	}
	// 3. Sandboxes and containers left (pods not deleted through the
	// API); then containerd and its shims.
	if running("containerd") {
		ctr := func(a ...string) []string {
			out, _ := exec.Command("ctr", append([]string{"-a", c.socket(), "-n", "k8s.io"}, a...)...).Output()
			return strings.Fields(string(out))
		}
		for _, t := range ctr("tasks", "ls", "-q") {
			ctr("tasks", "kill", "-s", "KILL", t)
		}
		time.Sleep(time.Second)
		for _, t := range ctr("tasks", "ls", "-q") {
			ctr("tasks", "rm", "-f", t)
		}
		for _, k := range ctr("containers", "ls", "-q") {
			ctr("containers", "rm", k)
		}
	}
	for _, p := range c.procs {
		p.stop()
	}
	c.killShims()
	// 4. Processes left in the pods' cgroups (a shim died): they can only
	// be the cluster's, and the cgroups cannot go while they live.
	for range 5 {
		pids := c.cgroupPids()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// 5. Mounts below the cluster's directory, deepest first.
	for range 3 {
		for _, m := range c.mounts() {
			if err := syscall.Unmount(m, 0); err != nil {
				_ = syscall.Unmount(m, syscall.MNT_DETACH)
			}
		}
	}
	// 6. The network.
	errs = append(errs, c.cleanNetwork())
	// 7. Sysctls, cgroups, fixed paths, the directory.
	if c.base != nil {
		for k, v := range c.base.sysctl {
			if err := os.WriteFile("/proc/sys/"+k, []byte(v), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s=%s: %w", k, v, err))
			}
		}
		for _, top := range cgroupDirs() {
			if !c.base.cgroups[top] {
				removeCgroups(top)
			}
		}
		for _, p := range fixedPaths {
			if !c.base.paths[p] {
				_ = os.RemoveAll(p)
			}
		}
	}
	if len(c.mounts()) == 0 {
		if err := os.RemoveAll(c.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, c.verify())
	return errors.Join(errs...)
}

// deletePods deletes every pod with a short grace period and waits for
// containerd to have no task left.
func (c *Cluster) deletePods() {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return
	}
	cfg.Timeout = 10 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	grace := int64(5)
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, ns := range nss.Items {
		_ = cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &grace}, metav1.ListOptions{})
	}
	for ctx.Err() == nil {
		out, _ := exec.Command("ctr", "-a", c.socket(), "-n", "k8s.io", "tasks", "ls", "-q").Output()
		if len(strings.Fields(string(out))) == 0 {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// shims are the containerd shims serving this cluster's containerd (their
// command line names its socket).
func (c *Cluster) shims() []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && strings.HasSuffix(args[0], "containerd-shim-runc-v2") && slices.Contains(args, c.socket()) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

func (c *Cluster) killShims() {
	for _, pid := range c.shims() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// cgroupPids are the processes in the kubelet's pod cgroups.
func (c *Cluster) cgroupPids() []int {
	var out []int
	for _, top := range cgroupDirs() {
		if c.base != nil && c.base.cgroups[top] {
			continue
		}
		_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
			return nil
		})
	}
	return out
}

// removeCgroups removes top and the cgroups below it, deepest first.
func removeCgroups(top string) {
	var dirs []string
	_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		_ = syscall.Rmdir(d)
	}
}

// mounts are the mount points at or below c.Dir, deepest first.
func (c *Cluster) mounts() []string {
	f, err := os.Open("/proc/mounts")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fs := strings.Fields(s.Text())
		if len(fs) > 1 && (fs[1] == c.Dir || strings.HasPrefix(fs[1], c.Dir+"/")) {
			out = append(out, fs[1])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}
