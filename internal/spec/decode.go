package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks the YAML tree of a spec into a Spec that starts from the
// defaults, collecting every problem with its path.
type decoder struct {
	problems []Problem
	lines    map[string]int  // path -> line where it is written
	single   map[string]bool // list keys written as one value, not a list
	failed   map[string]bool // paths whose value could not be read
	present  map[string]bool // keys written with a non-null value
}

func (d *decoder) report(problems ...Problem) {
	for _, p := range problems {
		d.problems = append(d.problems, p)
		d.failed[p.Path] = true
	}
}

// place gives a validation problem the line it is written on, and the path
// as written: "workload.clients", not "workload.clients[0]", when the list
// was written as one value.
func (d *decoder) place(p Problem) Problem {
	if strings.HasSuffix(p.Path, "[0]") {
		if list := strings.TrimSuffix(p.Path, "[0]"); d.single[list] {
			p.Path = list
		}
	}
	if p.Line == 0 {
		p.Line = d.lines[p.Path]
	}
	return p
}

// field is one key a mapping of the schema accepts.
type field struct {
	key  string
	read func(n *yaml.Node, path string)
}

// mapping checks n is a mapping of known keys, each written once, and
// reads each value with its field's reader. null is an empty mapping.
func (d *decoder) mapping(n *yaml.Node, path string, fields []field) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	var keys []string
	for _, f := range fields {
		keys = append(keys, f.key)
	}
	if n.Kind != yaml.MappingNode {
		d.report(Problem{Path: orRoot(path), Line: n.Line, Value: valueOf(n),
			Allowed: "must be a mapping with the keys " + strings.Join(keys, ", ") + ", not " + kindWord(n)})
		return
	}
	d.pairs(n, path, func(key string, kn, vn *yaml.Node) {
		for _, f := range fields {
			if f.key == key {
				f.read(vn, join(path, key))
				return
			}
		}
		allowed := "unknown key; allowed here: " + strings.Join(keys, ", ")
		if near := nearest(key, keys); near != "" {
			allowed = "unknown key; did you mean " + near + "? allowed here: " + strings.Join(keys, ", ")
		}
		d.report(Problem{Path: join(path, key), Line: kn.Line, Allowed: allowed})
	})
}

// pairs calls each for every key of mapping n, after checking the key is a
// plain scalar written once. Merge keys ("<<") are refused: they would make
// "written twice" ambiguous and specs are short enough to write out.
func (d *decoder) pairs(n *yaml.Node, path string, each func(key string, kn, vn *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.report(Problem{Path: orRoot(path), Line: kn.Line, Allowed: "keys must be plain names, not " + kindWord(kn)})
			continue
		}
		key := kn.Value
		kp := join(path, key)
		if kn.ShortTag() == "!!merge" {
			d.report(Problem{Path: kp, Line: kn.Line, Allowed: "merge keys (<<) are not supported; write the keys out"})
			continue
		}
		if first, dup := seen[key]; dup {
			d.report(Problem{Path: kp, Line: kn.Line, Allowed: fmt.Sprintf("written twice (first on line %d); keep one", first)})
			continue
		}
		seen[key] = kn.Line
		if vn := resolve(vn); vn != nil {
			d.lines[kp] = vn.Line
		}
		if !isNull(vn) {
			d.present[kp] = true
		}
		each(key, kn, vn)
	}
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// plainKey is a key that reads unambiguously after a dot in a path.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// join appends key to path: "sut" + "engine" -> "sut.engine"; a key with
// blanks or symbols is quoted: sut.settings["a b"].
func join(path, key string) string {
	if !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// scalar reads one value into dst; on a problem dst keeps its default.
func scalar[T any](d *decoder, n *yaml.Node, path string, read readOne[T], dst *T) {
	v, ok, problems := readScalar(n, path, read)
	d.report(problems...)
	if ok {
		*dst = v
	}
}

// values reads a value or a list into dst and says whether it did. When
// some elements cannot be read, dst keeps its default and rule is applied
// here to the elements that could, at their own index: Validate will see
// the default instead, and every mistake of the list should still be
// reported at once.
func values[T any](d *decoder, n *yaml.Node, path string, read readOne[T], rule func(T) string, dst *[]T) bool {
	if isNull(n) {
		return false
	}
	l, problems := readList(n, path, read)
	d.report(problems...)
	if l.single {
		d.single[path] = true
	}
	for i, line := range l.lines {
		d.lines[index(path, i)] = line
	}
	if len(problems) == 0 {
		if l.vals == nil {
			l.vals = []T{}
		}
		*dst = l.vals
		return true
	}
	for i, v := range l.vals {
		if l.bad[i] || rule == nil {
			continue
		}
		if msg := rule(v); msg != "" {
			d.problems = append(d.problems, Problem{Path: index(path, i), Value: shown(fmt.Sprint(v)), Line: l.lines[i], Allowed: msg})
		}
	}
	return false
}

func (d *decoder) spec(root *yaml.Node, s *Spec) {
	d.mapping(root, "", []field{
		{"name", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &s.Name) }},
		{"seed", func(n *yaml.Node, p string) { scalar(d, n, p, readInt64, &s.Seed) }},
		{"repeat", func(n *yaml.Node, p string) { scalar(d, n, p, readInt, &s.Repeat) }},
		{"progress", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Progress) }},
		{"sut", func(n *yaml.Node, p string) { d.sut(n, p, &s.SUT) }},
		{"tenancy", func(n *yaml.Node, p string) { d.tenancy(n, p, &s.Tenancy) }},
		{"workload", func(n *yaml.Node, p string) { d.workload(n, p, &s.Workload) }},
		{"cost", func(n *yaml.Node, p string) {
			d.mapping(n, p, []field{
				{"cpu_vcore_hour", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &s.Cost.CPUVCoreHour) }},
				{"memory_gb_hour", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &s.Cost.MemoryGBHour) }},
			})
		}},
	})
}

