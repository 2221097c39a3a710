package spec

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Case is one entry of workload.cases: a named point of the experiment
// whose values replace the spec's for its runs. A matrix of lists is a
// cross product; cases are points that are not one, such as
// Matos and Pedreira's (2025) eight test cases (Table 1), each with its own
// max_connections, shared_buffers, wal_buffers, virtual users and warehouses.
type Case struct {
	Name string `yaml:"name"`
	// Settings replace these sut.settings keys, one value each: flat,
	// or keyed by engine in EngineSettings when sut.engine lists several
	// (engines.go); SettingsOf gives an engine's.
	Settings       map[string]string            `yaml:"settings,omitempty"`
	EngineSettings map[string]map[string]string `yaml:"-"`
	// Scale and Clients replace workload.scale and workload.clients; nil
	// keeps the spec's.
	Scale   *float64 `yaml:"scale,omitempty"`
	Clients *int     `yaml:"clients,omitempty"`
	// Options replace the keys of workload.options they name; the other
	// keys keep the spec's. With a Workload of its own, they are that
	// workload's options, alone. EngineOptions are its sections keyed by
	// engine, as workload.options' (engineoptions.go).
	Options       yaml.Node            `yaml:"options,omitempty"`
	EngineOptions map[string]yaml.Node `yaml:"-"`
	// The keys below let one experiment hold tests that differ in more
	// than numbers, as Zhang et al.'s (2025) seven (casepick.go).
	//
	// Workload replaces workload.name; "" keeps the spec's.
	Workload string `yaml:"workload,omitempty"`
	// Replicas replace sut.replicas: a value, or a list, a dimension of
	// the case's runs; nil keeps the spec's.
	Replicas Ints `yaml:"replicas,omitempty"`
	// Interference replaces the interference list, kept as written for
	// package interfere; a null node keeps the spec's, [] has none.
	Interference yaml.Node `yaml:"interference,omitempty"`
	// Autoscale replaces sut.resources.autoscale; nil keeps the spec's.
	Autoscale *Autoscale `yaml:"autoscale,omitempty"`
	// Pattern replaces workload.pattern and workload.schedule for the
	// case's runs: one pattern, with its own parameters; nil keeps the
	// spec's.
	Pattern *Pattern `yaml:"pattern,omitempty"`
	// Scores are the PERFECT scores (metrics.PerfectScores) the case's
	// runs measure for Zhang et al.'s Table IX; none: every score a run
	// has (results.PerfectOf).
	Scores []string `yaml:"scores,omitempty"`
}

// caseKeys are the keys a case accepts.
func (d *Decoder) cases(n *yaml.Node, path string, dst *[]Case) {
	out := []Case{}
	d.Seq(n, path, "cases ({name: small, settings: {...}, scale: 5, clients: 5, options: {...}, workload: lag, "+
		"replicas: [0, 1], interference: [...], autoscale: {...}, pattern: {...}, scores: [P]})", func(e *yaml.Node, p string) {
		var c Case
		d.Mapping(e, p, []Field{
			{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &c.Name) }},
			{"settings", func(n *yaml.Node, p string) {
				var m map[string]Values
				var keyed map[string]map[string]Values
				d.engineSettings(n, p, &m, &keyed)
				c.Settings = d.caseSettings(m, p)
				for _, e := range sortedKeys(keyed) {
					if c.EngineSettings == nil {
						c.EngineSettings = map[string]map[string]string{}
					}
					c.EngineSettings[e] = d.caseSettings(keyed[e], join(p, e))
					if c.EngineSettings[e] == nil {
						c.EngineSettings[e] = map[string]string{}
					}
				}
			}},
			{"scale", func(n *yaml.Node, p string) {
				if IsNull(n) {
					return
				}
				var v float64
				Scalar(d, n, p, ReadFloat, &v)
				c.Scale = &v
			}},
			{"clients", func(n *yaml.Node, p string) {
				if IsNull(n) {
					return
				}
				var v int
				Scalar(d, n, p, ReadInt, &v)
				c.Clients = &v
			}},
			{"options", func(n *yaml.Node, p string) { d.options(n, p, &c.Options) }},
			{"workload", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &c.Workload) }},
			{"replicas", func(n *yaml.Node, p string) { values(d, n, p, ReadInt, replicasRule, (*[]int)(&c.Replicas)) }},
			{"interference", func(n *yaml.Node, p string) { d.options(n, p, &c.Interference) }},
			{"autoscale", func(n *yaml.Node, p string) { d.autoscale(n, p, &c.Autoscale) }},
			{"pattern", func(n *yaml.Node, p string) { d.pattern(n, p, &c.Pattern) }},
			{"scores", func(n *yaml.Node, p string) { values(d, n, p, ReadText, nil, &c.Scores) }},
		})

		out = append(out, c)
	})

	if !IsNull(n) {
		*dst = out
	}
}

