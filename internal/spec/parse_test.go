package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// minimal is the least a spec needs to parse without problems.
const minimal = "name: t\nworkload: {name: tpcb}\n"

func mustParse(t *testing.T, src string) *Spec {
	t.Helper()
	s, problems := Parse([]byte(src))
	if len(problems) > 0 {
		t.Fatalf("Parse: unexpected problems:\n%s", joinProblems(problems))
	}
	return s
}

func joinProblems(problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		b.WriteString("  " + p.Error() + "\n")
	}
	return b.String()
}

func TestParseDefaults(t *testing.T) {
	s := mustParse(t, minimal)
	want := &Spec{
		Name:     "t",
		Seed:     1,
		Repeat:   1,
		Progress: Duration(5 * time.Second),
		SUT: SUT{Engine: Strings{"postgres"}, Provider: "local", Version: "", Transport: "tcp",
			Storage:   Storage{Kind: Strings{"disk"}, Volume: Strings{"shared"}},
			Resources: Resources{CPUPolicy: Strings{"none"}}, Replicas: Ints{0}, Replication: "async"},
		Tenancy: Tenancy{Model: Strings{"schema"}, Tenants: Ints{1}},
		Workload: Workload{Name: "tpcb", Scale: Floats{1}, Clients: Ints{1},
			Duration: Duration(60 * time.Second), Warmup: 0, Provision: "clone", Load: LoadShape{Shape: "closed"}, Reads: "primary"},
		Cost: Cost{CPUVCoreHour: 0.1847, MemoryGBHour: 0.0095}, // Zhang et al. 2025, Table III
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", s, want)
	}
}

// docs/spec.md promises YAML's underscores in numbers.
func TestParseUnderscoreNumber(t *testing.T) {
	if s := mustParse(t, minimal+"seed: 1_000\n"); s.Seed != 1000 {
		t.Errorf("1_000 should read as 1000, got %d", s.Seed)
	}
}

func TestParseNullKeepsDefault(t *testing.T) {
	s := mustParse(t, minimal+"seed:\nrepeat: ~\nsut:\n  engine:\ntenancy:\nprogress: null\n")
	if s.Seed != 1 || s.Repeat != 1 || s.SUT.Engine[0] != "postgres" || s.Progress.D() != 5*time.Second {
		t.Errorf("null values should keep the defaults, got %+v", s)
	}
}

func TestParseValues(t *testing.T) {
	s := mustParse(t, `
name: full-1.x
seed: -7
repeat: 3
progress: 10s
sut:
  engine: postgres
  provider: local
  version: 16
  transport: unix
  settings:
    shared_buffers: [128MB, 1GB]
    fsync: off
    random_page_cost: 1.1
    pg_stat_statements.max: 1000
  resources: {cpus: 1.5, memory: 2GiB, divide: true}
tenancy:
  model: [schema, database, instance]
  tenants: [1, 2, 4]
workload:
  name: tpcb
  scale: [0.5, 2]
  clients: 8
  duration: 2m
  warmup: 10s
  options:
    script: select-only
cost: {cpu_vcore_hour: 0.2, memory_gb_hour: 0}
`)
	want := &Spec{
		Name: "full-1.x", Seed: -7, Repeat: 3, Progress: Duration(10 * time.Second),
		SUT: SUT{
			Engine: Strings{"postgres"}, Provider: "local", Version: "16", Transport: "unix",
			Settings: map[string]Values{
				"shared_buffers":         {"128MB", "1GB"},
				"fsync":                  {"off"},
				"random_page_cost":       {"1.1"},
				"pg_stat_statements.max": {"1000"},
			},
			Resources: Resources{CPUs: 1.5, Memory: 2 << 30, Divide: true, CPUPolicy: Strings{"none"}},
			Storage:   Storage{Kind: Strings{"disk"}, Volume: Strings{"shared"}},
			Replicas:  Ints{0}, Replication: "async",
		},
		Tenancy: Tenancy{Model: Strings{"schema", "database", "instance"}, Tenants: Ints{1, 2, 4}},
		Workload: Workload{Name: "tpcb", Scale: Floats{0.5, 2}, Clients: Ints{8},
			Duration: Duration(2 * time.Minute), Warmup: Duration(10 * time.Second), Provision: "clone", Load: LoadShape{Shape: "closed"},
			Reads: "primary"},
		Cost: Cost{CPUVCoreHour: 0.2, MemoryGBHour: 0},
	}
	opts := s.Workload.Options
	s.Workload.Options = yaml.Node{}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
	var o struct{ Script string }
	if err := opts.Decode(&o); err != nil || o.Script != "select-only" {
		t.Errorf("options: got %+v, %v", o, err)
	}
}

