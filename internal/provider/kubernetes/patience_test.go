package kubernetes

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestPatience: an image that cannot be had fails the start at once; a
// configuration the kubelet could not read fails it only once it has
// lasted configGrace, and a container that got past it starts the count
// again.
func TestPatience(t *testing.T) {
	waiting := func(reason string) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "m"}}}}}}
	}
	running := &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	t0 := time.Now()
	var pa patience
	if msg := pa.stuck(waiting("ImagePullBackOff"), t0); msg != "ImagePullBackOff: m" {
		t.Errorf("an image that cannot be pulled: %q", msg)
	}
	config := waiting("CreateContainerConfigError")
	for _, c := range []struct {
		pod   *corev1.Pod
		after time.Duration
		want  string
	}{
		{config, 0, ""},
		{config, configGrace - time.Second, ""},
		{running, configGrace, ""},
		{config, configGrace + time.Second, ""}, // counted anew
		{config, 2*configGrace + time.Second, "CreateContainerConfigError: m"},
	} {
		if msg := pa.stuck(c.pod, t0.Add(c.after)); msg != c.want {
			t.Errorf("after %v: %q, want %q", c.after, msg, c.want)
		}
	}
}
