package kubernetes

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// access is how this process reaches a pod's server (sut.kubernetes.
// access): one per value, in accesses.
type access interface {
	// serviceType is the type of the instance's Service.
	serviceType() corev1.ServiceType
	// reach returns where the server of the Ready pod p is reached, and
	// a function ending what reach started (nil for nothing).
	reach(ctx context.Context, ki *instance, p *corev1.Pod) (host string, port int, end func(), err error)
	// rights are what reach needs in the namespace beyond a run's.
	rights() []authv1.ResourceAttributes
}

// accesses are the ways to reach a server, by sut.kubernetes.access's
// value. pod-ip is the default: no hop and no address translation
// between the driver and the server, as locally, wherever the pod
// network is routed to the driver (on a node, in the cluster).
var accesses = map[string]access{
	spec.AccessPodIP:       podIP{},
	spec.AccessNodePort:    nodePort{},
	spec.AccessPortForward: portForward{},
}

// accessOf is the cluster's access; "" is pod-ip.
func accessOf(name string) (access, error) {
	if name == "" {
		name = spec.AccessPodIP
	}
	a, ok := accesses[name]
	if !ok {
		return nil, fmt.Errorf("sut.kubernetes.access %q is not a way to reach a pod", name)
	}
	return a, nil
}

// podIP connects to the pod's own IP and port.
type podIP struct{}

func (podIP) serviceType() corev1.ServiceType     { return corev1.ServiceTypeClusterIP }
func (podIP) rights() []authv1.ResourceAttributes { return nil }

func (podIP) reach(_ context.Context, ki *instance, p *corev1.Pod) (string, int, func(), error) {
	return p.Status.PodIP, ki.ctr.Port, nil, nil
}

// nodePort connects to the instance's NodePort Service at the address of
// the node the pod runs on (its status's hostIP: the node's InternalIP),
// so that kube-proxy's rules on that node forward it to the pod without
// a second hop between nodes. On a single-node cluster where tenantbench
// runs on the node, that address is a local one.
type nodePort struct{}

func (nodePort) serviceType() corev1.ServiceType { return corev1.ServiceTypeNodePort }
func (nodePort) rights() []authv1.ResourceAttributes {
	return []authv1.ResourceAttributes{{Resource: "services", Verb: "get"}}
}

func (nodePort) reach(ctx context.Context, ki *instance, p *corev1.Pod) (string, int, func(), error) {
	svc, err := ki.cs.CoreV1().Services(ki.ns).Get(ctx, ki.name, metav1.GetOptions{})
	if err != nil {
		return "", 0, nil, fmt.Errorf("instance %s: service %s: %w", ki.spec.Name, ki.name, err)
	}
	if len(svc.Spec.Ports) == 0 || svc.Spec.Ports[0].NodePort == 0 {
		return "", 0, nil, fmt.Errorf("instance %s: service %s has no node port", ki.spec.Name, ki.name)
	}
	if p.Status.HostIP == "" {
		return "", 0, nil, fmt.Errorf("instance %s: pod %s has no node address", ki.spec.Name, p.Name)
	}
	return p.Status.HostIP, int(svc.Spec.Ports[0].NodePort), nil, nil
}

// portForward forwards a port of 127.0.0.1 to the pod through the API
// server and the kubelet (client-go's portforward, as `kubectl
// port-forward`): every connection is a stream multiplexed over one
// HTTP connection to the API server, relayed by the kubelet. It reaches
// a cluster whose pods and nodes are not routed to this machine, but
// each round trip crosses the API server and the kubelet: too slow to
// measure a server through (docs/kubernetes.md).
type portForward struct{}

func (portForward) serviceType() corev1.ServiceType { return corev1.ServiceTypeClusterIP }
func (portForward) rights() []authv1.ResourceAttributes {
	return []authv1.ResourceAttributes{{Resource: "pods", Subresource: "portforward", Verb: "create"}}
}

func (portForward) reach(ctx context.Context, ki *instance, p *corev1.Pod) (string, int, func(), error) {
	rt, upgrader, err := spdy.RoundTripperFor(ki.cfg)
	if err != nil {
		return "", 0, nil, err
	}
	url := ki.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ki.ns).Name(p.Name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", ki.ctr.Port)}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		return "", 0, nil, err
	}
	failed := make(chan error, 1)
	go func() { failed <- fw.ForwardPorts() }()
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	select {
	case <-ready:
	case err := <-failed:
		return "", 0, nil, fmt.Errorf("instance %s: forwarding a port to pod %s: %v", ki.spec.Name, p.Name, err)
	case <-ctx.Done():
		end()
		return "", 0, nil, ctx.Err()
	case <-time.After(30 * time.Second):
		end()
		return "", 0, nil, fmt.Errorf("instance %s: the port forward to pod %s is not ready after 30 s", ki.spec.Name, p.Name)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		end()
		return "", 0, nil, fmt.Errorf("instance %s: the port forward to pod %s has no local port: %v", ki.spec.Name, p.Name, err)
	}
	return "127.0.0.1", int(ports[0].Local), end, nil
}
