package workload

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Helpers for Factory.Parse, which reads workload.options from its YAML
// node so that every problem can name its path.

// Deref follows a YAML alias to the node it names.
func Deref(node *yaml.Node) *yaml.Node {
	for node.Kind == yaml.AliasNode && node.Alias != nil {
		node = node.Alias
	}
	return node
}

// IsNull says whether node is a null scalar (~, null or nothing).
func IsNull(node *yaml.Node) bool {
	return node.Kind == yaml.ScalarNode && node.Tag == "!!null"
}

// IntValue is node's value when it is a plain integer scalar.
func IntValue(node *yaml.Node) (int64, bool) {
	if node.Kind != yaml.ScalarNode || node.Tag != "!!int" {
		return 0, false
	}
	n, err := strconv.ParseInt(node.Value, 0, 64)
	if err != nil {
		// yaml 1.1 forms such as 0o17 or 1_000 are rare: let yaml decode them.
		if node.Decode(&n) != nil {
			return 0, false
		}
	}
	return n, true
}

// Describe shows a node as the user wrote it, for a spec.Problem's Value.
func Describe(node *yaml.Node) string {
	switch node.Kind {
	case yaml.ScalarNode:
		if node.Tag == "!!null" {
			return ""
		}
		return node.Value
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "*" + node.Value
	}
	return ""
}

// OptionsMapping is the mapping of workload.options that a Parse reads:
// nil, with no problem, when the options are absent or null (the
// defaults apply); a problem at path, naming the allowed keys, when they
// are not a mapping.
func OptionsMapping(node *yaml.Node, path string, keys []string) (*yaml.Node, []spec.Problem) {
	if node == nil || node.Kind == 0 {
		return nil, nil
	}
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	node = Deref(node)
	if IsNull(node) {
		return nil, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, []spec.Problem{Problem(path, node, "must be a mapping with the keys "+strings.Join(keys, ", "))}
	}
	return node, nil
}

// Problem is a problem with node at path.
func Problem(path string, node *yaml.Node, allowed string) spec.Problem {
	return spec.Problem{Path: path, Value: Describe(node), Allowed: allowed, Line: node.Line}
}
