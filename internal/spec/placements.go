package spec

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Placement is one value of sut.placement: where the tenants' clients sit
// against the servers, as EDB 2026 ("Ryzen Under Pressure") compares them
// in one table: "local direct" (the server's unix socket) and "remote
// bouncer" (through pgbouncer, across a network). Each is a name and its
// own transport, pooler and network, the keys sut.transport, sut.pooler
// and sut.network give a spec without sut.placement. It is not
// sut.storage or sut.resources.cpu_policy (storage.go), which place the
// servers' data and cores.
type Placement struct {
	Name string `yaml:"name"`
	// Transport is "tcp" (the default) or "unix".
	Transport string `yaml:"transport"`
	// Pooler and Network are nil for none, as sut.pooler and sut.network.
	Pooler  *Pooler  `yaml:"pooler,omitempty"`
	Network *Network `yaml:"network,omitempty"`
}

// Placements are the values of the spec's placement dimension: each of
// sut.placement, or, without it, one unnamed placement of sut.transport,
// sut.pooler and sut.network. Every check of a transport, a pooler or a
// link goes over them (PlacementPath names where each is written).
func (s *SUT) Placements() []Placement {
	if len(s.Placement) > 0 {
		return s.Placement
	}
	return []Placement{{Transport: s.Transport, Pooler: s.Pooler, Network: s.Network}}
}

// PlacementPath is where placement i of Placements is written:
// "sut.placement[i]", or "sut" for the one of a spec without
// sut.placement, so that its problems keep their paths
// ("sut.network.rate").
func (s *SUT) PlacementPath(i int) string {
	if len(s.Placement) > 0 {
		return index("sut.placement", i)
	}
	return "sut"
}

// PlacementOf is the placement named name (a run's Placement) and its
// index in Placements; the one placement of a spec without sut.placement
// is named "".
func (s *SUT) PlacementOf(name string) (Placement, int) {
	for i, p := range s.Placements() {
		if p.Name == name {
			return p, i
		}
	}
	return Placement{}, -1
}

// placementName is what a placement's name may be: it is a value of
// results.csv's placement column and of the report's labels.
var placementName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,30}$`)

const nameRequired = "required: a name for the placement, e.g. local or remote (results.csv's placement column)"

// placements reads sut.placement: a list of {name, transport, pooler,
// network}, each key but name optional.
func (d *Decoder) placements(n *yaml.Node, path string, dst *[]Placement) {
	if r := resolve(n); r != nil && r.Kind == yaml.SequenceNode && len(r.Content) == 0 {
		d.Refuse(n, path, "must list at least one placement ({name: local, transport: unix}); remove the key for one placement")
		return
	}
	var out []Placement
	d.Seq(n, path, "placements ({name: local, transport: unix})", func(e *yaml.Node, p string) {
		pl := Placement{Transport: defaults().SUT.Transport}
		d.Mapping(e, p, []Field{
			{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &pl.Name) }},
			{"transport", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &pl.Transport) }},
			{"pooler", func(n *yaml.Node, p string) { d.pooler(n, p, &pl.Pooler) }},
			{"network", func(n *yaml.Node, p string) { d.network(n, p, &pl.Network) }},
		})
		if np, r := join(p, "name"), resolve(e); r != nil && r.Kind == yaml.MappingNode && !d.present[np] && !d.failed[np] {
			// On the placement's line: a missing key has none.
			d.Report(Problem{Path: np, Line: r.Line, Allowed: nameRequired})
		}
		out = append(out, pl)
	})
	*dst = out
}

// placementAlone refuses sut.transport, sut.pooler and sut.network beside
// sut.placement: each placement says its own, and one given for all could
// not be taken away from a placement that has none (the local one).
func (d *Decoder) placementAlone(path string) {
	if !d.present[join(path, "placement")] {
		return
	}
	for _, key := range []string{"transport", "pooler", "network"} {
		kp := join(path, key)
		if d.present[kp] {
			d.Report(Problem{Path: kp, Line: d.lines[kp], Allowed: fmt.Sprintf(
				"cannot be given with sut.placement: write %s in each placement that has it", key)})
		}
	}
}

// clientPlacements checks sut.placement as written: names (required,
// unique) and each placement's transport. Whether its pooler and network
// can run is the plan's to check (package plan, placements.go).
func (v *validator) clientPlacements(s *SUT) {
	seen := map[string]int{}
	for i, p := range s.Placements() {
		path := s.PlacementPath(i)
		if len(s.Placement) > 0 {
			np := join(path, "name")
			switch first, dup := seen[p.Name]; {
			case p.Name == "":
				v.add(np, "", nameRequired)
			case !placementName.MatchString(p.Name):
				v.add(np, shown(p.Name), "must be letters, digits, '-', '_' and '.', starting with a letter or digit, at most 31 characters")
			case dup:
				v.add(np, shown(p.Name), fmt.Sprintf("must be unique among sut.placement (sut.placement[%d] has it)", first))
			default:
				seen[p.Name] = i
			}
		}
		if !transports().has(p.Transport) {
			v.add(join(path, "transport"), shown(p.Transport), transports().allowed(p.Transport))
		}
	}
}
