// Package kubernetes runs a run's instances as pods of a Kubernetes
// cluster (sut.provider: kubernetes, sut.kubernetes): each instance a
// StatefulSet of one pod, its CPUs and memory the pod's requests and
// limits (a Guaranteed pod, as Erdelt and Rabl 2026, section 4.1, give
// each tenant's container), its data on an emptyDir volume, its
// superuser's password in a Secret. Every object carries the run's label
// and the instance's; Stop and StopRecord (`tenantbench down`) delete by
// those labels, so nothing of the run is left in the namespace. The
// instance's endpoint is the pod's IP: the machine tenantbench runs on
// must reach the pod network (it does on a node of the cluster).
package kubernetes

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Name is the provider's name in sut.provider.
const Name = "kubernetes"

// The labels every object of a run carries.
const (
	LabelRun      = "tenantbench.io/run"
	LabelInstance = "tenantbench.io/instance"
)

// readyTimeout bounds the wait for a pod to be Ready and take a
// connection; a pod that cannot pull its image or keeps crashing fails
// sooner, with the reason Kubernetes gives.
const readyTimeout = 4 * time.Minute

// Provider runs instances in the cluster the instance spec names.
type Provider struct{}

// New makes the provider: each instance names its cluster
// (InstanceSpec.Cluster).
func New() (provider.Provider, error) { return Provider{}, nil }

// Factory registers the provider.
func Factory() provider.Factory {
	return provider.Factory{Name: Name, New: New, StopRecord: StopRecord, Cluster: true, CheckCluster: CheckCluster}
}

// client reads the kubeconfig whose path the cluster's variable holds.
func client(c provider.Cluster) (*kubernetes.Clientset, error) {
	path, ok := os.LookupEnv(c.KubeconfigEnv)
	if !ok || strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("environment variable %s is not set: it must hold the path of the cluster's kubeconfig file", c.KubeconfigEnv)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s names a kubeconfig that cannot be read: %w", c.KubeconfigEnv, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s (%s): %w", path, c.KubeconfigEnv, err)
	}
	cfg.Timeout = 30 * time.Second
	return kubernetes.NewForConfig(cfg)
}

// engineOf is the instance's engine; nil is PostgreSQL, the only one
// whose image and entrypoint this provider knows.
func engineOf(eng engine.Engine) (engine.Engine, error) {
	if eng == nil {
		return engine.Builtin().Get("postgres")
	}
	if eng.Name() != "postgres" {
		return nil, fmt.Errorf("provider %s runs PostgreSQL only (the postgres image's entrypoint and settings), not %s", Name, eng.Name())
	}
	return eng, nil
}

// dnsUnsafe are the characters an object's name may not hold.
var dnsUnsafe = regexp.MustCompile(`[^a-z0-9-]+`)

// objectName is the name of an instance's objects: "tb-", the run's
// name, the instance's, as a DNS label allows (the pod adds "-0").
func objectName(runID, instance string) string {
	n := dnsUnsafe.ReplaceAllString(strings.ToLower("tb-"+runID+"-"+instance), "-")
	if len(n) > 50 {
		n = n[:50]
	}
	return strings.Trim(n, "-")
}

// labelValue makes s a label's value (at most 63 characters of
// letters, digits, '-', '_' and '.').
func labelValue(s string) string {
	s = regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(s, "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

// password is a fresh superuser password for one instance.
func password() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
