package k8stest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) { Main(m) }

// TestPostgresPod: the cluster runs a pod of the PostgreSQL image under
// CPU and memory limits, and a client on the host reaches the server at
// the pod's IP.
func TestPostgresPod(t *testing.T) {
	c := Get(t)
	const ns = "k8stest-smoke"
	cs := c.Namespace(t, ns)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	uid := int64(999)
	lim := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pg"}, Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid},
		Containers: []corev1.Container{{Name: "postgres", Image: c.PGImage, ImagePullPolicy: corev1.PullNever,
			Env:          []corev1.EnvVar{{Name: "POSTGRES_PASSWORD", Value: "smoke"}},
			Resources:    corev1.ResourceRequirements{Requests: lim, Limits: lim},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
	}}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var conn *pgx.Conn
	for ctx.Err() == nil {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil && p.Status.PodIP != "" {
			conn, err = pgx.Connect(ctx, fmt.Sprintf("postgres://postgres:smoke@%s:5432/postgres?connect_timeout=2", p.Status.PodIP))
			if err == nil {
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	if conn == nil {
		p, _ := cs.CoreV1().Pods(ns).Get(context.Background(), pod.Name, metav1.GetOptions{})
		ev, _ := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		var msgs []string
		for _, e := range ev.Items {
			msgs = append(msgs, e.Reason+": "+e.Message)
		}
		for _, prev := range []bool{true, false} {
			l, _ := cs.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: prev}).DoRaw(context.Background())
			t.Logf("log (previous %v): %s", prev, l)
		}
		t.Fatalf("no connection to the pod's server: %v; pod status %+v; events %q", ctx.Err(), p.Status, msgs)
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v == "" || v[:len(c.PGVersion)] != c.PGVersion {
		t.Errorf("server_version %q, the image is of PostgreSQL %s", v, c.PGVersion)
	}
}
