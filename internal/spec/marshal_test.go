package spec

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// roundTrip marshals s, parses the result and checks it is the same spec,
// and that marshalling again gives the same text.
func roundTrip(t *testing.T, s *Spec) []byte {
	t.Helper()
	out, err := Marshal(s)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	back, problems := Parse(out)
	if len(problems) > 0 {
		t.Fatalf("Parse(Marshal(s)): problems:\n%s\n%s", joinProblems(problems), out)
	}
	again, err := Marshal(back)
	if err != nil {
		t.Fatalf("Marshal again: %v", err)
	}
	if string(again) != string(out) {
		t.Errorf("marshal not stable:\n%s\n---\n%s", out, again)
	}
	a, b := *s, *back
	a.Workload.Options, b.Workload.Options = yaml.Node{}, yaml.Node{}
	if len(a.SUT.Settings) == 0 && len(b.SUT.Settings) == 0 {
		a.SUT.Settings, b.SUT.Settings = nil, nil
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("round trip changed the spec:\n got %+v\nwant %+v", b, a)
	}
	return out
}

func TestMarshalRoundTrip(t *testing.T) {
	for _, src := range []string{
		minimal,
		`name: full
seed: -3
repeat: 2
progress: 1m30s
sut:
  version: "16.4"
  transport: unix
  settings:
    shared_buffers: [128MB, 1GB]
    fsync: "off"
    synchronous_commit: "false"
    search_path: '"$user", public'
    max_connections: 200
    application_name: "null"
    work_mem: "~"
    log_line_prefix: "%m [%p] "
    random_page_cost: 1.10
  resources: {cpus: 0.5, memory: 800MB, divide: true}
tenancy: {model: [schema, database, instance], tenants: [1, 8]}
workload:
  name: tpcb
  scale: [0.1, 10]
  clients: [1, 16]
  duration: 2h
  warmup: 250ms
  options:
    script: select-only   # why select-only
    weights: &w {a: 1}
    again: *w
`,
	} {
		roundTrip(t, mustParse(t, src))
	}
}

func TestMarshalResolved(t *testing.T) {
	out := string(roundTrip(t, mustParse(t, minimal)))
	want := `name: t
seed: 1
repeat: 1
progress: 5s
sut:
  engine: postgres
  provider: local
  version: ""
  transport: tcp
  resources:
    cpus: 0
    memory: 0
    divide: false
    cpu_policy: none
  settings: {}
  storage:
    kind: disk
    volume: shared
tenancy:
  model: schema
  tenants: 1
workload:
  name: tpcb
  scale: 1
  clients: 1
  duration: 1m
  warmup: 0s
  provision: clone
  load:
    shape: closed
cost:
  cpu_vcore_hour: 0.1847
  memory_gb_hour: 0.0095
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestMarshalKeepsOptions(t *testing.T) {
	s := mustParse(t, "name: t\nworkload:\n  name: tpcb\n  options:\n    script: select-only # kept\n")
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "  options:\n    script: select-only # kept\n") {
		t.Errorf("options not written as read:\n%s", out)
	}
}

func TestMarshalNil(t *testing.T) {
	if _, err := Marshal(nil); err == nil {
		t.Error("want an error")
	}
}

// The types also decode through plain yaml.v3, for other packages that
// embed them in their own files.
func TestUnmarshalYAML(t *testing.T) {
	var v struct {
		S Strings  `yaml:"s"`
		I Ints     `yaml:"i"`
		F Floats   `yaml:"f"`
		V Values   `yaml:"v"`
		D Duration `yaml:"d"`
		B ByteSize `yaml:"b"`
	}
	src := "s: a\ni: [1, 2]\nf: 0.5\nv: [on, 128MB]\nd: 2m\nb: 1GiB\n"
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.S, Strings{"a"}) || !reflect.DeepEqual(v.I, Ints{1, 2}) || !reflect.DeepEqual(v.F, Floats{0.5}) ||
		!reflect.DeepEqual(v.V, Values{"on", "128MB"}) || v.D.String() != "2m" || v.B != 1<<30 {
		t.Errorf("got %+v", v)
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "s: a\ni: [1, 2]\nf: 0.5\nv: [on, 128MB]\nd: 2m\nb: 1GiB\n"; string(out) != want {
		t.Errorf("Marshal:\n%s\nwant:\n%s", out, want)
	}
	for _, bad := range []string{"i: [1, x]", "i: {a: 1}", "f: x", "d: 5", "b: 1gb", "s: [[a]]"} {
		if err := yaml.Unmarshal([]byte(bad), &v); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: got %v, want an error with its line", bad, err)
		}
	}
}
