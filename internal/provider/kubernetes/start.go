package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Start creates the instance's Secret, ConfigMap, Service and
// StatefulSet, waits for its pod to be Ready and for a real connection,
// and returns the instance where sut.kubernetes.access reaches it. The
// ledger hears of the instance before anything is created, so that a
// tenantbench killed meanwhile leaves the labels for down. A failed
// start deletes what it created.
func (Provider) Start(ctx context.Context, s provider.InstanceSpec) (*provider.Instance, error) {
	if s.Cluster == nil {
		return nil, fmt.Errorf("instance %s: no cluster named for it (sut.kubernetes)", s.Name)
	}
	if s.RunID == "" {
		return nil, fmt.Errorf("instance %s: no run name to label its objects with", s.Name)
	}
	eng, img, err := engineOf(s.Engine)
	if err != nil {
		return nil, err
	}
	acc, err := accessOf(s.Cluster.Access)
	if err != nil {
		return nil, err
	}
	cs, cfg, err := clientConfig(*s.Cluster)
	if err != nil {
		return nil, err
	}
	pw, err := password()
	if err != nil {
		return nil, err
	}
	name := objectName(s.RunID, s.Name)
	ki := &instance{spec: s, cs: cs, cfg: cfg, access: acc, name: name, ns: s.Cluster.Namespace,
		ctr:    img.Container(majorOf(s.Version), settingsOf(s)),
		labels: map[string]string{LabelRun: labelValue(s.RunID), LabelInstance: labelValue(s.Name)},
		stop:   make(chan struct{})}
	inst := &provider.Instance{Name: s.Name, Engine: eng, Port: ki.ctr.Port, User: ki.ctr.User, Password: pw, Control: ki,
		LimitsEnforced: s.CPUs > 0 || s.MemoryBytes > 0}
	ki.inst = inst
	if s.Ledger != nil {
		s.Ledger.Live(inst.Record())
	}
	if err := ki.create(ctx, pw); err != nil {
		return nil, ki.abandon(err)
	}
	pod, err := ki.waitReady(ctx)
	if err != nil {
		return nil, ki.abandon(err)
	}
	ki.podIP = pod.Status.PodIP
	host, port, end, err := acc.reach(ctx, ki, pod)
	if err != nil {
		return nil, ki.abandon(err)
	}
	ki.end = end
	inst.Host, inst.Port = host, port
	if inst.Version, err = ki.waitConnection(ctx); err != nil {
		return nil, ki.abandon(err)
	}
	exited := make(chan struct{})
	inst.Exited = exited
	go ki.watch(exited)
	if s.Ledger != nil {
		s.Ledger.Live(inst.Record())
	}
	return inst, nil
}

// abandon deletes what a failed start created and returns err.
func (ki *instance) abandon(err error) error {
	ki.ended()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if derr := deleteLabelled(ctx, ki.cs, ki.ns, ki.labels, claims(*ki.spec.Cluster)); derr != nil {
		return errors.Join(err, fmt.Errorf("deleting what was created: %w", derr))
	}
	if ki.spec.Ledger != nil {
		ki.spec.Ledger.Gone(ki.inst.Record())
	}
	return err
}