// TestParseProblems checks each kind of mistake: its path, the value shown
// and (part of) what is allowed. Each source holds one mistake.
func TestParseProblems(t *testing.T) {
	for _, c := range []struct {
		name, src           string
		path, value, allows string
		line                int
	}{
		{"syntax", "name: t\n  bad: [", "(root)", "", "not valid YAML", 0},
		{"tab", "name: t\nsut:\n\tengine: postgres\n", "(root)", "", "indented with spaces, not tabs", 3},
		{"two documents", minimal + "---\nname: u\n", "(root)", "", "one YAML document", 0},
		{"root not a mapping", "- a\n- b\n", "(root)", "", "must be a mapping with the keys name, seed", 1},
		{"unknown top key", minimal + "colour: red\n", "colour", "", "unknown key; allowed here: name, seed", 3},
		{"typo with suggestion", minimal + "reapet: 2\n", "reapet", "", "did you mean repeat?", 3},
		{"unknown nested key", minimal + "sut: {resources: {disk: 1GB}}\n", "sut.resources.disk", "", "allowed here: cpus, memory, divide", 3},
		{"unknown workload key", "name: t\nworkload: {name: tpcb, client: 2}\n", "workload.client", "", "did you mean clients?", 2},
		{"quoted odd key", minimal + "\"a b\": 1\n", `["a b"]`, "", "unknown key", 3},
		{"duplicate key", minimal + "seed: 1\nseed: 2\n", "seed", "", "written twice (first on line 3)", 4},
		{"merge key", minimal + "x: &x {seed: 1}\n<<: *x\n", `["<<"]`, "", "merge keys (<<) are not supported", 4},
		{"section not a mapping", minimal + "sut: postgres\n", "sut", "postgres", "must be a mapping", 3},
		{"name missing", "workload: {name: tpcb}\n", "name", "", "required", 0},
		{"name not a directory", "name: a/b\n", "name", "a/b", "usable as a directory name", 1},
		{"name dot dot", "name: ..\n", "name", "..", "starting with a letter or digit", 1},
		{"name a list", "name: [a]\n", "name", "", "must be a single value, not a list", 1},
		{"seed not an integer", minimal + "seed: 1.5\n", "seed", "1.5", "must be a whole number", 3},
		{"seed a string", minimal + "seed: \"1\"\n", "seed", "1", "must be a whole number, written without quotes", 3},
		{"seed too large", minimal + "seed: 99999999999999999999\n", "seed", "99999999999999999999", "whole number", 3},
		{"repeat zero", minimal + "repeat: 0\n", "repeat", "0", "at least 1", 3},
		{"progress short", minimal + "progress: 500ms\n", "progress", "500ms", "at least 1s", 3},
		{"progress no unit", minimal + "progress: 5\n", "progress", "5", "must be a duration like 30s", 3},
		{"transport", minimal + "sut: {transport: udp}\n", "sut.transport", "udp", "must be tcp or unix", 3},
		{"version", minimal + "sut: {version: latest}\n", "sut.version", "latest", "major version like 16", 3},
		{"version path", minimal + "sut: {version: ../../bin}\n", "sut.version", "../../bin", "major version", 3},
		{"cpus negative", minimal + "sut: {resources: {cpus: -1}}\n", "sut.resources.cpus", "-1", "0 or more (0 = unlimited)", 0},
		{"price negative", minimal + "cost: {cpu_vcore_hour: -0.1}\n", "cost.cpu_vcore_hour", "-0.1", "0 or more (Zhang et al. 2025, Table III", 0},
		{"price infinite", minimal + "cost: {memory_gb_hour: .inf}\n", "cost.memory_gb_hour", "+Inf", "dollars per unit and hour", 0},
		{"price text", minimal + "cost: {memory_gb_hour: cheap}\n", "cost.memory_gb_hour", "cheap", "must be a number", 0},
		{"price unknown", minimal + "cost: {storage_gb_hour: 1}\n", "cost.storage_gb_hour", "", "allowed here: cpu_vcore_hour, memory_gb_hour", 0},
		{"cpus infinite", minimal + "sut: {resources: {cpus: .inf}}\n", "sut.resources.cpus", "+Inf", "0 or more", 0},
		{"cpus text", minimal + "sut: {resources: {cpus: two}}\n", "sut.resources.cpus", "two", "must be a number", 3},
		{"memory negative", minimal + "sut: {resources: {memory: -1GiB}}\n", "sut.resources.memory", "-1GiB", "0 (unlimited) or a size", 0},
		{"memory unit", minimal + "sut: {resources: {memory: 2gb}}\n", "sut.resources.memory", "2gb", `unknown unit "gb"`, 3},
		{"divide not bool", minimal + "sut: {resources: {divide: yes}}\n", "sut.resources.divide", "yes", "true or false", 3},
		{"settings not a mapping", minimal + "sut: {settings: [a]}\n", "sut.settings", "", "mapping of PostgreSQL parameter names", 3},
		{"setting null", minimal + "sut: {settings: {work_mem: }}\n", "sut.settings.work_mem", "", "needs a value", 3},
		{"setting empty", minimal + "sut: {settings: {work_mem: \"\"}}\n", "sut.settings.work_mem", `""`, "must not be empty", 3},
		{"setting newline", minimal + "sut: {settings: {work_mem: \"4MB\\nport = 1\"}}\n", "sut.settings.work_mem", `"4MB\nport = 1"`, "one line", 3},
		{"setting NUL", minimal + "sut: {settings: {work_mem: \"4\\0\"}}\n", "sut.settings.work_mem", `"4\x00"`, "without NUL", 3},
		{"setting mapping", minimal + "sut: {settings: {work_mem: {a: 1}}}\n", "sut.settings.work_mem", "", "a value or a list of values, not a mapping", 3},
		{"setting duplicate", minimal + "sut: {settings: {work_mem: [4MB, 8MB, 4MB]}}\n", "sut.settings.work_mem[2]", "4MB", "already given as sut.settings.work_mem[0]", 3},
		{"setting empty list", minimal + "sut: {settings: {work_mem: []}}\n", "sut.settings.work_mem", "", "must not be an empty list", 3},
		{"provision unknown", "name: t\nworkload: {name: tpcc, provision: copy}\n", "workload.provision", "copy", "must be load or clone", 2},
		{"model duplicate", minimal + "tenancy: {model: [schema, database, schema]}\n", "tenancy.model[2]", "schema", "already given as tenancy.model[0]", 3},
		{"model empty", minimal + "tenancy: {model: []}\n", "tenancy.model", "", "must not be an empty list", 3},
		{"model nested list", minimal + "tenancy: {model: [[schema]]}\n", "tenancy.model[0]", "", "single value, not a list", 3},
		{"model null element", minimal + "tenancy: {model: [schema, ~]}\n", "tenancy.model[1]", "", "must have a value", 3},
		{"tenants zero", minimal + "tenancy: {tenants: 0}\n", "tenancy.tenants", "0", "must be 1..10000", 3},
		{"tenants big", minimal + "tenancy: {tenants: [1, 10001]}\n", "tenancy.tenants[1]", "10001", "must be 1..10000", 3},
		{"tenants float", minimal + "tenancy: {tenants: [1, 2.5]}\n", "tenancy.tenants[1]", "2.5", "whole number", 3},
		{"tenants mapping", minimal + "tenancy: {tenants: {a: 1}}\n", "tenancy.tenants", "", "value or a list of values, not a mapping", 3},
		{"scale zero", "name: t\nworkload: {name: tpcb, scale: 0}\n", "workload.scale", "0", "greater than 0", 2},
		{"scale nan", "name: t\nworkload: {name: tpcb, scale: [1, .nan]}\n", "workload.scale[1]", "NaN", "greater than 0", 2},
		{"scale text", "name: t\nworkload: {name: tpcb, scale: big}\n", "workload.scale", "big", "must be a number", 2},
		{"clients", "name: t\nworkload: {name: tpcb, clients: [1, 10001]}\n", "workload.clients[1]", "10001", "1..10000", 2},
		{"clients duplicate", "name: t\nworkload: {name: tpcb, clients: [2, 4, 2]}\n", "workload.clients[2]", "2", "already given as workload.clients[0]", 2},
		{"duration zero", "name: t\nworkload: {name: tpcb, duration: 0s}\n", "workload.duration", "0s", "longer than 0s", 2},
		{"duration words", "name: t\nworkload: {name: tpcb, duration: a minute}\n", "workload.duration", "a minute", "duration like 30s", 2},
		{"warmup negative", "name: t\nworkload: {name: tpcb, warmup: -5s}\n", "workload.warmup", "-5s", "0s or longer", 2},
		{"options alias outside", "name: t\nx: &a 1\nworkload: {name: tpcb, options: {k: *a}}\n", "workload.options", "*a", "anchor inside it", 3},
		{"kubernetes storage without a class", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, storage: {size: 1GiB}}\n", "sut.kubernetes.storage.class", "", "required: the cluster's storage class", 0},
		{"kubernetes storage class", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, storage: {class: Fast_SSD}}\n", "sut.kubernetes.storage.class", "Fast_SSD", "must be a storage class's name", 4},
		{"kubernetes storage size", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, storage: {class: fast, size: 0}}\n", "sut.kubernetes.storage.size", "0", "must be more than 0", 4},
		{"node selector key", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, node_selector: {\"a b\": x}}\n", `sut.kubernetes.node_selector["a b"]`, "", "must be a label key", 4},
		{"node selector value", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, node_selector: {disk: \"n v\"}}\n", "sut.kubernetes.node_selector.disk", "n v", "must be a label value", 4},
		{"kubernetes access", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, access: nodeports}\n", "sut.kubernetes.access", "nodeports", "must be one of pod-ip, nodeport, port-forward; did you mean nodeport?", 4},
		{"kubernetes spread", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, spread: yes}\n", "sut.kubernetes.spread", "yes", "true or false", 4},
		{"node selector list", minimal + "sut:\n  kubernetes: {kubeconfig_env: K, node_selector: [a]}\n", "sut.kubernetes.node_selector", "", "must be a mapping of node label keys to values", 4},
		{"plan too big", minimal + "repeat: 1001\ntenancy: {tenants: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n", "(plan)", "10010 runs", "at most 10000 runs are allowed (tenants 10 x repeat 1001)", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := Parse([]byte(c.src))
			if len(problems) == 0 {
				t.Fatalf("no problem found")
			}
			// Two sources need an unknown key "x" to hold an anchor; that
			// problem is expected too.
			var p *Problem
			for i := range problems {
				if problems[i].Path == c.path {
					p = &problems[i]
					break
				}
			}
			if p == nil {
				t.Fatalf("no problem at %s; got:\n%s", c.path, joinProblems(problems))
			}
			if p.Value != c.value || !strings.Contains(p.Allowed, c.allows) || (c.line != 0 && p.Line != c.line) {
				t.Errorf("got  %q (line %d, value %q)\nwant value %q, allowed containing %q, line %d", p.Error(), p.Line, p.Value, c.value, c.allows, c.line)
			}
			for _, q := range problems {
				if q.Path != c.path && q.Path != "x" {
					t.Errorf("unexpected extra problem: %s", q.Error())
				}
			}
		})
	}
}

// TestParseAllAtOnce checks that mistakes do not hide one another: five
// mistakes of different kinds (type, range, unknown key, duplicate, a bad
// element among good ones) give exactly five problems, in file order.
func TestParseAllAtOnce(t *testing.T) {
	src := `name: t
seed: one
sut:
  transport: udp
tenancy:
  tenants: [2, x, 0]
  clients: 4
workload:
  name: tpcb
  clients: [1, 1]
`
	_, problems := Parse([]byte(src))
	want := []string{"seed", "sut.transport", "tenancy.tenants[1]", "tenancy.tenants[2]", "tenancy.clients", "workload.clients[1]"}
	// tenants [2, x, 0] holds two mistakes, so there are six problems for
	// the five lines with mistakes.
	var got []string
	for _, p := range problems {
		got = append(got, p.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths:\n got %v\nwant %v\n%s", got, want, joinProblems(problems))
	}
	for _, p := range problems {
		if p.Line == 0 {
			t.Errorf("%s: no line", p.Error())
		}
	}
}

func TestParseFiveMistakesFiveProblems(t *testing.T) {
	src := `name: t
repeat: 0
sut: {transport: udp, version: "1 2"}
tenancy: {model: [schema, schema]}
workload: {name: tpcb, duration: 1 minute}
`
	_, problems := Parse([]byte(src))
	if len(problems) != 5 {
		t.Errorf("got %d problems, want 5:\n%s", len(problems), joinProblems(problems))
	}
}

// A value that cannot be read is reported once, not again by the
// validation of the default that stands in for it.
func TestParseNoDoubleReport(t *testing.T) {
	for _, src := range []string{
		"name: [a]\n",
		"name: t\nworkload: {clients: [x]}\n",
		"name: t\nsut: {settings: {Bad: [1, {}]}}\n",
	} {
		_, problems := Parse([]byte(src))
		paths := map[string]int{}
		for _, p := range problems {
			paths[p.Path]++
		}
		for path, n := range paths {
			if n > 1 && path != "sut.settings.Bad" {
				t.Errorf("%q: %s reported %d times:\n%s", src, path, n, joinProblems(problems))
			}
		}
	}
}

func TestParseScalarListPath(t *testing.T) {
	_, problems := Parse([]byte("name: t\nworkload:\n  name: tpcb\n  clients: 0\n"))
	if len(problems) != 1 || problems[0].Path != "workload.clients" || problems[0].Line != 4 {
		t.Errorf("a list written as one value is named without an index:\n%s", joinProblems(problems))
	}
}

func TestParseOptionsKeptIntact(t *testing.T) {
	src := `name: t
workload:
  name: tpcb
  options:
    script: [tpcb-like, select-only]  # why
    weights: {tpcb-like: 1, select-only: 9}
    anything: &a {nested: [1, 2]}
    again: *a
    unknown_to_spec: true
`
	s := mustParse(t, src)
	o := s.Workload.Options
	if o.Kind != yaml.MappingNode || len(o.Content) != 10 {
		t.Fatalf("options not kept: %+v", o)
	}
	var got map[string]any
	if err := o.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["unknown_to_spec"] != true || got["again"] == nil {
		t.Errorf("options lost content: %v", got)
	}
	if s := mustParse(t, minimal); !s.Workload.Options.IsZero() {
		t.Errorf("no options should leave a zero node, got %+v", s.Workload.Options)
	}
	if s := mustParse(t, "name: t\nworkload: {name: tpcb, options: ~}\n"); !s.Workload.Options.IsZero() {
		t.Errorf("null options should leave a zero node, got %+v", s.Workload.Options)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "\n", "# nothing\n", "---\n"} {
		s, problems := Parse([]byte(src))
		if s == nil || len(problems) != 1 || problems[0].Path != "name" {
			t.Errorf("%q: want only name required, got %v\n%s", src, s, joinProblems(problems))
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "my-exp.v2.yaml")
	if err := os.WriteFile(path, []byte("workload: {name: tpcb}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, problems := Load(path)
	if len(problems) > 0 || s.Name != "my-exp.v2" {
		t.Errorf("name from file: got %q, %v", s.Name, problems)
	}

	// A written name wins over the file's.
	if err := os.WriteFile(path, []byte("name: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := Load(path); s.Name != "other" {
		t.Errorf("written name: got %q", s.Name)
	}

	// A file name that is no directory name: say where the name came from.
	odd := filepath.Join(dir, "my exp.yaml")
	if err := os.WriteFile(odd, []byte("workload: {name: tpcb}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, problems := Load(odd); len(problems) != 1 || problems[0].Path != "name" || !strings.Contains(problems[0].Allowed, "taken from the file name") {
		t.Errorf("name from an odd file name: got %v", problems)
	}

	// An explicit empty name is a mistake, not a request for the default.
	if err := os.WriteFile(path, []byte("name: \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, problems := Load(path); len(problems) != 1 || problems[0].Path != "name" {
		t.Errorf("empty name: got %v", problems)
	}

	missing := filepath.Join(dir, "nope.yaml")
	s, problems = Load(missing)
	if s != nil || len(problems) != 1 || problems[0].Path != missing || !strings.Contains(problems[0].Allowed, "no such file") {
		t.Errorf("missing file: got %v %v", s, problems)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, problems := Load(big); len(problems) != 1 || !strings.Contains(problems[0].Allowed, "larger than") {
		t.Errorf("big file: got %v", problems)
	}
}

func TestProblemError(t *testing.T) {
	for _, c := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.b", Value: "x", Allowed: "must be y", Line: 3}, "a.b (line 3): x: must be y"},
		{Problem{Path: "a.b", Allowed: "required"}, "a.b: required"},
	} {
		if got := c.p.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	paths := []string{"a[10]", "a[2]", "a", "a.b", "a[1]"}
	want := []string{"a", "a.b", "a[1]", "a[2]", "a[10]"}
	for i := range paths {
		for j := range paths {
			if naturalLess(paths[i], paths[j]) && naturalLess(paths[j], paths[i]) {
				t.Fatalf("not an order: %s %s", paths[i], paths[j])
			}
		}
	}
	for i := 0; i+1 < len(want); i++ {
		if !naturalLess(want[i], want[i+1]) {
			t.Errorf("%s should come before %s", want[i], want[i+1])
		}
	}
}
