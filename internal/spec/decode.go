package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Decoder reads YAML strictly into Go values: every key must be known and
// written once, every value of the type and range its reader allows, and
// every problem is collected (never only the first) with its path and line.
// Parse uses it for the spec; a workload uses it for workload.options.
//
// A reader is given a field's value node and its path; it reads the value
// with Scalar, List, Mapping or Seq, which report what they cannot read,
// and reports any other problem with Report or Refuse.
type Decoder struct {
	problems []Problem
	lines    map[string]int  // path -> line where it is written
	single   map[string]bool // list keys written as one value, not a list
	failed   map[string]bool // paths whose value could not be read
	present  map[string]bool // keys written with a non-null value
}

// NewDecoder is a decoder with no problems yet.
func NewDecoder() *Decoder {
	return &Decoder{
		lines:   map[string]int{},
		single:  map[string]bool{},
		failed:  map[string]bool{},
		present: map[string]bool{},
	}
}

// Problems are the problems found so far, in the order they were found;
// nil when there are none.
func (d *Decoder) Problems() []Problem { return d.problems }

// Report adds problems as they are.
func (d *Decoder) Report(problems ...Problem) {
	for _, p := range problems {
		d.problems = append(d.problems, p)
		d.failed[p.Path] = true
	}
}

// Refuse reports that the value n at path is not allowed, naming the value
// as written and its line.
func (d *Decoder) Refuse(n *yaml.Node, path, allowed string) {
	n = resolve(n)
	p := Problem{Path: orRoot(path), Allowed: allowed}
	if n != nil {
		p.Value, p.Line = valueOf(n), n.Line
	}
	d.Report(p)
}

// place gives a validation problem the line it is written on, and the path
// as written: "workload.clients", not "workload.clients[0]", when the list
// was written as one value.
func (d *Decoder) place(p Problem) Problem {
	if strings.HasSuffix(p.Path, "[0]") {
		if list := strings.TrimSuffix(p.Path, "[0]"); d.single[list] {
			p.Path = list
		}
	}
	if p.Line == 0 {
		p.Line = d.lines[p.Path]
	}
	if before, _, merged := strings.Cut(p.Path, " with "); merged && p.Line == 0 {
		// A case's options checked merged with workload.options
		// ("workload.cases[0].options with workload.options: ..."): the
		// case's options are what the user changes.
		p.Line = d.lines[before]
	}
	return p
}

// Field is one key a mapping accepts: Read reads the key's value, at the
// key's path. Read is called for every key written, even with no value
// ("key:" or "key: ~"): Scalar, List and Mapping then keep the default.
type Field struct {
	Key  string
	Read func(n *yaml.Node, path string)
}

// Mapping checks n is a mapping of the keys of fields, each written once,
// and reads each value with its field's Read. An unknown key is refused
// with the allowed keys and the nearest one ("did you mean"). null is an
// empty mapping.
func (d *Decoder) Mapping(n *yaml.Node, path string, fields []Field) {
	n = resolve(n)
	if IsNull(n) {
		return
	}
	var keys []string
	for _, f := range fields {
		keys = append(keys, f.Key)
	}
	if n.Kind != yaml.MappingNode {
		d.Report(Problem{Path: orRoot(path), Line: n.Line, Value: valueOf(n),
			Allowed: "must be a mapping with the keys " + strings.Join(keys, ", ") + ", not " + kindWord(n)})
		return
	}
	d.pairs(n, path, func(key string, kn, vn *yaml.Node) {
		for _, f := range fields {
			if f.Key == key {
				f.Read(vn, join(path, key))
				return
			}
		}
		allowed := "unknown key; allowed here: " + strings.Join(keys, ", ")
		if near := nearest(key, keys); near != "" {
			allowed = "unknown key; did you mean " + near + "? allowed here: " + strings.Join(keys, ", ")
		}
		d.Report(Problem{Path: join(path, key), Line: kn.Line, Allowed: allowed})
	})
}

