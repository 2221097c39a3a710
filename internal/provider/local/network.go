package local

import (
	"context"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provider"
)

var _ provider.Networker = (*Provider)(nil)

// Network makes the run's network namespace and emulated link
// (Networker); the servers whose InstanceSpec names it start inside it.
func (p *Provider) Network(ctx context.Context, runID string, link netns.Link, note func(netns.Record)) (*netns.Net, error) {
	return netns.Create(ctx, runID, link, note)
}
