package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// statsSource names where a pod's CPU and memory come from.
const statsSource = "kubelet stats/summary"

// summary is the part of the kubelet's /stats/summary that the monitor
// reads (k8s.io/kubelet/pkg/apis/stats/v1alpha1, Summary): each pod's
// containers' cumulative CPU and working set, with the time the kubelet
// measured them. The kubelet refreshes them at its housekeeping
// interval (cAdvisor's, 10 s by default, up to 15 s), not when asked.
type summary struct {
	Pods []struct {
		PodRef struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"podRef"`
		Containers []struct {
			Name string `json:"name"`
			CPU  *struct {
				Time                 time.Time `json:"time"`
				UsageCoreNanoSeconds *uint64   `json:"usageCoreNanoSeconds"`
			} `json:"cpu"`
			Memory *struct {
				Time            time.Time `json:"time"`
				WorkingSetBytes *uint64   `json:"workingSetBytes"`
			} `json:"memory"`
		} `json:"containers"`
	} `json:"pods"`
}

// summaryTTL is how long a node's summary serves every instance on it:
// the monitor's samplers of one round ask at about the same time, and
// the kubelet would answer each with the same figures.
const summaryTTL = 500 * time.Millisecond

// summaries caches each node's last summary, by the cluster's API server
// and the node.
var summaries struct {
	sync.Mutex
	m map[string]cachedSummary
}

type cachedSummary struct {
	at time.Time
	s  *summary
}

// nodeSummary is the node's /stats/summary, read through the API
// server's node proxy (the kubelet's port is not reached directly: the
// API server holds its client certificate).
func nodeSummary(ctx context.Context, cs *kubernetes.Clientset, node string) (*summary, error) {
	key := cs.CoreV1().RESTClient().Get().URL().Host + "/" + node
	summaries.Lock()
	if c, ok := summaries.m[key]; ok && time.Since(c.at) < summaryTTL {
		summaries.Unlock()
		return c.s, nil
	}
	summaries.Unlock()
	b, err := cs.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("stats/summary").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("node %s's stats/summary through the API server: %w", node, err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("node %s's stats/summary: %w", node, err)
	}
	summaries.Lock()
	if summaries.m == nil {
		summaries.m = map[string]cachedSummary{}
	}
	summaries.m[key] = cachedSummary{time.Now(), &s}
	summaries.Unlock()
	return &s, nil
}

var _ provider.UsageSampler = (*instance)(nil)

// Usage is the server container's CPU (usageCoreNanoSeconds) and working
// set as the kubelet last measured them; zero At while the kubelet has
// none for it yet (its first housekeeping after the container started).
func (ki *instance) Usage(ctx context.Context) (provider.Usage, error) {
	s, err := nodeSummary(ctx, ki.cs, ki.node)
	if err != nil {
		return provider.Usage{}, err
	}
	for _, p := range s.Pods {
		if p.PodRef.Namespace != ki.ns || p.PodRef.Name != ki.podName() {
			continue
		}
		for _, c := range p.Containers {
			if c.Name != containerName || c.CPU == nil || c.CPU.UsageCoreNanoSeconds == nil {
				continue
			}
			u := provider.Usage{CPUSeconds: float64(*c.CPU.UsageCoreNanoSeconds) / 1e9, MemoryBytes: -1, At: c.CPU.Time}
			if m := c.Memory; m != nil && m.WorkingSetBytes != nil {
				u.MemoryBytes = int64(*m.WorkingSetBytes)
			}
			return u, nil
		}
	}
	return provider.Usage{}, nil
}

// UsageSource names the kubelet's summary as the source.
func (ki *instance) UsageSource() string { return statsSource }
