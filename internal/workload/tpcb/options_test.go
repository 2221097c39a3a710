package tpcb

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

func TestParseValid(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      Options
	}{
		{"absent", "", DefaultOptions()},
		{"null", "~", DefaultOptions()},
		{"empty mapping", "{}", DefaultOptions()},
		{"all keys", "scripts: {select-only: 3, tpcb-like: 1, simple-update: 0}\nfillfactor: 90\nforeign_keys: true",
			Options{Scripts: map[string]int{SelectOnly: 3, TPCBLike: 1, SimpleUpdate: 0}, Fillfactor: 90, ForeignKeys: true}},
		{"bounds", "fillfactor: 10\nscripts: {select-only: 2147483647}",
			Options{Scripts: map[string]int{SelectOnly: 2147483647}, Fillfactor: 10}},
		{"alias", "fillfactor: &f 50\nscripts: {select-only: *f}",
			Options{Scripts: map[string]int{SelectOnly: 50}, Fillfactor: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Parse(wltest.OptionsNode(t, tc.src))
			if problems != nil {
				t.Fatalf("problems: %v", problems)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if got, problems := Parse(nil); problems != nil || !reflect.DeepEqual(got, DefaultOptions()) {
		t.Fatalf("Parse(nil) = %+v, %v", got, problems)
	}
}

func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []spec.Problem // Allowed is matched by a substring
	}{
		{"not a mapping", "[1, 2]", []spec.Problem{{Path: "workload.options", Allowed: "must be a mapping with the keys scripts, fillfactor, foreign_keys, not a list"}}},
		{"unknown key", "fillfactr: 90", []spec.Problem{{Path: "workload.options.fillfactr", Allowed: "unknown key; did you mean fillfactor? allowed here: scripts, fillfactor, foreign_keys"}}},
		{"duplicate key", "fillfactor: 90\nfillfactor: 80", []spec.Problem{{Path: "workload.options.fillfactor", Allowed: "written twice (first on line 1)"}}},
		{"fillfactor low", "fillfactor: 9", []spec.Problem{{Path: "workload.options.fillfactor", Value: "9", Allowed: "from 10 to 100"}}},
		{"fillfactor high", "fillfactor: 101", []spec.Problem{{Path: "workload.options.fillfactor", Value: "101", Allowed: "from 10 to 100"}}},
		{"fillfactor not int", "fillfactor: 90.5", []spec.Problem{{Path: "workload.options.fillfactor", Value: "90.5", Allowed: "integer"}}},
		{"fillfactor string", "fillfactor: '90'", []spec.Problem{{Path: "workload.options.fillfactor", Value: "90", Allowed: "integer from 10 to 100 (pgbench -F), written without quotes"}}},
		{"foreign_keys not bool", "foreign_keys: yes please", []spec.Problem{{Path: "workload.options.foreign_keys", Value: "yes please", Allowed: "true or false"}}},
		{"scripts not mapping", "scripts: tpcb-like", []spec.Problem{{Path: "workload.options.scripts", Value: "tpcb-like", Allowed: "must be a mapping with the keys tpcb-like, simple-update, select-only"}}},
		{"scripts empty", "scripts: {}", []spec.Problem{{Path: "workload.options.scripts", Allowed: "at least one weight must be greater than 0"}}},
		{"unknown script", "scripts: {tpcc: 1}", []spec.Problem{{Path: "workload.options.scripts.tpcc", Allowed: "unknown key; allowed here: tpcb-like, simple-update, select-only"}}},
		{"negative weight", "scripts: {tpcb-like: -1}", []spec.Problem{{Path: "workload.options.scripts.tpcb-like", Value: "-1", Allowed: "from 0 to 2147483647"}}},
		{"weight too big", "scripts: {tpcb-like: 2147483648}", []spec.Problem{{Path: "workload.options.scripts.tpcb-like", Value: "2147483648", Allowed: "from 0 to 2147483647"}}},
		{"weight not int", "scripts: {tpcb-like: heavy}", []spec.Problem{{Path: "workload.options.scripts.tpcb-like", Value: "heavy", Allowed: "integer weight"}}},
		{"duplicate script", "scripts: {tpcb-like: 1, tpcb-like: 2}", []spec.Problem{{Path: "workload.options.scripts.tpcb-like", Allowed: "written twice"}}},
		{"all weights zero", "scripts: {tpcb-like: 0, select-only: 0}", []spec.Problem{{Path: "workload.options.scripts", Allowed: "at least one weight must be greater than 0"}}},
		{"all at once", "fillfactor: 5\nforeign_keys: 1\nscripts: {bogus: 1, select-only: x}\nextra: true",
			[]spec.Problem{
				{Path: "workload.options.fillfactor", Value: "5", Allowed: "from 10 to 100"},
				{Path: "workload.options.foreign_keys", Value: "1", Allowed: "true or false"},
				{Path: "workload.options.scripts.bogus", Allowed: "unknown key"},
				{Path: "workload.options.scripts.select-only", Value: "x", Allowed: "integer weight"},
				{Path: "workload.options.extra", Allowed: "unknown key"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := wltest.OptionsNode(t, tc.src)
			before, _ := yaml.Marshal(node)
			opts, problems := Parse(node)
			if opts != nil {
				t.Errorf("options %+v returned with problems", opts)
			}
			if len(problems) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d %v", len(problems), problems, len(tc.want), tc.want)
			}
			for i, p := range problems {
				w := tc.want[i]
				if p.Path != w.Path || p.Value != w.Value || !strings.Contains(p.Allowed, w.Allowed) {
					t.Errorf("problem %d = %#v, want path %q value %q allowed containing %q", i, p, w.Path, w.Value, w.Allowed)
				}
			}
			if after, _ := yaml.Marshal(node); string(after) != string(before) {
				t.Errorf("Parse changed the node: %s -> %s", before, after)
			}
		})
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		opts  any
		err   string
		names []string
	}{
		{1, nil, "", []string{TPCBLike}},
		{3, Options{Scripts: map[string]int{SelectOnly: 1, SimpleUpdate: 2, TPCBLike: 0}, Fillfactor: 100}, "", []string{SimpleUpdate, SelectOnly}},
		{1.5, nil, "whole number", nil},
		{0, nil, "whole number", nil},
		{-2, nil, "whole number", nil},
		{1e12, nil, "whole number", nil},
		{1, "x", "options of type", nil},
		{1, Options{Scripts: map[string]int{TPCBLike: 0}}, "no script", nil},
	} {
		w, err := New(tc.scale, tc.opts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("New(%v, %v) error %v, want %q", tc.scale, tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("New(%v, %v): %v", tc.scale, tc.opts, err)
		}
		if got := w.TxnNames(); !reflect.DeepEqual(got, tc.names) {
			t.Errorf("TxnNames = %v, want %v", got, tc.names)
		}
		if got, want := w.Rows(), int64(tc.scale)*100011; got != want {
			t.Errorf("Rows = %d, want %d", got, want)
		}
	}
}

func TestFactory(t *testing.T) {
	f := Factory()
	if f.Name != "tpcb" || f.Parse == nil || f.New == nil {
		t.Fatalf("Factory() = %+v", f)
	}
	opts, problems := f.Parse(wltest.OptionsNode(t, "scripts: {select-only: 1}"))
	if problems != nil {
		t.Fatal(problems)
	}
	r := workload.Registry{}
	r.Add(f)
	problems = r.Check(&spec.Workload{Name: "tpcb", Scale: spec.Floats{1, 2.5, 0}})
	if len(problems) != 1 || problems[0].Path != "workload.scale[1]" || problems[0].Value != "2.5" ||
		!strings.Contains(problems[0].Allowed, "whole number") {
		t.Fatalf("scale problems %v, want one for workload.scale[1]", problems)
	}
	w, err := f.New(2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.TxnNames(); !reflect.DeepEqual(got, []string{SelectOnly}) {
		t.Fatalf("TxnNames = %v", got)
	}
}