// MarshalYAML writes the case as it is read: its settings flat, or keyed
// by engine.
func (c Case) MarshalYAML() (any, error) {
	out := struct {
		Name         string     `yaml:"name"`
		Settings     any        `yaml:"settings,omitempty"`
		Scale        *float64   `yaml:"scale,omitempty"`
		Clients      *int       `yaml:"clients,omitempty"`
		Options      yaml.Node  `yaml:"options,omitempty"`
		Workload     string     `yaml:"workload,omitempty"`
		Replicas     Ints       `yaml:"replicas,omitempty"`
		Interference yaml.Node  `yaml:"interference,omitempty"`
		Autoscale    *Autoscale `yaml:"autoscale,omitempty"`
		Pattern      *Pattern   `yaml:"pattern,omitempty"`
		Scores       []string   `yaml:"scores,omitempty"`
	}{Name: c.Name, Scale: c.Scale, Clients: c.Clients, Options: withSections(c.Options, c.EngineOptions), Workload: c.Workload,
		Replicas: c.Replicas, Interference: c.Interference, Autoscale: c.Autoscale, Pattern: c.Pattern, Scores: c.Scores}
	if len(c.EngineSettings) > 0 {
		out.Settings = c.EngineSettings
	} else if len(c.Settings) > 0 {
		out.Settings = c.Settings
	}
	return out, nil
}

// caseSettings are a case's settings at path, one value each; nil for
// none.
func (d *Decoder) caseSettings(m map[string]Values, p string) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for _, k := range sortedKeys(m) {
		if len(m[k]) != 1 {
			d.Report(Problem{Path: join(p, k), Line: d.lines[join(p, k)], Value: strings.Join(m[k], ", "),
				Allowed: "a case sets one value of a setting; make another case for another value"})
			continue
		}
		out[k] = m[k][0]
	}
	return out
}

