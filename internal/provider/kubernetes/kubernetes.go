// Package kubernetes runs a run's instances as pods of a Kubernetes
// cluster (sut.provider: kubernetes, sut.kubernetes): each instance a
// StatefulSet of one pod, its CPUs and memory the pod's requests and
// limits (a Guaranteed pod, as Erdelt and Rabl 2026, section 4.1, give
// each tenant's container), its data on an emptyDir volume or a
// PersistentVolumeClaim of sut.kubernetes.storage's class, its
// superuser's password in a Secret, its settings a ConfigMap it mounts,
// a Service selecting it. Every object carries the run's label and the
// instance's; Stop and StopRecord (`tenantbench down`) delete by those
// labels, so nothing of the run is left in the namespace. The instance's
// endpoint is where sut.kubernetes.access reaches it (access.go): the
// pod's IP by default, which the machine tenantbench runs on must reach
// (it does on a node of the cluster, and in it). Its CPU and memory are
// its kubelet's (stats.go).
package kubernetes

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/suggest"
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

// Factory registers the provider, with what it can give at plan: any
// engine with an official image (engine.Image), none of the
// capabilities (a pod is restarted, frozen and placed in cgroups by its
// kubelet, not by tenantbench), no pooler or emulated network (Pools,
// Networks unset), no storage but the pod's volume, no cores.
func Factory() provider.Factory {
	return provider.Factory{Name: Name, New: New, StopRecord: StopRecord, Cluster: true, CheckCluster: CheckCluster,
		Engine: Engine, Can: Can, Storage: Storage, Cores: Cores}
}

// Storage is the plan's answer to sut.storage: only the default (disk,
// shared), which is the pod's volume on its node.
func Storage(kind, volume string) string {
	return "a pod's data is on a volume of its node that the kubelet makes (an emptyDir); tenantbench mounts nothing there"
}

// Cores is the plan's answer to sut.resources.cpu_policy: none.
func Cores() string {
	return "a pod's CPUs are a CFS quota of its node's kubelet, which alone could pin it to cores (its CPU manager's static policy)"
}

// Engine is the plan's check of sut.engine: the pod runs the engine's
// official image, which the engine must describe (engine.Image).
func Engine(eng engine.Engine) string {
	if _, ok := eng.(engine.Image); !ok {
		return fmt.Sprintf("a pod runs the engine's official container image, and tenantbench does not know how %s's image "+
			"takes its settings and password yet; use provider local", eng.Name())
	}
	return ""
}

// Can is the plan's check of what a spec's interference needs of the
// servers: a pod is the kubelet's to restart, freeze and place in
// cgroups, so none of it.
func Can(c provider.Capability) string {
	switch c {
	case provider.CanRestart:
		return "a pod's server is restarted by its kubelet, which tenantbench does not drive (kill-backends works: it is SQL)"
	case provider.CanFreeze:
		return "a pod's processes are the kubelet's, on a node tenantbench may not run on"
	case provider.InCgroup:
		return "a pod's cgroup is on its node, made by the kubelet, not one tenantbench makes on this machine"
	}
	return "not a capability it has"
}

// client reads the kubeconfig whose path the cluster's variable holds,
// at the cluster's context (its current one when none is named).
func client(c provider.Cluster) (*kubernetes.Clientset, error) {
	cs, _, err := clientConfig(c)
	return cs, err
}

// clientConfig is client with the REST configuration it was made from,
// which a port forward dials with.
func clientConfig(c provider.Cluster) (*kubernetes.Clientset, *rest.Config, error) {
	path, ok := os.LookupEnv(c.KubeconfigEnv)
	if !ok || strings.TrimSpace(path) == "" {
		return nil, nil, fmt.Errorf("environment variable %s is not set: it must hold the path of the cluster's kubeconfig file", c.KubeconfigEnv)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("%s names a kubeconfig that cannot be read: %w", c.KubeconfigEnv, err)
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig %s (%s): %w", path, c.KubeconfigEnv, err)
	}
	if c.Context != "" {
		if _, ok := raw.Contexts[c.Context]; !ok {
			names := slices.Sorted(maps.Keys(raw.Contexts))
			msg := fmt.Sprintf("context %s is not in kubeconfig %s (%s); its contexts: %s", c.Context, path, c.KubeconfigEnv, strings.Join(names, ", "))
			if n := suggest.Nearest(c.Context, names); n != "" {
				msg += "; did you mean " + n + "?"
			}
			return nil, nil, errors.New(msg)
		}
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{CurrentContext: c.Context}).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig %s (%s): %w", path, c.KubeconfigEnv, err)
	}
	cfg.Timeout = 30 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	return cs, cfg, err
}

// engineOf is the instance's engine; nil is PostgreSQL. It must have an
// official image (engine.Image), as Engine says at plan.
func engineOf(eng engine.Engine) (engine.Engine, engine.Image, error) {
	if eng == nil {
		e, err := engine.Builtin().Get("postgres")
		if err != nil {
			return nil, nil, err
		}
		eng = e
	}
	img, ok := eng.(engine.Image)
	if !ok {
		return nil, nil, fmt.Errorf("provider %s: %s", Name, Engine(eng))
	}
	return eng, img, nil
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
