package spec

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Workload options per engine. An option may have a form on one engine
// only (tpcc's interaction: batched is PostgreSQL's), so with several
// engines workload.options, and a case's options, may hold a section per
// engine of sut.engine, whose keys replace the shared ones for that
// engine's runs:
//
//	sut: {engine: [postgres, mariadb]}
//	workload:
//	  name: tpcc
//	  options:
//	    interaction: batched         # every engine's runs ...
//	    mariadb: {interaction: statements}   # ... but MariaDB's
//
// A key is an engine's section when it names an engine of sut.engine; no
// workload has an option named like an engine. A run takes, in order,
// workload.options, its engine's section there, the case's options and
// the case's section of its engine (Case.apply): the most specific wins.

// engineOptions takes the engines' sections out of workload.options and
// of each case's options, once the whole spec (sut.engine) is read.
func (d *Decoder) engineOptions(s *Spec) {
	s.Workload.EngineOptions = d.splitOptions(&s.Workload.Options, "workload.options", s.SUT.Engine)
	for i := range s.Workload.Cases {
		c := &s.Workload.Cases[i]
		c.EngineOptions = d.splitOptions(&c.Options, join(index("workload.cases", i), "options"), s.SUT.Engine)
	}
}

// splitOptions removes from the options mapping n the keys that name one
// of engines and returns their values by engine; nil when there are none.
func (d *Decoder) splitOptions(n *yaml.Node, path string, engines []string) map[string]yaml.Node {
	m := resolveDoc(n)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var out map[string]yaml.Node
	shared := *m
	shared.Content = nil
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || !has(engines, k.Value) {
			shared.Content = append(shared.Content, m.Content[i], m.Content[i+1])
			continue
		}
		kp := join(path, k.Value)
		if IsNull(v) {
			continue // "mariadb:" with no options: none of its own
		}
		if v.Kind != yaml.MappingNode {
			d.Report(Problem{Path: kp, Line: k.Line, Value: valueOf(v), Allowed: fmt.Sprintf(
				"must be a mapping of the workload's options for %s's runs (%s is an engine of sut.engine), not %s", k.Value, k.Value, kindWord(v))})
			continue
		}
		if out == nil {
			out = map[string]yaml.Node{}
		}
		if _, dup := out[k.Value]; dup {
			d.Report(Problem{Path: kp, Line: k.Line, Allowed: "written twice; keep one"})
			continue
		}
		out[k.Value] = *v
	}
	if out != nil {
		*n = shared
	}
	return out
}

// OptionsOf is the options engine's runs take: workload.options with the
// engine's section merged over them.
func (w *Workload) OptionsOf(engine string) *yaml.Node {
	if sec, ok := w.EngineOptions[engine]; ok {
		return MergeOptions(&w.Options, &sec)
	}
	return &w.Options
}

// OptionsOf is the options the case sets on engine's runs: its own with
// its section of the engine merged over them.
func (c *Case) OptionsOf(engine string) *yaml.Node {
	if sec, ok := c.EngineOptions[engine]; ok {
		return MergeOptions(&c.Options, &sec)
	}
	return &c.Options
}

// OptionEngines are the engines that some options section names, sorted.
func (w *Workload) OptionEngines() []string {
	set := map[string]bool{}
	for e := range w.EngineOptions {
		set[e] = true
	}
	for _, c := range w.Cases {
		for e := range c.EngineOptions {
			set[e] = true
		}
	}
	return sortedKeys(set)
}

// ForEngine is w as engine's runs see it: its options and each case's
// with the engine's sections merged in, and no sections. The workload's
// checks of options check it as they check w; EngineOptionPath says
// where a problem they find is written.
func (w *Workload) ForEngine(engine string) *Workload {
	out := *w
	out.Options = *w.OptionsOf(engine)
	out.EngineOptions = nil
	out.Cases = make([]Case, len(w.Cases))
	for i, c := range w.Cases {
		c.Options = *c.OptionsOf(engine)
		c.EngineOptions = nil
		out.Cases[i] = c
	}
	return &out
}

// EngineOptionPath is where a problem found in ForEngine(engine)'s
// options at path is written in the spec: below the engine's section
// when the option's key is the section's ("workload.options.interaction"
// -> "workload.options.mariadb.interaction"), else path. A case's options
// checked merged with workload.options ("workload.cases[0].options with
// workload.options: workload.options.x") have both parts placed.
func (w *Workload) EngineOptionPath(engine, path string) string {
	if before, after, ok := strings.Cut(path, " with workload.options: "); ok {
		return w.EngineOptionPath(engine, before) + " with workload.options: " + w.EngineOptionPath(engine, after)
	}
	place := func(prefix string, sec map[string]yaml.Node) (string, bool) {
		rest, ok := strings.CutPrefix(path, prefix+".")
		if !ok {
			return "", false
		}
		key := rest
		if i := strings.IndexAny(rest, ".["); i >= 0 {
			key = rest[:i]
		}
		s, ok := sec[engine]
		if !ok || !hasKey(&s, key) {
			return "", false
		}
		return join(join(prefix, engine), rest), true
	}
	if p, ok := place("workload.options", w.EngineOptions); ok {
		return p
	}
	for i, c := range w.Cases {
		if p, ok := place(join(index("workload.cases", i), "options"), c.EngineOptions); ok {
			return p
		}
	}
	return path
}

// OptionsSection is the section of engine beside the options a path
// below workload.options or a case's options names: where that engine's
// own value of the option goes ("workload.options.interaction" ->
// "workload.options.mariadb").
func OptionsSection(path, engine string) string {
	if i := strings.Index(path, ".options"); i >= 0 {
		return join(path[:i+len(".options")], engine)
	}
	return join("workload.options", engine)
}

// hasKey says whether the mapping n has key.
func hasKey(n *yaml.Node, key string) bool {
	m := resolveDoc(n)
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// withSections is options as written: the shared keys, then each
// engine's section (engines sorted), for the resolved spec.yaml.
func withSections(opts yaml.Node, sections map[string]yaml.Node) yaml.Node {
	if len(sections) == 0 {
		return opts
	}
	out := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if m := resolveDoc(&opts); m != nil && m.Kind == yaml.MappingNode {
		out = *m
		out.Content = append([]*yaml.Node(nil), m.Content...)
	}
	engines := make([]string, 0, len(sections))
	for e := range sections {
		engines = append(engines, e)
	}
	sort.Strings(engines)
	for _, e := range engines {
		sec := sections[e]
		out.Content = append(out.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e}, &sec)
	}
	return out
}
