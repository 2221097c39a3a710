package spec

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// sut.engine is a matrix dimension: a list of engines runs the matrix on
// each. Server settings belong to one engine (shared_buffers means
// nothing to MariaDB), so with more than one engine sut.settings, and a
// case's settings, are keyed by engine:
//
//	sut:
//	  engine: [postgres, mariadb]
//	  settings:
//	    postgres: {shared_buffers: 128MB}
//	    mariadb: {innodb_buffer_pool_size: [64MB, 256MB]}
//
// A list under one engine is a dimension of that engine's runs only: the
// matrix is expanded per engine (ExpandValid), so the postgres runs above
// are not doubled by MariaDB's two buffer pools. With one engine the
// settings are written flat, as before; keyed by that engine is the same.
//
// A mapping value is how the decoder tells an engine's section from a
// setting: a setting's value is a scalar or a list, never a mapping. The
// names are checked against sut.engine here; whether sut.engine names
// engines tenantbench has is the plan's check (the engine registry).

// SettingsOf is the settings of engine's runs: its section of
// sut.settings, or the flat settings of a one-engine spec.
func (s *SUT) SettingsOf(engine string) map[string]Values {
	if len(s.EngineSettings) > 0 {
		return s.EngineSettings[engine]
	}
	return s.Settings
}

// SettingPath is where a setting of engine is written in the spec:
// sut.settings.<engine>.<key> when keyed by engine, sut.settings.<key>
// when flat.
func (s *SUT) SettingPath(engine, key string) string {
	if len(s.EngineSettings) > 0 {
		return join(join("sut.settings", engine), key)
	}
	return join("sut.settings", key)
}

// SettingsOf is the settings the case sets on engine's runs.
func (c *Case) SettingsOf(engine string) map[string]string {
	if len(c.EngineSettings) > 0 {
		return c.EngineSettings[engine]
	}
	return c.Settings
}

// SettingPath is where the i-th case writes a setting of engine.
func (c *Case) SettingPath(i int, engine, key string) string {
	p := join(index("workload.cases", i), "settings")
	if len(c.EngineSettings) > 0 {
		p = join(p, engine)
	}
	return join(p, key)
}

// engineSettings reads a settings mapping whose values are either a
// setting's value (flat) or a mapping of one engine's settings (keyed);
// which one is allowed is Validate's to say, knowing sut.engine.
func (d *Decoder) engineSettings(n *yaml.Node, path string, flat *map[string]Values, keyed *map[string]map[string]Values) {
	n = resolve(n)
	if IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Report(Problem{Path: path, Line: n.Line, Value: valueOf(n),
			Allowed: "must be a mapping of PostgreSQL parameter names (MariaDB: server options) to values, or with several engines of engine names to such mappings, not " + kindWord(n)})
		return
	}
	// The flat pairs, read as before; the engines' sections apart.
	plain := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), resolve(n.Content[i+1])
		if vn != nil && vn.Kind == yaml.MappingNode && kn.Kind == yaml.ScalarNode {
			kp := join(path, kn.Value)
			d.lines[kp] = kn.Line
			if _, dup := (*keyed)[kn.Value]; dup {
				d.Report(Problem{Path: kp, Line: kn.Line, Allowed: "written twice; keep one"})
				continue
			}
			var m map[string]Values
			d.settings(vn, kp, &m)
			if *keyed == nil {
				*keyed = map[string]map[string]Values{}
			}
			if m == nil {
				m = map[string]Values{}
			}
			(*keyed)[kn.Value] = m
			continue
		}
		plain.Content = append(plain.Content, n.Content[i], n.Content[i+1])
	}
	if len(plain.Content) > 0 || len(*keyed) == 0 {
		d.settings(plain, path, flat)
	}
}