func (d *decoder) sut(n *yaml.Node, path string, s *SUT) {
	d.mapping(n, path, []field{
		{"engine", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &s.Engine) }},
		{"provider", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &s.Provider) }},
		{"version", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &s.Version) }},
		{"transport", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &s.Transport) }},
		{"settings", func(n *yaml.Node, p string) { d.settings(n, p, &s.Settings) }},
		{"resources", func(n *yaml.Node, p string) {
			d.mapping(n, p, []field{
				{"cpus", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &s.Resources.CPUs) }},
				{"memory", func(n *yaml.Node, p string) { scalar(d, n, p, readByteSize, &s.Resources.Memory) }},
				{"divide", func(n *yaml.Node, p string) { scalar(d, n, p, readBool, &s.Resources.Divide) }},
			})
		}},
	})
}

// settings reads sut.settings: parameter name -> value or list of values.
// A setting whose value cannot be read is left out of dst, after its name
// and its readable values have been checked here.
func (d *decoder) settings(n *yaml.Node, path string, dst *map[string]Values) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.report(Problem{Path: path, Line: n.Line, Value: valueOf(n),
			Allowed: "must be a mapping of PostgreSQL parameter names to values, not " + kindWord(n)})
		return
	}
	out := map[string]Values{}
	d.pairs(n, path, func(key string, kn, vn *yaml.Node) {
		kp := join(path, key)
		if isNull(vn) {
			d.report(Problem{Path: kp, Line: kn.Line, Allowed: "needs a value; remove the key to keep the server's default"})
			if msg := settingKeyRule(key); msg != "" {
				d.problems = append(d.problems, Problem{Path: kp, Line: kn.Line, Allowed: msg})
			}
			return
		}
		var v []string
		if !values(d, vn, kp, readText, settingValueRule, &v) {
			if msg := settingKeyRule(key); msg != "" {
				d.problems = append(d.problems, Problem{Path: kp, Line: kn.Line, Allowed: msg})
			}
			return
		}
		out[key] = v
	})
	*dst = out
}

func (d *decoder) tenancy(n *yaml.Node, path string, t *Tenancy) {
	d.mapping(n, path, []field{
		{"model", func(n *yaml.Node, p string) { values(d, n, p, readText, modelRule, (*[]string)(&t.Model)) }},
		{"tenants", func(n *yaml.Node, p string) { values(d, n, p, readInt, tenantsRule, (*[]int)(&t.Tenants)) }},
	})
}

func (d *decoder) workload(n *yaml.Node, path string, w *Workload) {
	d.mapping(n, path, []field{
		{"name", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &w.Name) }},
		{"scale", func(n *yaml.Node, p string) { values(d, n, p, readFloat, scaleRule, (*[]float64)(&w.Scale)) }},
		{"clients", func(n *yaml.Node, p string) { values(d, n, p, readInt, clientsRule, (*[]int)(&w.Clients)) }},
		{"duration", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &w.Duration) }},
		{"warmup", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &w.Warmup) }},
		{"provision", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &w.Provision) }},
		{"options", func(n *yaml.Node, p string) { d.options(n, p, &w.Options) }},
		{"cases", func(n *yaml.Node, p string) { d.cases(n, p, &w.Cases) }},
		{"load", func(n *yaml.Node, p string) { d.load(n, p, &w.Load) }},
		{"schedule", func(n *yaml.Node, p string) { d.schedule(n, p, &w.Schedule) }},
		{"pattern", func(n *yaml.Node, p string) { d.pattern(n, p, &w.Pattern) }},
	})
}

// options keeps workload.options as written, for the workload to decode.
// Its contents are not checked here, with one exception: an alias inside it
// to an anchor outside it would leave the workload (and the resolved spec
// written back) with an alias to nothing.
func (d *decoder) options(n *yaml.Node, path string, dst *yaml.Node) {
	n = resolve(n)
	if isNull(n) {
		return // no options, as when the key is absent
	}
	inside := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		inside[x] = true
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(n)
	for x := range inside {
		if x.Kind == yaml.AliasNode && !inside[x.Alias] {
			d.report(Problem{Path: path, Line: x.Line, Value: "*" + x.Value,
				Allowed: "an alias inside workload.options must name an anchor inside it; write the value out"})
			return
		}
	}
	*dst = *n
}
