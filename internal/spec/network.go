package spec

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Network is sut.network: the run's servers (and pooler) behind an
// emulated link, which every client round trip crosses (Matos and
// Pedreira's and EDB 2026's "remote" client placement). Each value is
// applied to each direction: Delay is one-way. The zero value, `{}`, is a
// plain link (a network namespace and veth pair, no emulator). One value per
// spec, not a matrix dimension.
type Network struct {
	Delay  Duration `yaml:"delay"`
	Jitter Duration `yaml:"jitter"`
	// Loss is the percentage of packets lost in each direction.
	Loss float64 `yaml:"loss"`
	// Rate is the link's bandwidth as tc writes it ("1gbit"), "" for
	// the veth's own; the plan reads it (package netns).
	Rate string `yaml:"rate,omitempty"`
	// Emulator is what puts the link on the veth pair: auto (the
	// default, ""), netem or queue; the plan checks the name and
	// chooses (package netns).
	Emulator string `yaml:"emulator,omitempty"`
}

// network reads sut.network; a negative delay or jitter and a loss
// outside 0..100 % are refused here, with their line.
func (d *Decoder) network(n *yaml.Node, path string, dst **Network) {
	if IsNull(n) {
		return // "network:" with no value: loopback, as if unwritten
	}
	var nw Network
	nonNegative := Where(ReadDuration, func(v Duration) bool { return v >= 0 }, "must be a duration of 0 or more, e.g. 1ms")
	d.Mapping(n, path, []Field{
		{"delay", func(n *yaml.Node, p string) { Scalar(d, n, p, nonNegative, &nw.Delay) }},
		{"jitter", func(n *yaml.Node, p string) { Scalar(d, n, p, nonNegative, &nw.Jitter) }},
		{"loss", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadPercent, &nw.Loss) }},
		{"rate", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &nw.Rate) }},
		{"emulator", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &nw.Emulator) }},
	})
	*dst = &nw
}

// ReadPercent reads a percentage from 0 to 100, written "0.5%" or 0.5.
func ReadPercent(n *yaml.Node) (float64, string) {
	const allowed = "must be a percentage from 0 to 100, e.g. 0.1%"
	s := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || s == "" {
		return 0, allowed
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, allowed
	}
	return v, ""
}
