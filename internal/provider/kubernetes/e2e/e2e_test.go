// Package e2e runs tenantbench on a real cluster with provider
// kubernetes. Apart from package kubernetes because it runs the command,
// whose packages import the provider.
package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tenantbench/tenantbench/internal/k8stest"
	k8sprov "github.com/tenantbench/tenantbench/internal/provider/kubernetes"
	"github.com/tenantbench/tenantbench/internal/run"
)

func TestMain(m *testing.M) { os.Exit(k8stest.Run(m)) }

// kubeconfigEnv is the variable the tests' sut.kubernetes names.
const kubeconfigEnv = "TB_TEST_KUBECONFIG"

// namespace makes a namespace for one test, deleted when it ends, and
// points the tests' kubeconfig variable at the cluster.
func namespace(t *testing.T, c *k8stest.Cluster, name string) *kubernetes.Clientset {
	t.Helper()
	t.Setenv(kubeconfigEnv, c.Kubeconfig)
	return c.Namespace(t, name)
}

// command runs tenantbench; it dies with the test process (a test binary
// stopped by a signal exits from k8stest's handler, skipping cleanups).
func command(bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// tenantbench builds the command for a test.
func tenantbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tenantbench")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/tenantbench/tenantbench/cmd/tenantbench").CombinedOutput(); err != nil {
		t.Fatalf("building tenantbench: %v\n%s", err, out)
	}
	return bin
}

