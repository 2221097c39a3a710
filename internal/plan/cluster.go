package plan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// clusterCheckTimeout bounds the plan's look at the cluster
// (sut.kubernetes).
const clusterCheckTimeout = 20 * time.Second

// checkCluster checks sut.kubernetes against the provider: a provider
// that runs its servers in a cluster (Factory.Cluster) needs it, and its
// CheckCluster says whether the cluster answers and lets the run create
// what it needs in the namespace; any other provider takes none.
func checkCluster(s *spec.Spec, regs Registries) []spec.Problem {
	f, ok := regs.Providers[s.SUT.Provider]
	if !ok {
		return nil // checkSUT refused it
	}
	k := s.SUT.Kubernetes
	if !f.Cluster {
		if k == nil {
			return nil
		}
		var takers []string
		for _, name := range regs.Providers.Names() {
			if regs.Providers[name].Cluster {
				takers = append(takers, name)
			}
		}
		return []spec.Problem{{Path: "sut.kubernetes", Allowed: fmt.Sprintf("provider %s runs no server in a cluster and takes no sut.kubernetes "+
			"(the providers that do: %s)", f.Name, strings.Join(takers, ", "))}}
	}
	if k == nil {
		return []spec.Problem{{Path: "sut.provider", Value: f.Name, Allowed: fmt.Sprintf("provider %s needs the cluster to run servers in: "+
			"sut.kubernetes: {kubeconfig_env: VAR, namespace: NAME}, the variable holding the kubeconfig file's path", f.Name)}}
	}
	if k.KubeconfigEnv == "" || !spec.NamespaceOK(k.Namespace) || f.CheckCluster == nil {
		return nil // the spec's check refused it
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterCheckTimeout)
	defer cancel()
	if msg := f.CheckCluster(ctx, *clusterOf(s, regs), mostServers(s, regs)); msg != "" {
		return []spec.Problem{{Path: "sut.kubernetes", Allowed: msg}}
	}
	return nil
}

// mostServers is the most servers a run of the spec starts: its models'
// servers for its most tenants (sut.kubernetes.spread needs as many
// nodes).
func mostServers(s *spec.Spec, regs Registries) int {
	most := 0
	for _, t := range s.Tenancy.Tenants {
		most = max(most, t)
	}
	n := 0
	for _, name := range s.Tenancy.Model {
		if m, ok := regs.Models[name]; ok && most >= 1 && most <= spec.MaxTenants {
			n = max(n, m.Instances(most))
		}
	}
	return n
}

// clusterOf is sut.kubernetes with its defaults (namespace default; the
// engine's official image of sut.version's major, engine.Image: for
// PostgreSQL postgres:<major>, postgres:17 when the version is left
// open), nil when the provider takes none.
func clusterOf(s *spec.Spec, regs Registries) *provider.Cluster {
	k := s.SUT.Kubernetes
	if k == nil || !regs.Providers[s.SUT.Provider].Cluster {
		return nil
	}
	c := provider.Cluster{KubeconfigEnv: k.KubeconfigEnv, Context: k.Context, Namespace: k.Namespace, Image: k.Image,
		Access: k.Access, Spread: k.Spread, NodeSelector: k.NodeSelector}
	if c.Access == "" {
		c.Access = spec.AccessPodIP
	}
	if st := k.Storage; st != nil {
		c.StorageClass, c.StorageBytes = st.Class, int64(st.Size)
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	// One image for the cluster's servers: the first engine's (the
	// provider refuses an engine without one at checkProviderCan).
	if len(s.SUT.Engine) == 0 {
		return &c
	}
	if img, ok := regs.Engines[s.SUT.Engine[0]].(engine.Image); ok && c.Image == "" {
		v, _, _ := strings.Cut(s.SUT.VersionOf(s.SUT.Engine[0]), ".")
		c.Image = img.Container(v, nil).Image
	}
	return &c
}
