package tpch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

func TestParseValid(t *testing.T) {
	d := DefaultOptions()
	for _, tc := range []struct {
		name, src string
		want      Options
	}{
		{"absent", "", d},
		{"null", "~", d},
		{"empty", "{}", d},
		{"all", "repeat_queries: 10\nqueries: [22, 1, 6]\nquery_timeout: 90s\nseed: 1995061700\nfirst_stream: 0\nload_connections: 2",
			Options{RepeatQueries: 10, Queries: []int{22, 1, 6}, QueryTimeout: 90 * time.Second, Seed: 1995061700, FirstStream: 0, LoadConnections: 2}},
		{"last stream", "first_stream: 40", Options{RepeatQueries: 1, Seed: 1, FirstStream: 40}},
		{"refresh", "refresh: true", Options{RepeatQueries: 1, Seed: 1, FirstStream: 1, Refresh: true}},
		{"no refresh", "refresh: false", d},
	} {
		got, problems := Parse(wltest.OptionsNode(t, tc.src))
		if problems != nil {
			t.Fatalf("%s: problems %v", tc.name, problems)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []spec.Problem // Allowed matched by substring
	}{
		{"not a mapping", "[1]", []spec.Problem{{Path: "workload.options", Allowed: "mapping with the keys repeat_queries"}}},
		{"unknown key", "streams: 3", []spec.Problem{{Path: "workload.options.streams", Allowed: "unknown key; allowed here: repeat_queries, queries"}}},
		{"twice", "seed: 1\nseed: 2", []spec.Problem{{Path: "workload.options.seed", Allowed: "written twice (first on line 1)"}}},
		{"query 23", "queries: [1, 23]", []spec.Problem{{Path: "workload.options.queries[1]", Value: "23", Allowed: "query number from 1 to 22"}}},
		{"query 0", "queries: [0]", []spec.Problem{{Path: "workload.options.queries[0]", Value: "0", Allowed: "1 to 22"}}},
		{"query name", "queries: [q01]", []spec.Problem{{Path: "workload.options.queries[0]", Value: "q01", Allowed: "1 to 22"}}},
		{"query twice", "queries: [3, 3]", []spec.Problem{{Path: "workload.options.queries[1]", Value: "3", Allowed: "listed twice"}}},
		{"queries empty", "queries: []", []spec.Problem{{Path: "workload.options.queries", Allowed: "list of query numbers"}}},
		{"queries scalar", "queries: 5", []spec.Problem{{Path: "workload.options.queries", Value: "5", Allowed: "list of query numbers"}}},
		{"timeout number", "query_timeout: 10", []spec.Problem{{Path: "workload.options.query_timeout", Value: "10", Allowed: "duration above 0"}}},
		{"timeout zero", "query_timeout: 0s", []spec.Problem{{Path: "workload.options.query_timeout", Value: "0s", Allowed: "duration above 0"}}},
		{"timeout negative", "query_timeout: -1m", []spec.Problem{{Path: "workload.options.query_timeout", Value: "-1m", Allowed: "duration above 0"}}},
		{"timeout garbage", "query_timeout: soon", []spec.Problem{{Path: "workload.options.query_timeout", Value: "soon", Allowed: "such as 90s"}}},
		{"repeat 0", "repeat_queries: 0", []spec.Problem{{Path: "workload.options.repeat_queries", Value: "0", Allowed: "from 1 to"}}},
		{"repeat fraction", "repeat_queries: 2.5", []spec.Problem{{Path: "workload.options.repeat_queries", Value: "2.5", Allowed: "whole number"}}},
		{"stream 41", "first_stream: 41", []spec.Problem{{Path: "workload.options.first_stream", Value: "41", Allowed: "from 0 to 40"}}},
		{"seed 0", "seed: 0", []spec.Problem{{Path: "workload.options.seed", Value: "0", Allowed: "from 1"}}},
		{"connections 0", "load_connections: 0", []spec.Problem{{Path: "workload.options.load_connections", Value: "0", Allowed: "from 1 to 64"}}},
		{"refresh number", "refresh: 1", []spec.Problem{{Path: "workload.options.refresh", Value: "1", Allowed: "must be true or false"}}},
		{"refresh word", "refresh: \"yes\"", []spec.Problem{{Path: "workload.options.refresh", Value: "yes", Allowed: "must be true or false"}}},
		{"refresh list", "refresh: [true]", []spec.Problem{{Path: "workload.options.refresh", Allowed: "must be a single value, not a list"}}},
		{"all at once", "queries: [30]\nquery_timeout: x\nextra: 1", []spec.Problem{
			{Path: "workload.options.queries[0]", Value: "30", Allowed: "1 to 22"},
			{Path: "workload.options.query_timeout", Value: "x", Allowed: "duration"},
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
				t.Fatalf("got %v, want %v", problems, tc.want)
			}
			for i, p := range problems {
				w := tc.want[i]
				if p.Path != w.Path || p.Value != w.Value || !strings.Contains(p.Allowed, w.Allowed) {
					t.Errorf("problem %d = %#v, want %q %q ~%q", i, p, w.Path, w.Value, w.Allowed)
				}
			}
			if after, _ := yaml.Marshal(node); string(after) != string(before) {
				t.Error("Parse changed the node")
			}
		})
	}
}

