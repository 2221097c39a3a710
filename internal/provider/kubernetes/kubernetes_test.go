package kubernetes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tenantbench/tenantbench/internal/k8stest"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// kubeconfigEnv is the variable the tests' sut.kubernetes names.
const kubeconfigEnv = "TB_TEST_KUBECONFIG"

// book is a ledger that keeps the last record of each instance, as
// live.json does.
type book struct {
	mu   sync.Mutex
	live map[string]provider.Record
}

func (b *book) Live(r provider.Record) { b.mu.Lock(); b.live[r.DataDir] = r; b.mu.Unlock() }
func (b *book) Gone(r provider.Record) { b.mu.Lock(); delete(b.live, r.DataDir); b.mu.Unlock() }

// namespace makes a namespace for one test, deleted when it ends, and
// returns the cluster as a spec names it.
func namespace(t *testing.T, name string) provider.Cluster {
	t.Helper()
	c := k8stest.Get(t)
	t.Setenv(kubeconfigEnv, c.Kubeconfig)
	c.Namespace(t, name)
	return provider.Cluster{KubeconfigEnv: kubeconfigEnv, Namespace: name, Image: c.PGImage}
}

// labelled counts the objects in the namespace that carry the run's
// label.
func labelled(t *testing.T, cl provider.Cluster, run string) int {
	t.Helper()
	cs, err := client(cl)
	if err != nil {
		t.Fatal(err)
	}
	n, err := countLabelled(context.Background(), cs, cl.Namespace,
		metav1.ListOptions{LabelSelector: labels.SelectorFromSet(map[string]string{LabelRun: run}).String()}, false)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStartStop: an instance is a pod under the spec's limits that a
// client reaches at its IP with the run's settings in force; the ledger
// records its cluster and labels before anything exists; Stop leaves
// nothing labelled with the run, and StopRecord (down) deletes an
// instance from its record alone.
func TestStartStop(t *testing.T) {
	cl := namespace(t, "tb-startstop")
	ctx := context.Background()
	l := &book{live: map[string]provider.Record{}}
	cl.NodeSelector = map[string]string{"kubernetes.io/hostname": k8stest.NodeName}
	spec := provider.InstanceSpec{Name: "t01", WorkDir: t.TempDir(), RunID: "r001_abc123", Ledger: l, Cluster: &cl,
		CPUs: 0.5, MemoryBytes: 256 << 20, MaxConnections: 37, Settings: map[string]string{"work_mem": "8MB"}}
	inst, err := Provider{}.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	readyAt := time.Now()
	if inst.Host == "" || !strings.HasPrefix(inst.Host, "203.0.113.") || inst.Version == "" {
		t.Errorf("host %q (want the pod's IP), version %q", inst.Host, inst.Version)
	}
	if lim, ok := provider.As[provider.Limits](inst); !ok {
		t.Error("no Limits")
	} else if c, m, enf := lim.Limits(); c != 0.5 || m != 256<<20 || !enf {
		t.Errorf("limits %v %v %v", c, m, enf)
	}
	conn := pgtest.Connect(t, inst, "postgres")
	for setting, want := range map[string]string{"max_connections": "37", "work_mem": "8MB"} {
		var got string
		if err := conn.QueryRow(ctx, "SHOW "+setting).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %s", setting, got, err, want)
		}
	}
	// The settings came from the ConfigMap, the file the server read.
	var confFile string
	if err := conn.QueryRow(ctx, "SHOW config_file").Scan(&confFile); err != nil || confFile != "/etc/tenantbench/postgresql.conf" {
		t.Errorf("config_file %q (%v), want the ConfigMap's file", confFile, err)
	}
	cs, _ := client(cl)
	name := objectName(spec.RunID, "t01")
	if cm, err := cs.CoreV1().ConfigMaps(cl.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil ||
		!strings.Contains(cm.Data["postgresql.conf"], "work_mem = '8MB'") || cm.Labels[LabelRun] != "r001_abc123" {
		t.Errorf("configmap %s: %+v, %v", name, cm, err)
	}
	if svc, err := cs.CoreV1().Services(cl.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil ||
		svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Labels[LabelRun] != "r001_abc123" {
		t.Errorf("service %s: %+v, %v", name, svc, err)
	}
	// The kubelet measures the pod's server: its first figures come at
	// its housekeeping, some seconds after Ready.
	us, ok := provider.As[provider.UsageSampler](inst)
	if !ok {
		t.Fatal("no UsageSampler")
	}
	var u provider.Usage
	for end := time.Now().Add(time.Minute); time.Now().Before(end) && u.At.IsZero(); time.Sleep(500 * time.Millisecond) {
		if u, err = us.Usage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if u.At.IsZero() || u.CPUSeconds <= 0 || u.MemoryBytes <= 0 || u.MemoryBytes > 256<<20 {
		t.Errorf("usage %+v: want the server container's CPU and working set from its kubelet within a minute", u)
	}
	t.Logf("the kubelet's first figures %.1f s after Ready: %.3f CPU-s, %d MiB", time.Since(readyAt).Seconds(), u.CPUSeconds, u.MemoryBytes>>20)
	pod, err := cs.CoreV1().Pods(cl.Namespace).Get(ctx, name+"-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns := pod.Spec.NodeSelector; len(ns) != 1 || ns["kubernetes.io/hostname"] != k8stest.NodeName || pod.Spec.NodeName != k8stest.NodeName {
		t.Errorf("pod's node selector %v, node %s", ns, pod.Spec.NodeName)
	}
	if q := pod.Status.QOSClass; q != corev1.PodQOSGuaranteed {
		t.Errorf("pod QoS %s, want Guaranteed (requests = limits)", q)
	}
	if lim := pod.Spec.Containers[0].Resources.Limits; lim.Cpu().MilliValue() != 500 || lim.Memory().Value() != 256<<20 {
		t.Errorf("limits %v", lim)
	}
	l.mu.Lock()
	var rec provider.Record
	for _, r := range l.live {
		rec = r
	}
	l.mu.Unlock()
	if rec.Cluster == nil || rec.Cluster.Namespace != cl.Namespace || rec.Labels[LabelRun] != "r001_abc123" || rec.Labels[LabelInstance] != "t01" {
		t.Fatalf("ledger record %+v", rec)
	}
	if err := (Provider{}).Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	if n := labelled(t, cl, "r001_abc123"); n != 0 || len(l.live) != 0 {
		t.Errorf("after Stop: %d objects labelled with the run, %d records live", n, len(l.live))
	}
	select {
	case <-inst.Exited:
		t.Error("Exited closed by a Stop that was asked for")
	default:
	}

	// down: a run killed after its instance started leaves only the record.
	spec.RunID, spec.Name = "r002_def456", "shared"
	inst, err = Provider{}.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	rec = inst.Record()
	close(inst.Control.(*instance).stop) // as if the process were gone
	if n := labelled(t, cl, "r002_def456"); n != 5 {
		t.Errorf("%d objects labelled with the run, want 5 (statefulset, pod, secret, configmap, service)", n)
	}
	if err := StopRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if n := labelled(t, cl, "r002_def456"); n != 0 {
		t.Errorf("after StopRecord: %d objects labelled with the run", n)
	}
}

// TestCheckCluster: the plan's check names an unset variable, a missing
// kubeconfig and namespace, and passes a cluster where the run may work.
func TestCheckCluster(t *testing.T) {
	cl := namespace(t, "tb-check")
	ctx := context.Background()
	if msg := CheckCluster(ctx, cl, 1); msg != "" {
		t.Errorf("a usable namespace: %s", msg)
	}
	missing := cl
	missing.Namespace = "tb-nosuch"
	if msg := CheckCluster(ctx, missing, 1); !strings.Contains(msg, "tb-nosuch") {
		t.Errorf("a missing namespace: %q", msg)
	}
	unset := cl
	unset.KubeconfigEnv = "TB_TEST_UNSET_KUBECONFIG"
	os.Unsetenv(unset.KubeconfigEnv)
	if msg := CheckCluster(ctx, unset, 1); !strings.Contains(msg, "TB_TEST_UNSET_KUBECONFIG is not set") {
		t.Errorf("an unset variable: %q", msg)
	}
	// The test cluster has no storage class (no provisioner): a claim's
	// class is refused, saying so; a node selector matching no node is
	// refused, one matching the node is not.
	withClass := cl
	withClass.StorageClass, withClass.StorageBytes = "fast-ssd", 1<<30
	if msg := CheckCluster(ctx, withClass, 1); !strings.Contains(msg, "storage class fast-ssd does not exist: the cluster has no storage class") {
		t.Errorf("a missing storage class: %q", msg)
	}
	nowhere := cl
	nowhere.NodeSelector = map[string]string{"tenantbench.io/disk": "nvme"}
	if msg := CheckCluster(ctx, nowhere, 1); !strings.Contains(msg, "no node of the cluster carries the labels tenantbench.io/disk=nvme") {
		t.Errorf("a node selector matching no node: %q", msg)
	}
	here := cl
	here.NodeSelector = map[string]string{"kubernetes.io/hostname": k8stest.NodeName}
	if msg := CheckCluster(ctx, here, 1); msg != "" {
		t.Errorf("a node selector matching the node: %s", msg)
	}
	// A context the kubeconfig lacks is named with those it has; its
	// own context works.
	typo := cl
	typo.Context = "k8test"
	if msg := CheckCluster(ctx, typo, 1); !strings.Contains(msg, "context k8test is not in kubeconfig") || !strings.Contains(msg, "did you mean k8stest?") {
		t.Errorf("a missing context: %q", msg)
	}
	named := cl
	named.Context = "k8stest"
	if msg := CheckCluster(ctx, named, 1); msg != "" {
		t.Errorf("the kubeconfig's own context: %s", msg)
	}
	// spread: a run of two servers needs two nodes, which a one-node
	// cluster lacks; a run of one does not.
	spread := cl
	spread.Spread = true
	if msg := CheckCluster(ctx, spread, 2); !strings.Contains(msg, "starts 2 servers, which needs 2 nodes, and the cluster has 1") {
		t.Errorf("spread over one node: %q", msg)
	}
	if msg := CheckCluster(ctx, spread, 1); msg != "" {
		t.Errorf("spread of one server: %s", msg)
	}
	t.Setenv("TB_TEST_BAD_KUBECONFIG", "/nonexistent/kubeconfig")
	bad := cl
	bad.KubeconfigEnv = "TB_TEST_BAD_KUBECONFIG"
	if msg := CheckCluster(ctx, bad, 1); !strings.Contains(msg, "cannot be read") {
		t.Errorf("a missing kubeconfig: %q", msg)
	}
}

// TestImageNotPulled: an image that cannot be had fails the start with
// Kubernetes's reason, soon, and leaves nothing behind.
func TestImageNotPulled(t *testing.T) {
	cl := namespace(t, "tb-noimage")
	cl.Image = "localhost/nosuch:1"
	l := &book{live: map[string]provider.Record{}}
	t0 := time.Now()
	_, err := Provider{}.Start(context.Background(), provider.InstanceSpec{Name: "t01", RunID: "r001_aaaaaa", Cluster: &cl, Ledger: l})
	if err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("Start with a missing image: %v", err)
	}
	if d := time.Since(t0); d > time.Minute {
		t.Errorf("the failure took %s", d)
	}
	if n := labelled(t, cl, "r001_aaaaaa"); n != 0 || len(l.live) != 0 {
		t.Errorf("after a failed start: %d objects labelled, %d records live", n, len(l.live))
	}
}

// TestClaim: with a storage class, the server's data is on a
// PersistentVolumeClaim of that class, labelled with the run, and Stop
// deletes the claim with the rest. The test cluster has no provisioner:
// the test makes a class without one and a hostPath volume of it, as an
// administrator would, owned by the image's user.
func TestClaim(t *testing.T) {
	cl := namespace(t, "tb-claim")
	ctx := context.Background()
	cs, err := client(cl)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chown(dir, 999, 999); err != nil {
		t.Fatal(err)
	}
	const class, volume, run = "tb-manual", "tb-claim-volume", "r001_claim1"
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wait}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.StorageV1().StorageClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: volume}, Spec: corev1.PersistentVolumeSpec{
		Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}}}}
	if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().PersistentVolumes().Delete(context.Background(), volume, metav1.DeleteOptions{})
	})
	cl.StorageClass, cl.StorageBytes = class, 1<<30
	if msg := CheckCluster(ctx, cl, 1); msg != "" {
		t.Fatalf("a cluster with the class: %s", msg)
	}
	inst, err := Provider{}.Start(ctx, provider.InstanceSpec{Name: "t01", WorkDir: t.TempDir(), RunID: run, Cluster: &cl, MaxConnections: 20})
	if err != nil {
		t.Fatal(err)
	}
	sel := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(map[string]string{LabelRun: run}).String()}
	pvcs, err := cs.CoreV1().PersistentVolumeClaims(cl.Namespace).List(ctx, sel)
	if err != nil || len(pvcs.Items) != 1 || pvcs.Items[0].Spec.VolumeName != volume || *pvcs.Items[0].Spec.StorageClassName != class {
		t.Fatalf("claims of the run: %+v, %v", pvcs, err)
	}
	conn := pgtest.Connect(t, inst, "postgres")
	var dataDir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.Base(dataDir), "PG_VERSION")); err != nil {
		t.Errorf("the server's data (%s) is not on the claim's volume %s: %v", dataDir, dir, err)
	}
	conn.Close(ctx)
	if err := (Provider{}).Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	if n, err := countLabelled(ctx, cs, cl.Namespace, sel, true); err != nil || n != 0 {
		t.Errorf("after Stop: %d objects labelled with the run, claims included (%v)", n, err)
	}
}