// pairs calls each for every key of mapping n, after checking the key is a
// plain scalar written once. Merge keys ("<<") are refused: they would make
// "written twice" ambiguous and specs are short enough to write out.
func (d *Decoder) pairs(n *yaml.Node, path string, each func(key string, kn, vn *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.Report(Problem{Path: orRoot(path), Line: kn.Line, Allowed: "keys must be plain names, not " + kindWord(kn)})
			continue
		}
		key := kn.Value
		kp := join(path, key)
		if kn.ShortTag() == "!!merge" {
			d.Report(Problem{Path: kp, Line: kn.Line, Allowed: "merge keys (<<) are not supported; write the keys out"})
			continue
		}
		if first, dup := seen[key]; dup {
			d.Report(Problem{Path: kp, Line: kn.Line, Allowed: fmt.Sprintf("written twice (first on line %d); keep one", first)})
			continue
		}
		seen[key] = kn.Line
		if vn := resolve(vn); vn != nil {
			d.lines[kp] = vn.Line
		}
		if !IsNull(vn) {
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

// Seq calls each for every element of the sequence n, at its path
// ("path[i]"); what names the elements for the problem when n is not a
// sequence. null is an empty sequence.
func (d *Decoder) Seq(n *yaml.Node, path, what string, each func(e *yaml.Node, path string)) {
	n = resolve(n)
	if IsNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.Report(Problem{Path: path, Line: n.Line, Value: valueOf(n), Allowed: "must be a list of " + what + ", not " + kindWord(n)})
		return
	}
	for i, e := range n.Content {
		ep := index(path, i)
		if r := resolve(e); r != nil {
			d.lines[ep] = r.Line
		}
		each(e, ep)
	}
}

// Scalar reads one value into dst with read and says whether it did. null
// keeps dst as it is, with no problem ("key:" keeps the default); a value
// read cannot read is reported and keeps dst as it is.
func Scalar[T any](d *Decoder, n *yaml.Node, path string, read Reader[T], dst *T) bool {
	v, ok, problems := readScalar(n, path, read)
	d.Report(problems...)
	if ok {
		*dst = v
	}
	return ok
}

// List reads a value or a list of values into dst with read and says
// whether it did: a single value is a list of one ("clients: 4" is [4]).
// null keeps dst as it is; when an element cannot be read, each such
// element is reported at its index and dst keeps its value.
func List[T any](d *Decoder, n *yaml.Node, path string, read Reader[T], dst *[]T) bool {
	return values(d, n, path, read, nil, dst)
}

// values reads a value or a list into dst and says whether it did. When
// some elements cannot be read, dst keeps its default and rule is applied
// here to the elements that could, at their own index: Validate will see
// the default instead, and every mistake of the list should still be
// reported at once.
func values[T any](d *Decoder, n *yaml.Node, path string, read Reader[T], rule func(T) string, dst *[]T) bool {
	if IsNull(n) {
		return false
	}
	l, problems := readList(n, path, read)
	d.Report(problems...)
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

func (d *Decoder) spec(root *yaml.Node, s *Spec) {
	d.Mapping(root, "", []Field{
		{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &s.Name) }},
		{"seed", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadInt64, &s.Seed) }},
		{"repeat", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadInt, &s.Repeat) }},
		{"progress", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Progress) }},
		{"order", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &s.Order) }},
		{"probe", func(n *yaml.Node, p string) { d.probe(n, p, &s.Probe) }},
		{"sut", func(n *yaml.Node, p string) { d.sut(n, p, &s.SUT) }},
		{"tenancy", func(n *yaml.Node, p string) { d.tenancy(n, p, &s.Tenancy) }},
		{"workload", func(n *yaml.Node, p string) { d.workload(n, p, &s.Workload) }},
		{"interference", func(n *yaml.Node, p string) { d.options(n, p, &s.Interference) }},
		{"cost", func(n *yaml.Node, p string) {
			d.Mapping(n, p, []Field{
				{"cpu_vcore_hour", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.Cost.CPUVCoreHour) }},
				{"memory_gb_hour", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.Cost.MemoryGBHour) }},
			})

		}},
	})

}

