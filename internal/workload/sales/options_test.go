package sales

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
		{"preset", "preset: read-only", Options{Preset: ReadOnly, Distribution: Uniform}},
		{"mix", "mix: {new_orderline: 1, orderline_deletion: 2.5, order_status: 0}",
			Options{Mix: map[string]float64{NewOrderline: 1, OrderlineDeletion: 2.5, OrderStatus: 0}, Distribution: Uniform}},
		{"latest default k", "distribution: latest", Options{Preset: ReadWrite, Distribution: Latest, K: DefaultK}},
		{"all keys", "preset: write-only\ndistribution: latest\nk: 5\nseed: -3",
			Options{Preset: WriteOnly, Distribution: Latest, K: 5, Seed: -3}},
		{"alias", "k: &k 7\ndistribution: latest\nmix: {order_status: *k}",
			Options{Mix: map[string]float64{OrderStatus: 7}, Distribution: Latest, K: 7}},
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
		{"not a mapping", "[1, 2]", []spec.Problem{{Path: "workload.options", Allowed: "mapping with the keys preset, mix, distribution, k, seed, not a list"}}},
		{"unknown key", "ratio: 3", []spec.Problem{{Path: "workload.options.ratio", Allowed: "unknown key; allowed here: preset, mix, distribution, k, seed"}}},
		{"duplicate key", "seed: 1\nseed: 2", []spec.Problem{{Path: "workload.options.seed", Allowed: "written twice (first on line 1)"}}},
		{"unknown preset", "preset: mixed", []spec.Problem{{Path: "workload.options.preset", Value: "mixed", Allowed: "read-only, read-write, write-only"}}},
		{"preset not scalar", "preset: [read-only]", []spec.Problem{{Path: "workload.options.preset", Allowed: "must be a single value, not a list"}}},
		{"mix and preset", "preset: read-only\nmix: {order_status: 1}", []spec.Problem{{Path: "workload.options.preset", Value: "read-only", Allowed: "either mix or preset"}}},
		{"mix not mapping", "mix: read-write", []spec.Problem{{Path: "workload.options.mix", Value: "read-write", Allowed: "must be a mapping with the keys new_orderline, order_payment, order_status, orderline_deletion"}}},
		{"mix empty", "mix: {}", []spec.Problem{{Path: "workload.options.mix", Allowed: "at least one weight must be greater than 0 (and their sum finite); the transactions are new_orderline, order_payment, order_status, orderline_deletion"}}},
		{"unknown transaction", "mix: {t1: 1}", []spec.Problem{{Path: "workload.options.mix.t1", Allowed: "unknown key; allowed here: new_orderline, order_payment, order_status, orderline_deletion"}}},
		{"negative weight", "mix: {order_status: -1}", []spec.Problem{{Path: "workload.options.mix.order_status", Value: "-1", Allowed: "number >= 0"}}},
		{"infinite weight", "mix: {order_status: .inf}", []spec.Problem{{Path: "workload.options.mix.order_status", Value: ".inf", Allowed: "number >= 0"}}},
		{"nan weight", "mix: {order_status: .nan}", []spec.Problem{{Path: "workload.options.mix.order_status", Value: ".nan", Allowed: "number >= 0"}}},
		{"string weight", "mix: {order_status: '80'}", []spec.Problem{{Path: "workload.options.mix.order_status", Value: "80", Allowed: "number >= 0 (a weight: ratios such as 15 : 5 : 80 or percentages), written without quotes"}}},
		{"duplicate transaction", "mix: {order_status: 1, order_status: 2}", []spec.Problem{{Path: "workload.options.mix.order_status", Allowed: "written twice"}}},
		{"all zero", "mix: {order_status: 0, new_orderline: 0.0}", []spec.Problem{{Path: "workload.options.mix", Allowed: "at least one weight must be greater than 0"}}},
		{"unknown distribution", "distribution: zipf", []spec.Problem{{Path: "workload.options.distribution", Value: "zipf", Allowed: "uniform or latest"}}},
		{"latest-10 spelled as one", "distribution: latest-10", []spec.Problem{{Path: "workload.options.distribution", Value: "latest-10", Allowed: "uniform or latest (with k)"}}},
		{"k zero", "distribution: latest\nk: 0", []spec.Problem{{Path: "workload.options.k", Value: "0", Allowed: "integer from 1 to 2147483647"}}},
		{"k too big", "distribution: latest\nk: 2147483648", []spec.Problem{{Path: "workload.options.k", Value: "2147483648", Allowed: "integer from 1"}}},
		{"k fractional", "distribution: latest\nk: 2.5", []spec.Problem{{Path: "workload.options.k", Value: "2.5", Allowed: "integer"}}},
		{"k without latest", "k: 10", []spec.Problem{{Path: "workload.options.k", Value: "10", Allowed: "distribution: latest only"}}},
		{"k with uniform", "distribution: uniform\nk: 10", []spec.Problem{{Path: "workload.options.k", Value: "10", Allowed: "latest only"}}},
		{"seed not int", "seed: abc", []spec.Problem{{Path: "workload.options.seed", Value: "abc", Allowed: "integer"}}},
		{"all at once", "preset: rw\nmix: {bogus: 1, order_payment: x}\ndistribution: skewed\nk: -1\nseed: 1.5\nextra: true",
			[]spec.Problem{
				{Path: "workload.options.preset", Value: "rw", Allowed: "one of"},
				{Path: "workload.options.mix.bogus", Allowed: "unknown key; allowed here: new_orderline"},
				{Path: "workload.options.mix.order_payment", Value: "x", Allowed: "number >= 0"},
				{Path: "workload.options.distribution", Value: "skewed", Allowed: "uniform or latest"},
				{Path: "workload.options.k", Value: "-1", Allowed: "integer from 1"},
				{Path: "workload.options.seed", Value: "1.5", Allowed: "integer"},
				{Path: "workload.options.extra", Allowed: "unknown key"},
				{Path: "workload.options.preset", Value: "rw", Allowed: "either mix or preset"},
				{Path: "workload.options.k", Value: "-1", Allowed: "latest only"},
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

func TestCheckScale(t *testing.T) {
	for _, tc := range []struct {
		sf        float64
		ok        bool
		customers int64
	}{
		{1, true, 300000},
		{0.01, true, 3000},
		{0.07, true, 21000},
		{2.5, true, 750000},
		{100, true, 30000000},
		{1.0 / 300000, true, 1},
		{0.000003, false, 0}, // 0.9 of a customer
		{0, false, 0},
		{-1, false, 0},
		{7158, true, 2147400000},
		{7159, false, 0},
	} {
		allowed := CheckScale(tc.sf)
		if (allowed == "") != tc.ok {
			t.Errorf("CheckScale(%v) = %q, want ok %v", tc.sf, allowed, tc.ok)
		}
		if !tc.ok {
			if !strings.Contains(allowed, "to 7158 for sales") {
				t.Errorf("CheckScale(%v) = %q", tc.sf, allowed)
			}
			continue
		}
		w, err := New(tc.sf, nil)
		if err != nil {
			t.Fatalf("New(%v): %v", tc.sf, err)
		}
		sw := w.(*Workload)
		if sw.customers != tc.customers || sw.orders != tc.customers || sw.lines != 10*tc.customers || w.Rows() != 12*tc.customers {
			t.Errorf("scale %v: %d customers, %d orders, %d lines, %d rows; want %d customers and orders",
				tc.sf, sw.customers, sw.orders, sw.lines, w.Rows(), tc.customers)
		}
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		opts   any
		err    string
		names  []string
		latest int64
	}{
		{nil, "", []string{NewOrderline, OrderPayment, OrderStatus}, 0},
		{Options{Preset: ReadOnly}, "", []string{OrderStatus}, 0},
		{&Options{Preset: WriteOnly}, "", []string{NewOrderline}, 0},
		{Options{Mix: map[string]float64{OrderlineDeletion: 1, NewOrderline: 1, OrderPayment: 0}}, "", []string{NewOrderline, OrderlineDeletion}, 0},
		{Options{Distribution: Latest}, "", []string{NewOrderline, OrderPayment, OrderStatus}, DefaultK},
		{Options{Distribution: Latest, K: 5}, "", []string{NewOrderline, OrderPayment, OrderStatus}, 5},
		{Options{Distribution: Latest, K: 1 << 30}, "", []string{NewOrderline, OrderPayment, OrderStatus}, 3000}, // all orders
		{Options{Distribution: Latest, K: -1}, "k >= 1", nil, 0},
		{Options{Distribution: "zipf"}, "unknown distribution", nil, 0},
		{Options{Preset: "mixed"}, "unknown preset", nil, 0},
		{Options{Mix: map[string]float64{"t1": 1}}, "unknown transaction", nil, 0},
		{Options{Mix: map[string]float64{OrderStatus: -1, NewOrderline: 2}}, "weight", nil, 0},
		{Options{Mix: map[string]float64{OrderStatus: 0}}, "no transaction", nil, 0},
		{"x", "options of type", nil, 0},
	} {
		w, err := New(0.01, tc.opts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("New(%+v) error %v, want %q", tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("New(%+v): %v", tc.opts, err)
		}
		if got := w.TxnNames(); !reflect.DeepEqual(got, tc.names) {
			t.Errorf("New(%+v): TxnNames = %v, want %v", tc.opts, got, tc.names)
		}
		if got := w.(*Workload).latest; got != tc.latest {
			t.Errorf("New(%+v): latest %d, want %d", tc.opts, got, tc.latest)
		}
	}
	if _, err := New(0, nil); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("New(0) error %v", err)
	}
}

func TestFactory(t *testing.T) {
	f := Factory()
	if f.Name != "sales" || f.Parse == nil || f.New == nil || f.Scale == nil {
		t.Fatalf("Factory() = %+v", f)
	}
	r := workload.Registry{}
	r.Add(f)
	problems := r.Check(&spec.Workload{Name: "sales", Scale: spec.Floats{1, 0.000001, 0.01}})
	if len(problems) != 1 || problems[0].Path != "workload.scale[1]" || problems[0].Value != "1e-06" ||
		!strings.Contains(problems[0].Allowed, "1 customer") {
		t.Fatalf("scale problems %v, want one for workload.scale[1]", problems)
	}
	w, err := r.Build(&spec.Workload{Name: "sales", Options: *wltest.OptionsNode(t, "preset: read-only\n")}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.TxnNames(); !reflect.DeepEqual(got, []string{OrderStatus}) {
		t.Fatalf("TxnNames = %v", got)
	}
	if _, ok := w.(workload.Checker); !ok {
		t.Fatal("sales is not a workload.Checker")
	}
}
