// Package providers registers the providers tenantbench has. It is apart
// from package provider, which every provider imports.
package providers

import (
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/external"
	"github.com/tenantbench/tenantbench/internal/provider/kubernetes"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// Builtin returns the providers tenantbench has: local (servers as
// processes on this machine) and external (servers the user runs, named
// in sut.servers) and kubernetes (servers as pods of the cluster
// sut.kubernetes names).
func Builtin() provider.Registry {
	r := provider.Registry{}
	r.Add(provider.Factory{
		Name:       "local",
		New:        func() (provider.Provider, error) { return local.New(local.Options{}) },
		StopRecord: local.StopRecord,
		Clones:     true,
		Pools:      true,
		Networks:   true,
		Replicates: true,
		Storage:    local.Storage,
		Cores:      local.Cores,
		Resizes:    local.Resizes,
	})
	r.Add(external.Factory())
	r.Add(kubernetes.Factory())
	return r
}
