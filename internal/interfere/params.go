package interfere

import (
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// noParams are the params of a kind that takes none.
type noParams struct{}

func (noParams) String() string { return "" }

// parseNone refuses any params.
func parseNone(d *spec.Decoder, n *yaml.Node, path string) Params {
	if !spec.IsNull(n) && (n.Kind != yaml.MappingNode || len(n.Content) > 0) {
		d.Refuse(n, path, "takes no params; remove them")
	}
	return noParams{}
}