// create makes the Secret holding the password and the StatefulSet.
func (ki *instance) create(ctx context.Context, pw string) error {
	s := ki.spec
	meta := metav1.ObjectMeta{Name: ki.name, Namespace: ki.ns, Labels: ki.labels}
	secret := &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"password": pw}}
	if _, err := ki.cs.CoreV1().Secrets(ki.ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("instance %s: creating secret %s in namespace %s: %w", s.Name, ki.name, ki.ns, err)
	}
	// requests = limits: a Guaranteed pod, its CPUs a CFS quota, as the
	// local provider's cgroup gives.
	res := corev1.ResourceList{}
	if s.CPUs > 0 {
		res[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(s.CPUs*1000+0.5), resource.DecimalSI)
	}
	if s.MemoryBytes > 0 {
		res[corev1.ResourceMemory] = *resource.NewQuantity(s.MemoryBytes, resource.BinarySI)
	}
	ctr := ki.ctr
	if err := ki.createConfig(ctx); err != nil {
		return err
	}
	if err := ki.createService(ctx); err != nil {
		return err
	}
	uid := ctr.UID
	one := int32(1)
	podLabels := maps.Clone(ki.labels)
	env := []corev1.EnvVar{}
	for _, k := range slices.Sorted(maps.Keys(ctr.Env)) {
		env = append(env, corev1.EnvVar{Name: k, Value: ctr.Env[k]})
	}
	env = append(env, corev1.EnvVar{Name: ctr.PasswordEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: ki.name}, Key: "password"}}})
	port := int32(ctr.Port)
	image := s.Cluster.Image
	if image == "" {
		image = ctr.Image
	}
	sts := &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{
		Replicas: &one, ServiceName: ki.name,
		Selector: &metav1.LabelSelector{MatchLabels: ki.labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid},
			// no cluster DNS is needed: clients connect to the pod's IP
			DNSPolicy: corev1.DNSDefault,
			Containers: []corev1.Container{{
				Name: containerName, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Args:      ctr.Args,
				Env:       env,
				Ports:     []corev1.ContainerPort{{Name: "server", ContainerPort: port}},
				Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}},
					PeriodSeconds: 1},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: ctr.DataMount}},
			}},
			NodeSelector: maps.Clone(s.Cluster.NodeSelector),
			Affinity:     ki.affinity(),
		}},
	}}
	if len(ctr.Files) > 0 {
		spec := &sts.Spec.Template.Spec
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ki.name}}}})
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: "config", MountPath: ctr.FilesMount, ReadOnly: true})
	}
	if c := s.Cluster; c.StorageClass != "" {
		// A claim of the class, made by the StatefulSet's controller with
		// the run's labels, and deleted with the StatefulSet (and by
		// label, deleteLabelled).
		class := c.StorageClass
		sts.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: maps.Clone(ki.labels)},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: &class,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: *resource.NewQuantity(c.StorageBytes, resource.BinarySI)}}},
		}}
		sts.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
	} else {
		// emptyDir: the data lives as long as the pod, which is as long
		// as the run needs it; no storage class or provisioner needed.
		sts.Spec.Template.Spec.Volumes = append(sts.Spec.Template.Spec.Volumes,
			corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	if _, err := ki.cs.AppsV1().StatefulSets(ki.ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("instance %s: creating statefulset %s in namespace %s: %w", s.Name, ki.name, ki.ns, err)
	}
	return nil
}

// containerName is the server's container in the pod: the kubelet's
// statistics name it.
const containerName = "server"

// settingsOf are the server's settings: the run's, and max_connections
// when they leave it to the run.
func settingsOf(s provider.InstanceSpec) map[string]string {
	set := maps.Clone(s.Settings)
	if set == nil {
		set = map[string]string{}
	}
	if _, ok := set["max_connections"]; !ok && s.MaxConnections > 0 {
		set["max_connections"] = strconv.Itoa(s.MaxConnections)
	}
	return set
}

// majorOf is a version's major part ("15" of "15.4").
func majorOf(v string) string {
	major, _, _ := strings.Cut(v, ".")
	return major
}

// podName is the StatefulSet's one pod.
func (ki *instance) podName() string { return ki.name + "-0" }

// waitReady waits for the pod's Ready condition and an IP and returns
// it; a container that cannot start (its image cannot be pulled, it
// crashes, its configuration stays unmet) fails sooner with Kubernetes's
// reason and the pod's events (patience).
func (ki *instance) waitReady(ctx context.Context) (*corev1.Pod, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	var pa patience
	for {
		p, err := ki.cs.CoreV1().Pods(ki.ns).Get(ctx, ki.podName(), metav1.GetOptions{})
		if err == nil {
			if msg := pa.stuck(p, time.Now()); msg != "" {
				return nil, fmt.Errorf("instance %s: pod %s in namespace %s cannot start: %s%s", ki.spec.Name, p.Name, ki.ns, msg, ki.events())
			}
			if ready(p) && p.Status.PodIP != "" {
				ki.node = p.Spec.NodeName
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("instance %s: pod %s in namespace %s not ready after %s: %w%s", ki.spec.Name, ki.podName(), ki.ns,
				readyTimeout, ctx.Err(), ki.events())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ready says the pod's Ready condition holds.
func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// patience tells a pod's container that will not start by waiting
// longer from one that may yet.
type patience struct {
	configSince time.Time // when CreateContainerConfigError was first seen; zero while it is not
}

// configGrace is how long a container may wait in
// CreateContainerConfigError before the start fails. The kubelet reports
// it both for a configuration that is wrong (a Secret that does not
// exist) and for one it could not read in time ("failed to sync secret
// cache: timed out waiting for the condition", on a busy node, for the
// Secret made just before the pod), and retries either. The second kind
// passes within seconds: failing at once on it failed an instance of the
// Kubernetes tests whose container the kubelet then started.
const configGrace = 30 * time.Second

// stuck is why p's container will not start by waiting longer, seen at
// now; "" when it may.
func (pa *patience) stuck(p *corev1.Pod, now time.Time) string {
	config := false
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName", "CrashLoopBackOff":
				return w.Reason + ": " + w.Message
			case "CreateContainerConfigError":
				config = true
				if pa.configSince.IsZero() {
					pa.configSince = now
				}
				if now.Sub(pa.configSince) >= configGrace {
					return w.Reason + ": " + w.Message
				}
			}
		}
	}
	if !config {
		pa.configSince = time.Time{}
	}
	return ""
}

// events are the pod's latest events, as a phrase for an error.
func (ki *instance) events() string {
	ev, err := ki.cs.CoreV1().Events(ki.ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + ki.podName()})
	if err != nil || len(ev.Items) == 0 {
		return ""
	}
	var out []string
	for _, e := range ev.Items[max(0, len(ev.Items)-3):] {
		out = append(out, e.Reason+": "+e.Message)
	}
	return fmt.Sprintf(" (events: %q)", out)
}

// waitConnection connects as the superuser until the server answers (the
// pod is Ready once its port is open; the server may still be starting
// up on its first initdb) and returns its version.
func (ki *instance) waitConnection(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	a, ok := ki.inst.Engine.(engine.Admin)
	if !ok {
		return "", fmt.Errorf("engine %s has no admin SQL", ki.inst.Engine.Name())
	}
	for {
		cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := ki.inst.Engine.Connect(cctx, ki.inst.AdminDSN(a.MaintenanceDatabase()))
		ccancel()
		if err == nil {
			v := conn.ServerVersion()
			conn.Close(context.Background())
			return v, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("instance %s: pod %s (%s) is Ready but takes no connection: %w", ki.spec.Name, ki.podName(), ki.inst.Host, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// watch closes exited when the server ends without being asked: its pod
// gone or its container restarted.
func (ki *instance) watch(exited chan<- struct{}) {
	for {
		select {
		case <-ki.stop:
			return
		case <-time.After(2 * time.Second):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		p, err := ki.cs.CoreV1().Pods(ki.ns).Get(ctx, ki.podName(), metav1.GetOptions{})
		cancel()
		if err != nil && ctx.Err() != nil {
			continue // the API server is slow: no news
		}
		restarted := err == nil && len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].RestartCount > 0
		if err != nil || restarted || p.Status.PodIP != ki.podIP {
			select {
			case <-ki.stop:
			default:
				close(exited)
			}
			return
		}
	}
}

// instance is a server run as a pod: the Recorder, Limits and
// UsageSampler capabilities.
type instance struct {
	spec   provider.InstanceSpec
	inst   *provider.Instance
	cs     *kubernetes.Clientset
	cfg    *rest.Config
	access access // how this process reaches the server
	name   string
	ns     string
	labels map[string]string
	ctr    server.Container // how the engine's image runs the server
	node   string           // the node the pod runs on: its kubelet measures it
	podIP  string           // the pod's IP when it became Ready: another IP is another pod
	end    func()           // ends what access.reach started; nil for nothing
	endMu  sync.Mutex

	once sync.Once
	stop chan struct{}
}

var (
	_ provider.Recorder = (*instance)(nil)
	_ provider.Limits   = (*instance)(nil)
)

// Record fills in what `down` needs: the cluster (its variable, never
// the kubeconfig) and the labels. DataDir is the ledger's key of a
// record: here the namespace and the objects' name.
func (ki *instance) Record(r *provider.Record) {
	r.DataDir = fmt.Sprintf("kubernetes:%s/%s", ki.ns, ki.name)
	r.WorkDir = ki.spec.WorkDir
	c := *ki.spec.Cluster
	r.Cluster = &c
	r.Labels = maps.Clone(ki.labels)
}

// Limits are the pod's: requests = limits, enforced by the kubelet's
// cgroup.
func (ki *instance) Limits() (cpus float64, memoryBytes int64, enforced bool) {
	return ki.spec.CPUs, ki.spec.MemoryBytes, ki.spec.CPUs > 0 || ki.spec.MemoryBytes > 0
}

// ended ends what the access started (a port forward), once.
func (ki *instance) ended() {
	ki.endMu.Lock()
	end := ki.end
	ki.end = nil
	ki.endMu.Unlock()
	if end != nil {
		end()
	}
}

// createConfig makes the ConfigMap of the server's configuration files
// (the run's settings, engine.Image's Files), which the pod mounts.
func (ki *instance) createConfig(ctx context.Context) error {
	if len(ki.ctr.Files) == 0 {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ki.name, Namespace: ki.ns, Labels: ki.labels}, Data: maps.Clone(ki.ctr.Files)}
	if _, err := ki.cs.CoreV1().ConfigMaps(ki.ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("instance %s: creating configmap %s in namespace %s: %w", ki.spec.Name, ki.name, ki.ns, err)
	}
	return nil
}

// createService makes the instance's Service, selecting its pod by the
// instance's labels: the StatefulSet's governing Service, a stable name
// for a driver in the cluster, and with access nodeport the node port
// this process connects to.
func (ki *instance) createService(ctx context.Context) error {
	port := int32(ki.ctr.Port)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ki.name, Namespace: ki.ns, Labels: ki.labels},
		Spec: corev1.ServiceSpec{Type: ki.access.serviceType(), Selector: maps.Clone(ki.labels),
			Ports: []corev1.ServicePort{{Name: "server", Port: port, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP}}}}
	if _, err := ki.cs.CoreV1().Services(ki.ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("instance %s: creating service %s in namespace %s: %w", ki.spec.Name, ki.name, ki.ns, err)
	}
	return nil
}

// affinity keeps the run's servers on distinct nodes with
// sut.kubernetes.spread (a pod of the run already on a node keeps the
// next off it); nil without.
func (ki *instance) affinity() *corev1.Affinity {
	if !ki.spec.Cluster.Spread {
		return nil
	}
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelRun: ki.labels[LabelRun]}},
			TopologyKey:   corev1.LabelHostname,
		}}}}
}