// engineKeyed checks a settings mapping against the spec's engines: with
// several, keyed by engine and by engines of sut.engine only; with one,
// flat or keyed by it, not both.
func (v *validator) engineKeyed(path string, engines []string, flat []string, keyed []string) {
	list := strings.Join(engines, ", ")
	if len(engines) > 1 {
		for _, k := range flat {
			v.add(join(path, k), "", fmt.Sprintf("with several engines (sut.engine: %s) each setting goes under its engine: "+
				"%s.<engine>.%s, where <engine> is one of %s", list, path, k, list))
		}
	} else if len(flat) > 0 && len(keyed) > 0 {
		v.add(path, "", fmt.Sprintf("is written both flat and keyed by engine (%s); with one engine write the settings flat", strings.Join(keyed, ", ")))
	}
	for _, e := range keyed {
		switch {
		case has(engines, e):
		case len(engines) == 1:
			// Most likely a setting given a mapping by mistake.
			v.add(join(path, e), "", fmt.Sprintf("must be a value or a list of values, not a mapping (a mapping here is an engine's settings, "+
				"and sut.engine is %s)%s", list, Suggest(e, engines)))
		default:
			v.add(join(path, e), shown(e), fmt.Sprintf("is not an engine of sut.engine (%s): settings keyed by engine go under one of them%s",
				list, Suggest(e, engines)))
		}
	}
}

// settingsRuns is how many settings points each engine's runs have: the
// product of its list-valued settings' lengths.
func (s *SUT) settingsRuns(engine string) int {
	n := 1
	for _, vals := range s.SettingsOf(engine) {
		n *= max(1, len(vals))
	}
	return n
}

// sut.version, like sut.settings, may be keyed by engine: a version
// belongs to one engine's programs (PostgreSQL 15, MariaDB 10.11), so with
// several engines each is given its own, and an engine left out runs its
// newest:
//
//	sut:
//	  engine: [postgres, mariadb]
//	  version: {postgres: "15", mariadb: "10.11"}
//
// With one engine the version is written flat, as before; keyed by that
// engine is the same.

// VersionOf is the version engine's runs ask for: its entry of sut.version
// keyed by engine, or the flat version; "" for the newest found.
func (s *SUT) VersionOf(engine string) string {
	if len(s.EngineVersions) > 0 {
		return s.EngineVersions[engine]
	}
	return s.Version
}

// VersionPath is where engine's version is written in the spec.
func (s *SUT) VersionPath(engine string) string {
	if len(s.EngineVersions) > 0 {
		return join("sut.version", engine)
	}
	return "sut.version"
}

// engineVersion reads sut.version: a version, or a mapping of engine names
// to versions.
func (d *Decoder) engineVersion(n *yaml.Node, path string, flat *string, keyed *map[string]string) {
	r := resolve(n)
	if IsNull(r) {
		return
	}
	if r.Kind != yaml.MappingNode {
		Scalar(d, n, path, ReadText, flat)
		return
	}
	for i := 0; i+1 < len(r.Content); i += 2 {
		kn, vn := resolve(r.Content[i]), r.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.Report(Problem{Path: path, Line: kn.Line, Allowed: "keys must be engine names"})
			continue
		}
		kp := join(path, kn.Value)
		d.lines[kp] = kn.Line
		if _, dup := (*keyed)[kn.Value]; dup {
			d.Report(Problem{Path: kp, Line: kn.Line, Allowed: "written twice; keep one"})
			continue
		}
		var v string
		if IsNull(resolve(vn)) || Scalar(d, vn, kp, ReadText, &v) {
			if *keyed == nil {
				*keyed = map[string]string{}
			}
			(*keyed)[kn.Value] = v
		}
	}
}

// versions checks sut.version against sut.engine: each version a major or
// a full one; with several engines keyed by engine, by engines of
// sut.engine only.
func (v *validator) versions(s *SUT) {
	list := strings.Join(s.Engine, ", ")
	check := func(path, value string) {
		if value != "" && !serverVersion.MatchString(value) {
			v.add(path, shown(value), "must be a server major version like 16 (or a full one like 16.4), "+
				"or empty for the newest found")
		}
	}
	if s.Version != "" && len(s.Engine) > 1 {
		v.add("sut.version", shown(s.Version), fmt.Sprintf("with several engines (sut.engine: %s) a version is one engine's: "+
			"give each its own, sut.version: {%s: ...}; an engine left out runs its newest", list, s.Engine[0]))
		return
	}
	check("sut.version", s.Version)
	for _, e := range sortedKeys(s.EngineVersions) {
		p := join("sut.version", e)
		if !has(s.Engine, e) {
			v.add(p, shown(e), fmt.Sprintf("is not an engine of sut.engine (%s): versions keyed by engine go under one of them%s",
				list, Suggest(e, s.Engine)))
			continue
		}
		check(p, s.EngineVersions[e])
	}
}
