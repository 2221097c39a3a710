package spec

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// The interference list is read by package interfere (its kinds own their
// params); the matrix is this package's. A param whose value is a list
// (`params: {load: [0, 30, 40]}`) is therefore found here by its shape
// alone, whatever the kind: it is a dimension, and each run gets the list
// with that param set to one of its values (InterferenceOf), which
// package interfere reads and checks like a single value.

// paramDim is one list-valued interference param.
type paramDim struct {
	key    string       // "interference[0].load": the plan's column
	path   string       // "interference[0].params.load": the spec's path
	event  int          // index in the interference list
	param  string       // the key in params
	values []*yaml.Node // the list's elements, as written
}

// interferenceDims are the list-valued params, in the order written:
// events in list order, params in the order of their mapping.
func (s *Spec) interferenceDims() []paramDim {
	return interferenceDims(&s.Interference, "interference")
}

// interferenceDims are the list-valued params of the interference list
// n written at path at (a case's has its own path).
func interferenceDims(n *yaml.Node, at string) []paramDim {
	list := resolve(n)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var dims []paramDim
	for i, e := range list.Content {
		params := mappingValue(resolve(e), "params")
		if params == nil || params.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(params.Content); j += 2 {
			if v := resolve(params.Content[j+1]); v != nil && v.Kind == yaml.SequenceNode {
				k := params.Content[j].Value
				dims = append(dims, paramDim{key: fmt.Sprintf("interference[%d].%s", i, k),
					path: fmt.Sprintf("%s[%d].params.%s", at, i, k), event: i, param: k, values: v.Content})
			}
		}
	}
	return dims
}

// mappingValue is the value of key in mapping m, nil when absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == key {
			return resolve(m.Content[j+1])
		}
	}
	return nil
}

// InterferenceKeys are the plan's names of the list-valued interference
// params ("interference[0].load"), in dimension order.
func (s *Spec) InterferenceKeys() []string {
	var keys []string
	for _, d := range s.interferenceDims() {
		keys = append(keys, d.key)
	}
	return keys
}

// InterferenceOf is the interference list as run r gets it: each
// list-valued param replaced by r's value (the element node as written,
// its line kept for problems). Without such params it is the spec's own.
func (s *Spec) InterferenceOf(r *Run) *yaml.Node {
	if c := s.caseOf(r); c != nil && c.ownInterference() {
		return &c.Interference // one value of each param (casePicks)
	}
	dims := s.interferenceDims()
	if len(dims) == 0 {
		return &s.Interference
	}
	pick := make([]int, len(dims))
	for i, d := range dims {
		for j, v := range d.values {
			if resolve(v) != nil && resolve(v).Value == r.Interference[d.key] {
				pick[i] = j
				break
			}
		}
	}
	return s.interferenceWith(dims, pick)
}

// InterferenceVariant is the interference list with one value of every
// list-valued param, and the path of the value a check of it speaks for.
type InterferenceVariant struct {
	List *yaml.Node
	// Param is the path of the list-valued param whose value Index this
	// variant holds ("interference[0].params.load"); "" when the list
	// has no list-valued params.
	Param string
	Index int
	// At is where the list is written when it is not the spec's
	// interference: a case's ("workload.cases[2].interference"), whose
	// problems Reroot names there.
	At string
}

// Reroot is path (one of package interfere's, "interference[0].at") as
// the spec writes it for this variant.
func (v InterferenceVariant) Reroot(path string) string {
	if rest, ok := strings.CutPrefix(path, "interference"); ok && v.At != "" {
		return v.At + rest
	}
	return path
}

// InterferencePath is path (package interfere's, "interference[0].at")
// as the spec writes it for run r: in its case's list when the case has
// one.
func (s *Spec) InterferencePath(r *Run, path string) string {
	for i := range s.Workload.Cases {
		if c := &s.Workload.Cases[i]; c.Name == r.Case && c.ownInterference() {
			return InterferenceVariant{At: join(index("workload.cases", i), "interference")}.Reroot(path)
		}
	}
	return path
}

// InterferenceVariants are enough variants of the interference list to
// check every value of every list-valued param as a single value: each
// value of each such param with the first of the others. Without such
// params, the spec's list alone; and each case's own list (At), whose
// params take one value each.
func (s *Spec) InterferenceVariants() []InterferenceVariant {
	var out []InterferenceVariant
	for i := range s.Workload.Cases {
		if c := &s.Workload.Cases[i]; c.ownInterference() {
			out = append(out, InterferenceVariant{List: &c.Interference, At: join(index("workload.cases", i), "interference")})
		}
	}
	dims := s.interferenceDims()
	if len(dims) == 0 {
		return append(out, InterferenceVariant{List: &s.Interference})
	}
	for i, d := range dims {
		for j := range d.values {
			pick := make([]int, len(dims))
			pick[i] = j
			out = append(out, InterferenceVariant{List: s.interferenceWith(dims, pick), Param: d.path, Index: j})
		}
	}
	return out
}

// interferenceWith is a copy of the list with dims[i] set to its value
// pick[i]. The spec's nodes are not changed.
func (s *Spec) interferenceWith(dims []paramDim, pick []int) *yaml.Node {
	list := copyNode(resolve(&s.Interference))
	for i, d := range dims {
		params := mappingValue(resolve(list.Content[d.event]), "params")
		for j := 0; j+1 < len(params.Content); j += 2 {
			if params.Content[j].Value == d.param {
				params.Content[j+1] = d.values[pick[i]]
			}
		}
	}
	return list
}

// copyNode copies n deeply, aliases replaced by copies of what they
// name, so that a copy can be changed alone.
func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return copyNode(n.Alias)
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		c.Content[i] = copyNode(e)
	}
	return &c
}

// interferenceValues checks the list-valued params: none empty.
func (v *validator) interferenceValues(s *Spec) {
	for _, d := range s.interferenceDims() {
		if len(d.values) == 0 {
			v.add(d.path, "[]", "a list of values (a matrix dimension) needs at least one value")
		}
	}
}