func (d *Decoder) sut(n *yaml.Node, path string, s *SUT) {
	d.Mapping(n, path, []Field{
		// The names are the engine registry's: the plan checks them.
		{"engine", func(n *yaml.Node, p string) { values(d, n, p, ReadText, nil, (*[]string)(&s.Engine)) }},
		{"provider", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &s.Provider) }},
		{"version", func(n *yaml.Node, p string) { d.engineVersion(n, p, &s.Version, &s.EngineVersions) }},
		{"transport", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &s.Transport) }},
		{"settings", func(n *yaml.Node, p string) { d.engineSettings(n, p, &s.Settings, &s.EngineSettings) }},
		{"servers", func(n *yaml.Node, p string) { d.servers(n, p, &s.Servers) }},
		{"pooler", func(n *yaml.Node, p string) { d.pooler(n, p, &s.Pooler) }},
		{"network", func(n *yaml.Node, p string) { d.network(n, p, &s.Network) }},
		{"placement", func(n *yaml.Node, p string) { d.placements(n, p, &s.Placement) }},
		{"storage", func(n *yaml.Node, p string) { d.storage(n, p, &s.Storage) }},
		{"kubernetes", func(n *yaml.Node, p string) { d.kubernetes(n, p, &s.Kubernetes) }},
		{"replicas", func(n *yaml.Node, p string) { values(d, n, p, ReadInt, replicasRule, (*[]int)(&s.Replicas)) }},
		{"replication", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &s.Replication) }},
		{"resources", func(n *yaml.Node, p string) {
			d.Mapping(n, p, []Field{
				{"cpus", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.Resources.CPUs) }},
				{"memory", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadByteSize, &s.Resources.Memory) }},
				{"divide", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadBool, &s.Resources.Divide) }},
				{"cpu_policy", func(n *yaml.Node, p string) {
					values(d, n, p, ReadText, cpuPolicies().rule, (*[]string)(&s.Resources.CPUPolicy))
				}},
				{"schedule", func(n *yaml.Node, p string) { d.resourceSchedule(n, p, &s.Resources.Schedule) }},
				{"autoscale", func(n *yaml.Node, p string) { d.autoscale(n, p, &s.Resources.Autoscale) }},
			})

		}},
	})
	d.placementAlone(path)
}

// servers reads sut.servers: a list of {name, dsn_env}.
func (d *Decoder) servers(n *yaml.Node, path string, dst *[]Server) {
	var out []Server
	d.Seq(n, path, "servers ({name: main, dsn_env: MAIN_DSN})", func(e *yaml.Node, p string) {
		var sv Server
		d.Mapping(e, p, []Field{
			{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &sv.Name) }},
			{"dsn_env", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &sv.DSNEnv) }},
		})
		out = append(out, sv)
	})
	*dst = out
}

// kubernetes reads sut.kubernetes: {kubeconfig_env, context, namespace,
// image, access, spread, storage: {class, size}, node_selector}.
func (d *Decoder) kubernetes(n *yaml.Node, path string, dst **Kubernetes) {
	if IsNull(resolve(n)) {
		return
	}
	var k Kubernetes
	d.Mapping(n, path, []Field{
		{"kubeconfig_env", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &k.KubeconfigEnv) }},
		{"namespace", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &k.Namespace) }},
		{"context", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &k.Context) }},
		{"image", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &k.Image) }},
		{"access", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &k.Access) }},
		{"spread", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadBool, &k.Spread) }},
		{"storage", func(n *yaml.Node, p string) {
			if IsNull(resolve(n)) {
				return
			}
			st := KubeStorage{Size: KubeStorageSize}
			d.Mapping(n, p, []Field{
				{"class", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &st.Class) }},
				{"size", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadByteSize, &st.Size) }},
			})
			k.Storage = &st
		}},
		{"node_selector", func(n *yaml.Node, p string) { d.labels(n, p, &k.NodeSelector) }},
	})
	*dst = &k
}

// labels reads a mapping of label keys to values (sut.kubernetes.
// node_selector), each as Kubernetes takes it.
func (d *Decoder) labels(n *yaml.Node, path string, dst *map[string]string) {
	n = resolve(n)
	if IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Report(Problem{Path: path, Line: n.Line, Value: valueOf(n), Allowed: "must be a mapping of node label keys to values, not " + kindWord(n)})
		return
	}
	out := map[string]string{}
	d.pairs(n, path, func(key string, kn, vn *yaml.Node) {
		kp := join(path, key)
		if !labelKey.MatchString(key) {
			d.Report(Problem{Path: kp, Line: kn.Line, Allowed: "must be a label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit"})
			return
		}
		var v string
		if !Scalar(d, vn, kp, ReadText, &v) {
			return
		}
		if !labelValue.MatchString(v) {
			d.Report(Problem{Path: kp, Line: vn.Line, Value: shown(v), Allowed: "must be a label value: at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit (or empty)"})
			return
		}
		out[key] = v
	})
	*dst = out
}