func TestFactoryScaleProblems(t *testing.T) {
	r := workload.Registry{}
	r.Add(Factory())
	problems := r.Check(&spec.Workload{Name: Name, Scale: spec.Floats{0.01, 0.005, 0.1, 2.5, 0.0125}})
	var paths []string
	for _, p := range problems {
		paths = append(paths, p.Path)
		if !strings.Contains(p.Allowed, "from 0.01 to 1 in steps of 0.001") {
			t.Errorf("%s: %q", p.Path, p.Allowed)
		}
	}
	if want := []string{"workload.scale[1]", "workload.scale[3]", "workload.scale[4]"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("problems at %v, want %v", paths, want)
	}
	w, err := r.Build(&spec.Workload{Name: Name, Options: *wltest.OptionsNode(t, "queries: [6, 1]\n")}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.TxnNames(); !reflect.DeepEqual(got, []string{"q01", "q06"}) {
		t.Errorf("TxnNames %v", got)
	}
	if _, err := New(0, nil); err == nil {
		t.Error("New(0) accepted")
	}
}

func TestStreams(t *testing.T) {
	o := DefaultOptions()
	if ps := CheckStreams(o, 100, 4); ps != nil {
		t.Errorf("100 tenants x 4 clients from stream 1: %v", ps)
	}
	o.Seed = rngM - 1 - maxStream
	if ps := CheckStreams(o, 40, 1); ps != nil {
		t.Errorf("largest seed, 40 streams: %v", ps)
	}
	if ps := CheckStreams(o, 41, 1); len(ps) != 1 || ps[0].Path != "workload.options.seed" || !strings.Contains(ps[0].Allowed, "below 2147483647") {
		t.Errorf("largest seed, 41 streams: %v", ps)
	}
	// With refresh, stream n takes refresh set n + 1, at most 999.
	o = DefaultOptions()
	o.Refresh = true
	if ps := CheckStreams(o, 998, 1); ps != nil {
		t.Errorf("refresh, streams 1..998: %v", ps)
	}
	if ps := CheckStreams(o, 333, 3); len(ps) != 1 || ps[0].Path != "workload.options.refresh" || !strings.Contains(ps[0].Allowed, "at most 998") {
		t.Errorf("refresh, streams 1..999: %v", ps)
	}
	// A warmup leaves every stream incomplete: refused.
	if ps := o.CheckWarmup(0); ps != nil {
		t.Errorf("no warmup: %v", ps)
	}
	if ps := o.CheckWarmup(10 * time.Second); len(ps) != 1 || ps[0].Path != "workload.warmup" || ps[0].Value != "10s" ||
		ps[0].Allowed != "tpch runs each stream once from its start; warmup must be 0" {
		t.Errorf("warmup 10s: %v", ps)
	}
	w := mustNew(t, 0.01, DefaultOptions())
	if err := w.SetTenant(3, 4); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ci   workload.ClientInfo
		want int
	}{
		{workload.ClientInfo{Index: 0, Clients: 1}, 4},
		{workload.ClientInfo{Index: 2, Clients: 3}, 12},
		{workload.ClientInfo{Index: 1, Clients: 13}, 41},
	} {
		n, err := w.streamOf(tc.ci)
		if err != nil || n != tc.want {
			t.Errorf("%+v: stream %d, %v; want %d", tc.ci, n, err, tc.want)
		}
	}
	// Stream 41 runs stream 0's order (the ordered sets wrap around) with
	// its own parameters.
	c41, c0 := w.newClient(41), w.newClient(0)
	for range numQueries {
		if a, b := c41.Pick(), c0.Pick(); a != b {
			t.Fatalf("stream 41 runs q%02d where stream 0 runs q%02d", w.queries[a], w.queries[b])
		}
	}
	if fmt.Sprint(c41.params) == fmt.Sprint(c0.params) {
		t.Error("streams 41 and 0 have the same parameters")
	}
	if err := w.SetTenant(4, 4); err == nil {
		t.Error("tenant 4 of 4 accepted")
	}
	// Without SetTenant, the stream comes from the client's seed, within
	// first_stream..40.
	u := mustNew(t, 0.01, DefaultOptions())
	for seed := range uint64(200) {
		n, err := u.streamOf(workload.ClientInfo{Seed: seed})
		if err != nil || n < 1 || n > 40 {
			t.Fatalf("seed %d: stream %d, %v", seed, n, err)
		}
	}
}
