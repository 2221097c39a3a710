package k8stest

import (
	"fmt"
	"os"
	"path/filepath"
)

// The cluster's addresses and ports. Addresses are only of 203.0.113.0/24
// (a documentation range): the node's IP sits on the pod bridge, not on
// the host's interface, so that nothing of the cluster is reachable from
// outside the machine. Other tests own 198.51.100.0/24. 203.0.113.64/26
// stays free: on the project's machines the package registries (Maven
// Central, the Go module proxy, Debian's mirror) answer at 203.0.113.80,
// and a pod network over it cut them off while a cluster ran (a Maven
// fetch test failed with "no route to host").
const (
	NodeName     = "tbk8s-node"
	NodeIP       = "203.0.113.1"
	PodNet       = "203.0.113.0/26"
	ServiceNet   = "203.0.113.128/26"
	apiServiceIP = "203.0.113.129" // the first of ServiceNet: the kubernetes Service
	bridge       = "tbk8s0"
	apiPort      = 6443
	etcdPort     = 12379 // and the two after it: peers, metrics
)

// writeConfigs writes containerd's, the kubelet's and the CNI's
// configuration below c.Dir.
func (c *Cluster) writeConfigs() error {
	files := map[string]string{
		// restrict_oom_score_adj: runc cannot write oom_score_adj without
		// CAP_SYS_RESOURCE, which processes here lack ("can't get final
		// child's PID from pipe: EOF" otherwise).
		"containerd.toml": fmt.Sprintf(`version = 2
root = "%[1]s/containerd-root"
state = "%[1]s/containerd-run"
[grpc]
  address = "%[1]s/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "%[2]s"
  netns_mounts_under_state_dir = true
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "%[1]s/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "%[1]s/cni"
`, c.Dir, PauseImage),
		// cgroupfs, no swap check, cgroup v1 allowed: this machine. Image
		// garbage collection off: the images exist only locally.
		"kubelet.yaml": fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://%[1]s/containerd.sock
failSwapOn: false
failCgroupV1: false
address: %[2]s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %[1]s/pki/kubelet-server.crt
tlsPrivateKeyFile: %[1]s/pki/kubelet-server.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[1]s/pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
podLogsDir: %[1]s/pod-logs
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "200Mi", nodefs.available: "1%%", nodefs.inodesFree: "1%%", imagefs.available: "1%%"}
maxPods: 50
registerNode: true
volumePluginDir: %[1]s/kubelet-plugins
`, c.Dir, NodeIP),
		// iptables mode, node ports on the node's IP only (no localhost
		// node ports: they need route_localnet), the host's conntrack
		// sysctls left as they are.
		"kube-proxy.yaml": fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: %[1]s/pki/admin.kubeconfig}
mode: iptables
hostnameOverride: %[2]s
clusterCIDR: %[3]s
nodePortAddresses: ["%[4]s/32"]
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`, c.Dir, NodeName, PodNet, NodeIP),
		"cni/10-bridge.conflist": fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "tbk8s",
  "plugins": [
    {"type": "bridge", "bridge": "%[2]s", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "%[1]s/ipam",
              "ranges": [[{"subnet": "%[3]s", "gateway": "%[4]s"}]]}},
    {"type": "loopback"}
  ]
}
`, c.Dir, bridge, PodNet, NodeIP),
	}
	for name, text := range files {
		p := filepath.Join(c.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