// TestAccess: with access nodeport the instance is reached at its node's
// address and the node port of its NodePort Service (spread, which one
// server satisfies on one node: its pod has the anti-affinity), with port-forward
// at 127.0.0.1 through the API server; a client runs SQL there either
// way, and Stop leaves nothing (the forward ended).
func TestAccess(t *testing.T) {
	cl := namespace(t, "tb-access")
	ctx := context.Background()
	cs, err := client(cl)
	if err != nil {
		t.Fatal(err)
	}
	for i, acc := range []string{spec.AccessNodePort, spec.AccessPortForward} {
		c := cl
		c.Access = acc
		c.Spread = acc == spec.AccessNodePort // one server: the anti-affinity lets it run
		run := fmt.Sprintf("r00%d_access", i+1)
		inst, err := Provider{}.Start(ctx, provider.InstanceSpec{Name: "t01", WorkDir: t.TempDir(), RunID: run, Cluster: &c, MaxConnections: 20})
		if err != nil {
			t.Fatalf("%s: %v", acc, err)
		}
		ki := inst.Control.(*instance)
		svc, err := cs.CoreV1().Services(c.Namespace).Get(ctx, ki.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod, err := cs.CoreV1().Pods(c.Namespace).Get(ctx, ki.podName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if aff := pod.Spec.Affinity; c.Spread != (aff != nil && aff.PodAntiAffinity != nil) {
			t.Errorf("%s: spread %v, the pod's affinity %+v", acc, c.Spread, aff)
		}
		switch acc {
		case spec.AccessNodePort:
			if svc.Spec.Type != corev1.ServiceTypeNodePort || inst.Host != k8stest.NodeIP || inst.Port != int(svc.Spec.Ports[0].NodePort) {
				t.Errorf("nodeport: service %s, endpoint %s:%d", svc.Spec.Type, inst.Host, inst.Port)
			}
		case spec.AccessPortForward:
			if inst.Host != "127.0.0.1" || inst.Port == 5432 {
				t.Errorf("port-forward: endpoint %s:%d, want a local port of 127.0.0.1", inst.Host, inst.Port)
			}
		}
		conn := pgtest.Connect(t, inst, "postgres")
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 1000)").Scan(&n); err != nil || n != 1000 {
			t.Errorf("%s: a query at %s:%d: %d, %v", acc, inst.Host, inst.Port, n, err)
		}
		conn.Close(ctx)
		if err := (Provider{}).Stop(ctx, inst); err != nil {
			t.Fatal(err)
		}
		if n := labelled(t, c, run); n != 0 {
			t.Errorf("%s: after Stop: %d objects labelled with the run", acc, n)
		}
	}
}