// anyRun lists the objects in the namespace that carry a run label of
// any run: StatefulSets, pods, Secrets, ConfigMaps, Services and
// PersistentVolumeClaims.
func anyRun(t *testing.T, cs *kubernetes.Clientset, ns string) []string {
	t.Helper()
	ctx := context.Background()
	list := metav1.ListOptions{LabelSelector: k8sprov.LabelRun}
	var out []string
	sts, err := cs.AppsV1().StatefulSets(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sts.Items {
		out = append(out, "statefulset "+o.Name)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range pods.Items {
		out = append(out, "pod "+o.Name)
	}
	secrets, err := cs.CoreV1().Secrets(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range secrets.Items {
		out = append(out, "secret "+o.Name)
	}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range cms.Items {
		out = append(out, "configmap "+o.Name)
	}
	svcs, err := cs.CoreV1().Services(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range svcs.Items {
		out = append(out, "service "+o.Name)
	}
	pvcs, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range pvcs.Items {
		out = append(out, "persistentvolumeclaim "+o.Name)
	}
	return out
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 1 {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// TestRunTPCB: `tenantbench run` of tpcb on the cluster, two tenants in
// the schema and database models (one pod, the shared server) and the
// instance model (a pod each, the spec's CPUs and memory each): the runs
// commit, their results are
// written, the pods' CPU and memory come from the kubelet (too short a
// run for its figures to have moved: see TestRunTPCC), and nothing of
// them is left in the namespace or the ledger.
func TestRunTPCB(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-e2e"
	cs := namespace(t, c, ns)
	bin := tenantbench(t)
	tmp := t.TempDir()
	spec := `name: k8s
sut:
  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeconfigEnv + `, namespace: ` + ns + `, image: "` + c.PGImage + `"}
  resources: {cpus: 1, memory: 512MiB}
tenancy: {model: [schema, database, instance], tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 3s}
progress: 1s
`
	specPath := filepath.Join(tmp, "k8s.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	cmd := command(bin, env, "plan", specPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	out := filepath.Join(tmp, "results")
	cmd = command(bin, env, "run", specPath, "--out", out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 3 {
		t.Fatalf("results.csv has %d rows, want 3\n%s", len(rows), b)
	}
	for _, r := range rows {
		tps, _ := strconv.ParseFloat(r["throughput_tps"], 64)
		if r["status"] != "ok" || tps <= 0 {
			t.Errorf("run %s (%s): status %s, tps %s, error %s", r["run_id"], r["model"], r["status"], r["throughput_tps"], r["error"])
		}
		committed := committedTenants(t, out, r["run_id"])
		if len(committed) != 2 {
			t.Errorf("run %s: tenants that committed %v, want t01 and t02", r["run_id"], committed)
		}
	}
	// The instance model's tenants had a pod each, under the spec's
	// limits; the servers' CPU and memory are measured, by the kubelet.
	// The schema and database models' tenants shared one pod.
	for _, r := range rows[:2] {
		if sum := summary(t, out, r["run_id"]); len(sum.Instances) != 1 {
			t.Errorf("run %s (%s): instances %+v, want the one shared server", r["run_id"], r["model"], sum.Instances)
		}
	}
	sum := summary(t, out, "003")
	if len(sum.Instances) != 2 || !sum.Instances[1].LimitsEnforced || sum.Instances[1].CPUs != 1 {
		t.Errorf("run 003 (instance): instances %+v, want two of 1 CPU, limits enforced", sum.Instances)
	}
	if sum.NotMeasured != "" {
		t.Errorf("run 003: not_measured %q, want the pods measured by their kubelet", sum.NotMeasured)
	}
	sources(t, filepath.Join(out, "runs", "003"), 2)
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s: %v", ns, left)
	}
	if _, err := os.Stat(filepath.Join(out, run.LiveFile)); err == nil {
		t.Errorf("%s is left after runs that deleted everything", run.LiveFile)
	}
}

// committedTenants is the tenants that committed a transaction in run
// id (tenants.csv has a row per tenant and transaction type).
func committedTenants(t *testing.T, out, id string) map[string]bool {
	t.Helper()
	committed := map[string]bool{}
	for _, tr := range readCSV(t, filepath.Join(out, "runs", id, "tenants.csv")) {
		if n, _ := strconv.Atoi(tr["committed"]); n > 0 {
			committed[tr["tenant"]] = true
		}
	}
	return committed
}

// checkedTenants is the tenants whose consistency check ran in run id
// (phases.csv).
func checkedTenants(t *testing.T, out, id string) map[string]bool {
	t.Helper()
	checked := map[string]bool{}
	for _, p := range readCSV(t, filepath.Join(out, "runs", id, "phases.csv")) {
		if p["phase"] == "check" {
			checked[p["tenant"]] = true
		}
	}
	return checked
}

// runSummary is the part of a run's summary.json the tests read.
type runSummary struct {
	Instances []struct {
		Name           string  `json:"name"`
		LimitsEnforced bool    `json:"limits_enforced"`
		CPUs           float64 `json:"cpus"`
	} `json:"instances"`
	NotMeasured string `json:"not_measured"`
}

// summary reads run id's summary.json.
func summary(t *testing.T, out, id string) runSummary {
	t.Helper()
	var sum runSummary
	b, err := os.ReadFile(filepath.Join(out, "runs", id, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// sources checks that the monitor read n instances' CPU and memory from
// the kubelet (monitor.json).
func sources(t *testing.T, dir string, n int) {
	t.Helper()
	var meta struct {
		Instances []struct {
			Name         string `json:"name"`
			CPUSource    string `json:"cpu_source"`
			MemorySource string `json:"memory_source"`
			IOSource     string `json:"io_source"`
		} `json:"instances"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "monitor", "monitor.json"))
	if err == nil {
		err = json.Unmarshal(b, &meta)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Instances) != n {
		t.Fatalf("monitor.json: %d instances, want %d", len(meta.Instances), n)
	}
	for _, in := range meta.Instances {
		if in.CPUSource != "kubelet stats/summary" || in.MemorySource != "kubelet stats/summary" || in.IOSource != "none" {
			t.Errorf("instance %s: sources cpu %q, memory %q, io %q", in.Name, in.CPUSource, in.MemorySource, in.IOSource)
		}
	}
}

// TestRunTPCC: tpcc (one warehouse a tenant, two tenants) in the schema
// and database models, one pod each run: the runs commit, the
// consistency check after them passes, and the pod's CPU and memory over
// the measured workload are the kubelet's, not zero. The workload lasts 30 s: the kubelet
// refreshes a pod's figures every 10 to 15 s, so a shorter window may
// hold no refresh.
func TestRunTPCC(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-e2e-tpcc"
	cs := namespace(t, c, ns)
	bin := tenantbench(t)
	tmp := t.TempDir()
	spec := `name: k8s-tpcc
sut:
  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeconfigEnv + `, namespace: ` + ns + `, image: "` + c.PGImage + `"}
  resources: {cpus: 1, memory: 1GiB}
tenancy: {model: [schema, database], tenants: 2}
workload: {name: tpcc, scale: 1, clients: 2, warmup: 0s, duration: 30s}
progress: 10s
`
	specPath := filepath.Join(tmp, "k8s.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	out := filepath.Join(tmp, "results")
	b, err := command(bin, env, "run", specPath, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 {
		t.Fatalf("results.csv has %d rows, want 2\n%s", len(rows), b)
	}
	for _, r := range rows {
		tps, _ := strconv.ParseFloat(r["throughput_tps"], 64)
		cpu, _ := strconv.ParseFloat(r["cpu_s"], 64)
		mem, _ := strconv.ParseFloat(r["mem_peak_mb"], 64)
		if r["status"] != "ok" || tps <= 0 {
			t.Errorf("run %s (%s): status %s, tps %s, error %s\n%s", r["run_id"], r["model"], r["status"], r["throughput_tps"], r["error"], b)
		}
		// The pod had 1 CPU: its server used some, and at most 1 CPU over
		// the 30 s and the kubelet's lag (up to 15 s) at the window's start.
		if cpu <= 0 || cpu > 45*1.05 || mem <= 0 || mem > 1024 {
			t.Errorf("run %s (%s): cpu_s %q, mem_peak_mb %q: want the pod's, from its kubelet", r["run_id"], r["model"], r["cpu_s"], r["mem_peak_mb"])
		}
		t.Logf("tpcc on a pod, %s model: %s tps, cpu_s %s, mem_peak_mb %s", r["model"], r["throughput_tps"], r["cpu_s"], r["mem_peak_mb"])
		checked := checkedTenants(t, out, r["run_id"])
		if len(checked) != 2 {
			t.Errorf("run %s (%s): tenants whose consistency check ran: %v, want t01 and t02", r["run_id"], r["model"], checked)
		}
		sources(t, filepath.Join(out, "runs", r["run_id"]), 1)
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s: %v", ns, left)
	}
}

// TestRunSales: CloudyBench's sales workload in the schema model (the
// one model TestRunTPCB and TestRunTPCC leave out), one pod: the run
// commits for both tenants and its check passes.
func TestRunSales(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-e2e-sales"
	cs := namespace(t, c, ns)
	bin := tenantbench(t)
	tmp := t.TempDir()
	spec := `name: k8s-sales
sut:
  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeconfigEnv + `, namespace: ` + ns + `, image: "` + c.PGImage + `"}
tenancy: {model: schema, tenants: 2}
workload: {name: sales, scale: 0.1, clients: 2, warmup: 0s, duration: 3s}
progress: 1s
`
	specPath := filepath.Join(tmp, "k8s.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	out := filepath.Join(tmp, "results")
	b, err := command(bin, env, "run", specPath, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 1 || rows[0]["status"] != "ok" {
		t.Fatalf("results.csv: %v\n%s", rows, b)
	}
	committed := committedTenants(t, out, rows[0]["run_id"])
	if len(committed) != 2 {
		t.Errorf("tenants that committed %v, want t01 and t02", committed)
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s: %v", ns, left)
	}
}

// started runs `tenantbench run` of a long tpcb in the database model and
// returns it once the run's pod exists, with its results directory and
// environment.
func started(t *testing.T, c *k8stest.Cluster, cs *kubernetes.Clientset, ns, storage string) (*exec.Cmd, string, []string) {
	t.Helper()
	bin := tenantbench(t)
	tmp := t.TempDir()
	spec := `name: k8s
sut:
  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeconfigEnv + `, namespace: ` + ns + `, image: "` + c.PGImage + `"` + storage + `}
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 10m}
`
	specPath := filepath.Join(tmp, "k8s.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	out := filepath.Join(tmp, "results")
	cmd := command(bin, env, "run", specPath, "--out", out)
	log, err := os.Create(filepath.Join(tmp, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for end := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: k8sprov.LabelRun})
		if err == nil && len(pods.Items) > 0 && ready(pods.Items[0]) {
			break
		}
		if time.Now().After(end) {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("no pod of the run is ready after 3 minutes:\n%s", b)
		}
	}
	return cmd, out, env
}

func ready(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// volume makes a storage class without a provisioner and one volume of
// it (a directory of the host, owned by the image's user), as an
// administrator would on a cluster without a provisioner; both go when
// the test ends.
func volume(t *testing.T, cs *kubernetes.Clientset) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chown(dir, 999, 999); err != nil {
		t.Fatal(err)
	}
	const class, pvName = "tb-e2e-manual", "tb-e2e-volume"
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wait}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.StorageV1().StorageClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvName}, Spec: corev1.PersistentVolumeSpec{
		Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}}}}
	if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().PersistentVolumes().Delete(context.Background(), pvName, metav1.DeleteOptions{})
	})
	return class
}

// TestInterrupted: Ctrl-C while the run goes on leaves nothing of it in
// the namespace: no pod, PersistentVolumeClaim (its server's data is on
// one), Service or ConfigMap.
func TestInterrupted(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-interrupted"
	cs := namespace(t, c, ns)
	class := volume(t, cs)
	cmd, _, _ := started(t, c, cs, ns, ", storage: {class: "+class+", size: 1GiB}")
	if left := anyRun(t, cs, ns); !slices.ContainsFunc(left, func(o string) bool { return strings.HasPrefix(o, "persistentvolumeclaim ") }) ||
		!slices.ContainsFunc(left, func(o string) bool { return strings.HasPrefix(o, "configmap ") }) ||
		!slices.ContainsFunc(left, func(o string) bool { return strings.HasPrefix(o, "service ") }) {
		t.Fatalf("the running run's objects %v: want a claim, a configmap and a service among them, or the test proves nothing", left)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("tenantbench still runs 2 minutes after Ctrl-C")
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s after Ctrl-C: %v", ns, left)
	}
}

// TestKilledThenDown: after a SIGKILL the run's objects are still in the
// namespace and the ledger names them; `tenantbench down DIR` deletes
// them by their labels.
func TestKilledThenDown(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-killed"
	cs := namespace(t, c, ns)
	cmd, out, env := started(t, c, cs, ns, "")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if left := anyRun(t, cs, ns); len(left) == 0 {
		t.Fatal("nothing of the killed run is in the namespace: the test proves nothing")
	}
	book, err := run.ReadLive(out)
	if err != nil || book == nil || len(book.Instances) != 1 || len(book.Instances[0].Labels) == 0 {
		t.Fatalf("ledger %+v, %v: want the run's one server with its labels", book, err)
	}
	down := command(cmd.Path, env, "down", out)
	if b, err := down.CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s after down: %v", ns, left)
	}
}

// TestImageNotPulled: a run whose image cannot be pulled fails soon,
// its error naming the pod's event; the run is marked failed and
// nothing of it is left. A context the kubeconfig lacks is refused at
// plan, before anything starts.
func TestImageNotPulled(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-e2e-noimage"
	cs := namespace(t, c, ns)
	bin := tenantbench(t)
	tmp := t.TempDir()
	spec := `name: k8s-noimage
sut:
  provider: kubernetes
  kubernetes: {kubeconfig_env: ` + kubeconfigEnv + `, namespace: ` + ns + `, image: "localhost/nosuch:1"}
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 3s}
`
	specPath := filepath.Join(tmp, "k8s.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	out := filepath.Join(tmp, "results")
	t0 := time.Now()
	b, _ := command(bin, env, "run", specPath, "--out", out).CombinedOutput()
	if d := time.Since(t0); d > 2*time.Minute {
		t.Errorf("the failed run took %s", d)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 1 || rows[0]["status"] == "ok" || !strings.Contains(rows[0]["error"], "cannot start") ||
		!strings.Contains(rows[0]["error"], "localhost/nosuch:1") {
		t.Errorf("results.csv %v: want the run failed, naming the image and the pod's reason\n%s", rows, b)
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s after the failed run: %v", ns, left)
	}
	bad := strings.Replace(spec, "namespace: ", "context: nosuch, namespace: ", 1)
	if err := os.WriteFile(specPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := command(bin, env, "plan", specPath).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "sut.kubernetes") || !strings.Contains(string(b), "context nosuch is not in kubeconfig") {
		t.Errorf("plan with a context the kubeconfig lacks: %v\n%s", err, b)
	}
}
