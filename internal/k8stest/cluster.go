package k8stest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a running single-node cluster: containerd, etcd, the API
// server, controller manager, scheduler, kubelet and kube-proxy, each a process this
// package started, all of their state below Dir.
type Cluster struct {
	// Dir holds everything of the cluster that has a configurable place.
	Dir string
	// Kubeconfig is the admin's kubeconfig (group system:masters).
	Kubeconfig string
	// PGVersion is the host's PostgreSQL major version the image holds;
	// PGImage the image's name, present on the node (imagePullPolicy
	// Never: there is no registry).
	PGVersion, PGImage string

	bin   string
	procs []*process
	base  *baseline
}

// process is one component the cluster started.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func (c *Cluster) socket() string { return filepath.Join(c.Dir, "containerd.sock") }

// start runs a component in its own process group, its output to
// logs/<name>.log.
func (c *Cluster) start(name string, args ...string) error {
	logf, err := os.Create(filepath.Join(c.Dir, "logs", name+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	c.procs = append(c.procs, p)
	return nil
}

// stop ends a component: SIGTERM, then SIGKILL of its process group
// after 20 s.
func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// waitFor polls ok every 200 ms until it holds, a component it depends
// on exits, or the timeout.
func (c *Cluster) waitFor(what string, timeout time.Duration, ok func() bool) error {
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		if ok() {
			return nil
		}
		for _, p := range c.procs {
			select {
			case <-p.done:
				return fmt.Errorf("waiting for %s: %s exited (its log: %s)", what, p.name, filepath.Join(c.Dir, "logs", p.name+".log"))
			default:
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %s (logs in %s)", what, timeout, filepath.Join(c.Dir, "logs"))
}

// up starts the components in order, each once the one before answers.
func (c *Cluster) up(ctx context.Context) error {
	for _, d := range []string{"logs", "etcd", "kubelet"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o700); err != nil {
			return err
		}
	}
	if err := c.writeConfigs(); err != nil {
		return err
	}
	pkiDir := filepath.Join(c.Dir, "pki")
	if err := pki(pkiDir); err != nil {
		return err
	}
	c.Kubeconfig = filepath.Join(pkiDir, "admin.kubeconfig")
	if err := c.buildImages(); err != nil {
		return err
	}
	// The pod bridge exists before the kubelet, so that the node's IP is
	// a local address and the kubelet binds to it.
	for _, a := range [][]string{
		{"link", "add", bridge, "type", "bridge"},
		{"addr", "add", NodeIP + PodNet[strings.Index(PodNet, "/"):], "dev", bridge},
		{"link", "set", bridge, "up"},
	} {
		if out, err := exec.Command("ip", a...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %v: %v: %s", a, err, out)
		}
	}
	if err := c.start("containerd", "containerd", "--config", filepath.Join(c.Dir, "containerd.toml")); err != nil {
		return err
	}
	if err := c.waitFor("containerd", 30*time.Second, func() bool {
		return exec.Command("ctr", "-a", c.socket(), "version").Run() == nil
	}); err != nil {
		return err
	}
	if err := c.importImages(); err != nil {
		return err
	}
	etcd := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(etcdPort+1)
	if err := c.start("etcd", "etcd", "--name", "k8stest", "--data-dir", filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls", etcd, "--advertise-client-urls", etcd,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "k8stest="+peer,
		"--listen-metrics-urls", "http://127.0.0.1:"+strconv.Itoa(etcdPort+2)); err != nil {
		return err
	}
	if err := c.waitFor("etcd", 30*time.Second, func() bool {
		r, err := http.Get(etcd + "/health")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	}); err != nil {
		return err
	}
	p := func(f string) string { return filepath.Join(pkiDir, f) }
	if err := c.start("kube-apiserver", filepath.Join(c.bin, "kube-apiserver"),
		"--etcd-servers="+etcd, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(apiPort), "--advertise-address="+NodeIP,
		"--service-cluster-ip-range="+ServiceNet, "--allow-privileged=true",
		"--client-ca-file="+p("ca.crt"), "--tls-cert-file="+p("apiserver.crt"), "--tls-private-key-file="+p("apiserver.key"),
		"--kubelet-client-certificate="+p("apiserver-kubelet-client.crt"), "--kubelet-client-key="+p("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority="+p("ca.crt"), "--kubelet-preferred-address-types=InternalIP",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+p("sa.pub"), "--service-account-signing-key-file="+p("sa.key"),
		"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction"); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := c.waitFor("kube-apiserver", 60*time.Second, func() bool {
		_, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil
	}); err != nil {
		return err
	}
	if err := c.start("kube-controller-manager", filepath.Join(c.bin, "kube-controller-manager"),
		"--kubeconfig="+p("controller-manager.kubeconfig"), "--authentication-kubeconfig="+p("controller-manager.kubeconfig"),
		"--authorization-kubeconfig="+p("controller-manager.kubeconfig"), "--bind-address=127.0.0.1", "--leader-elect=false",
		"--service-account-private-key-file="+p("sa.key"), "--root-ca-file="+p("ca.crt"), "--use-service-account-credentials=true",
		"--service-cluster-ip-range="+ServiceNet); err != nil {
		return err
	}
	if err := c.start("kube-scheduler", filepath.Join(c.bin, "kube-scheduler"),
		"--kubeconfig="+p("scheduler.kubeconfig"), "--authentication-kubeconfig="+p("scheduler.kubeconfig"),
		"--authorization-kubeconfig="+p("scheduler.kubeconfig"), "--bind-address=127.0.0.1", "--leader-elect=false"); err != nil {
		return err
	}
	if err := c.start("kubelet", filepath.Join(c.bin, "kubelet"), "--config="+filepath.Join(c.Dir, "kubelet.yaml"),
		"--kubeconfig="+p("kubelet.kubeconfig"), "--root-dir="+filepath.Join(c.Dir, "kubelet"),
		"--hostname-override="+NodeName, "--node-ip="+NodeIP); err != nil {
		return err
	}
	if err := c.waitFor("node "+NodeName, 90*time.Second, func() bool {
		n, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue
			}
		}
		return false
	}); err != nil {
		return err
	}
	// kube-proxy makes Services real: a ClusterIP or NodePort Service is
	// its iptables rules. Healthy once it has synced them.
	if err := c.start("kube-proxy", filepath.Join(c.bin, "kube-proxy"), "--config="+filepath.Join(c.Dir, "kube-proxy.yaml")); err != nil {
		return err
	}
	if err := c.waitFor("kube-proxy", 60*time.Second, func() bool {
		r, err := http.Get("http://127.0.0.1:10256/healthz")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	}); err != nil {
		return err
	}
	// Pods cannot be created in a namespace before its default service
	// account exists.
	return c.waitFor("the default service account", 60*time.Second, func() bool {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
}

// portsFree says which of the cluster's fixed ports are taken: another
// cluster (or anything else) on them would make this one fail half-way.
func portsFree() error {
	for _, p := range []int{apiPort, etcdPort, etcdPort + 1, etcdPort + 2, 10248, 10249, 10250, 10256, 10257, 10259} {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return fmt.Errorf("port %d is taken (another cluster running?): %w", p, err)
		}
		l.Close()
	}
	if _, err := net.InterfaceByName(bridge); err == nil {
		return fmt.Errorf("interface %s exists: another cluster of this harness is running, or one was not torn down", bridge)
	}
	return nil
}