// cases checks workload.cases: named, each name once, values as the keys
// they replace allow, and no case replacing a key that is a dimension of
// the matrix (a list), which would make the same point twice.
func (v *validator) cases(s *Spec) {
	w := &s.Workload
	seen := map[string]int{}
	for i, c := range w.Cases {
		p := index("workload.cases", i)
		switch {
		case c.Name == "":
			v.add(join(p, "name"), "", "required: the case's name, shown in the plan (letters, digits, '-', '_', '.')")
		case len(c.Name) > maxNameLen || !experimentName.MatchString(c.Name):
			v.add(join(p, "name"), shown(c.Name), fmt.Sprintf("must be letters, digits, '-', '_' and '.', starting with a letter or digit, at most %d characters", maxNameLen))
		default:
			if j, dup := seen[c.Name]; dup {
				v.add(join(p, "name"), shown(c.Name), fmt.Sprintf("already the name of workload.cases[%d]; each case needs its own", j))
			}
			seen[c.Name] = i
		}
		v.engineKeyed(join(p, "settings"), s.SUT.Engine, sortedKeys(c.Settings), sortedKeys(c.EngineSettings))
		for _, e := range s.SUT.Engine {
			set := c.SettingsOf(e)
			for _, k := range sortedKeys(set) {
				kp := c.SettingPath(i, e, k)
				if msg := settingValueRule(set[k]); msg != "" {
					v.add(kp, shown(set[k]), msg)
				}
				if len(s.SUT.SettingsOf(e)[k]) > 1 {
					v.add(kp, shown(set[k]), s.SUT.SettingPath(e, k)+" is a list (a dimension of the matrix); a case cannot set it too: give it in every case instead")
				}
			}
			if len(c.EngineSettings) == 0 {
				break // flat: the same settings for the one engine
			}
		}
		if c.Scale != nil {
			if msg := scaleRule(*c.Scale); msg != "" {
				v.add(join(p, "scale"), fmt.Sprint(*c.Scale), msg)
			} else if len(w.Scale) > 1 {
				v.add(join(p, "scale"), fmt.Sprint(*c.Scale), "workload.scale is a list (a dimension of the matrix); a case cannot set it too")
			}
		}
		if c.Clients != nil {
			if msg := clientsRule(*c.Clients); msg != "" {
				v.add(join(p, "clients"), fmt.Sprint(*c.Clients), msg)
			} else if len(w.Clients) > 1 {
				v.add(join(p, "clients"), fmt.Sprint(*c.Clients), "workload.clients is a list (a dimension of the matrix); a case cannot set it too")
			}
		}
	}
}

// caseKeys are the sut.settings keys some case sets, sorted: shown as
// columns of the plan and of results.csv beside the list-valued keys.
func (s *Spec) caseKeys() []string {
	set := map[string]bool{}
	for _, c := range s.Workload.Cases {
		for _, e := range s.SUT.Engine {
			for k := range c.SettingsOf(e) {
				set[k] = true
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cases are the cases of the plan: workload.cases, or one that changes
// nothing.
func (w *Workload) cases() []Case {
	if len(w.Cases) == 0 {
		return []Case{{}}
	}
	return w.Cases
}

// apply sets the case's values on run r, its settings of r's engine.
func (c *Case) apply(w *Workload, r *Run) {
	r.Case = c.Name
	for k, v := range c.SettingsOf(r.Engine) {
		r.Settings[k] = v
	}
	if c.Scale != nil {
		r.Scale = *c.Scale
	}
	if c.Clients != nil {
		r.Clients = *c.Clients
	}
	base, over := w.OptionsOf(r.Engine), c.OptionsOf(r.Engine)
	switch {
	case c.OwnWorkload(w):
		// Another workload's options: the case's alone (with its
		// engine's section).
		o := *over
		r.Options = &o
	case !IsNull(over):
		r.Options = MergeOptions(base, over)
	case base != &w.Options: // the engine's own section, no case's
		r.Options = base
	}
}

// MergeOptions is the mapping base with the keys of over replacing its
// own, in base's order, over's other keys after them. A base that is not
// a mapping (none, null) gives over. Neither is changed.
func MergeOptions(base, over *yaml.Node) *yaml.Node {
	b, o := resolveDoc(base), resolveDoc(over)
	if o == nil || o.Kind != yaml.MappingNode {
		out := *over
		return &out
	}
	if b == nil || b.Kind != yaml.MappingNode {
		out := *o
		return &out
	}
	out := *b
	out.Content = nil
	replaced := map[string]bool{}
	for i := 0; i+1 < len(b.Content); i += 2 {
		k, val := b.Content[i], b.Content[i+1]
		for j := 0; j+1 < len(o.Content); j += 2 {
			if o.Content[j].Value == k.Value {
				val, replaced[k.Value] = o.Content[j+1], true
			}
		}
		out.Content = append(out.Content, k, val)
	}
	for j := 0; j+1 < len(o.Content); j += 2 {
		if !replaced[o.Content[j].Value] {
			out.Content = append(out.Content, o.Content[j], o.Content[j+1])
		}
	}
	return &out
}

// resolveDoc is n without its document wrapper and aliases; nil for none.
func resolveDoc(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind == 0 {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return resolve(n)
}