// pooler reads sut.pooler: kind, mode and pool_size, the unwritten ones
// at PoolerDefaults. The names are package pooler's: the plan checks them.
func (d *Decoder) pooler(n *yaml.Node, path string, dst **Pooler) {
	if IsNull(resolve(n)) {
		return
	}
	p := PoolerDefaults
	d.Mapping(n, path, []Field{
		{"kind", func(n *yaml.Node, p2 string) { Scalar(d, n, p2, ReadText, &p.Kind) }},
		{"mode", func(n *yaml.Node, p2 string) { Scalar(d, n, p2, ReadText, &p.Mode) }},
		{"pool_size", func(n *yaml.Node, p2 string) { Scalar(d, n, p2, ReadInt, &p.PoolSize) }},
	})
	*dst = &p
}

// settings reads sut.settings: parameter name -> value or list of values.
// A setting whose value cannot be read is left out of dst, after its name
// and its readable values have been checked here.
func (d *Decoder) settings(n *yaml.Node, path string, dst *map[string]Values) {
	n = resolve(n)
	if IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Report(Problem{Path: path, Line: n.Line, Value: valueOf(n),
			Allowed: "must be a mapping of the server's parameter names to values, not " + kindWord(n)})
		return
	}
	out := map[string]Values{}
	d.pairs(n, path, func(key string, kn, vn *yaml.Node) {
		kp := join(path, key)
		if IsNull(vn) {
			d.Report(Problem{Path: kp, Line: kn.Line, Allowed: "needs a value; remove the key to keep the server's default"})
			return
		}
		var v []string
		if !values(d, vn, kp, ReadText, settingValueRule, &v) {
			return
		}
		out[key] = v
	})
	*dst = out
}

func (d *Decoder) tenancy(n *yaml.Node, path string, t *Tenancy) {
	d.Mapping(n, path, []Field{
		{"model", func(n *yaml.Node, p string) { values(d, n, p, ReadText, modelRule, (*[]string)(&t.Model)) }},
		{"tenants", func(n *yaml.Node, p string) { values(d, n, p, ReadInt, tenantsRule, (*[]int)(&t.Tenants)) }},
		{"isolation", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &t.Isolation) }},
		// The names are tenancy's: the plan checks them.
		{"guards", func(n *yaml.Node, p string) { values(d, n, p, ReadText, nil, &t.Guards) }},
		{"classes", func(n *yaml.Node, p string) { d.classes(n, p, &t.Classes) }},
	})

}

func (d *Decoder) workload(n *yaml.Node, path string, w *Workload) {
	d.Mapping(n, path, []Field{
		{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &w.Name) }},
		{"scale", func(n *yaml.Node, p string) { values(d, n, p, ReadFloat, scaleRule, (*[]float64)(&w.Scale)) }},
		{"clients", func(n *yaml.Node, p string) { values(d, n, p, ReadInt, clientsRule, (*[]int)(&w.Clients)) }},
		{"duration", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &w.Duration) }},
		{"warmup", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &w.Warmup) }},
		{"provision", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &w.Provision) }},
		{"reads", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &w.Reads) }},
		{"options", func(n *yaml.Node, p string) { d.options(n, p, &w.Options) }},
		{"cases", func(n *yaml.Node, p string) { d.cases(n, p, &w.Cases) }},
		{"load", func(n *yaml.Node, p string) { d.load(n, p, &w.Load) }},
		{"schedule", func(n *yaml.Node, p string) { d.schedule(n, p, &w.Schedule) }},
		{"pattern", func(n *yaml.Node, p string) { d.pattern(n, p, &w.Pattern) }},
		{"sla", func(n *yaml.Node, p string) { d.sla(n, p, &w.SLA) }},
	})

}

// options keeps workload.options (or interference) as written, for the
// workload (package interfere) to decode.
// Its contents are not checked here, with one exception: an alias inside it
// to an anchor outside it would leave the workload (and the resolved spec
// written back) with an alias to nothing.
func (d *Decoder) options(n *yaml.Node, path string, dst *yaml.Node) {
	n = resolve(n)
	if IsNull(n) {
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
			d.Report(Problem{Path: path, Line: x.Line, Value: "*" + x.Value,
				Allowed: "an alias inside " + path + " must name an anchor inside it; write the value out"})
			return
		}
	}
	d.recordLines(n, path)
	*dst = *n
}

// recordLines records the line of every path inside the options at path,
// so that a problem a workload finds later, with the rest of the spec
// (workload.options.refresh with the tenants), is placed on its line like
// the spec's own.
func (d *Decoder) recordLines(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			kp := join(path, k.Value)
			if _, seen := d.lines[kp]; !seen {
				d.lines[kp] = v.Line
			}
			d.recordLines(v, kp)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			d.lines[index(path, i)] = e.Line
			d.recordLines(e, index(path, i))
		}
	}
}
