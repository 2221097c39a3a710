package spec

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes. It must never panic, every
// problem must say where and what, and a spec without problems must
// expand and survive Marshal -> Parse unchanged. CI runs it briefly:
//
//	go test ./internal/spec/ -run '^$' -fuzz FuzzParse -fuzztime 10s
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		minimal,
		"",
		"name: t\nrepeat: 3\nseed: -1\nprogress: 2s\n",
		"name: t\nsut: {settings: {shared_buffers: [128MB, 1GB], max_connections: 100}, resources: {cpus: 1.5, memory: 1GiB, divide: true}}\n",
		"name: t\ntenancy: {model: [schema, database, instance], tenants: [1, 2, 4]}\nworkload: {name: tpcb, scale: [0.5, 1], clients: [1, 8], duration: 10s, warmup: 1s}\n",
		"name: t\nworkload: {name: tpcb, options: {script: select-only, weights: &w {a: 1}, again: *w}}\n",
		"name: t\nsut: {settings: {search_path: '\"$user\", public', application_name: \"null\", x.y: ~}}\n",
		// invalid ones, to start the fuzzer near the error paths
		"name: a/b\nseed: 1.5\nrepeat: 0\ncolour: red\n",
		"name: t\nsut: {engine: mariadb, transport: udp, settings: {Port: 1, port: 2, work_mem: [4MB, 4MB]}}\n",
		"name: t\ntenancy: {model: [schema, [x]], tenants: [0, x, 1000]}\n",
		"name: t\nworkload: {clients: {a: 1}, duration: 5, warmup: -1s}\nx: &a 1\n",
		"name: t\nx: &a 1\nworkload: {options: {k: *a}}\n",
		"name: t\nworkload: {name: tpcb, clients: 2, load: {shape: open, rate: [10, 20], on_full: drop}}\n",
		"name: t\ntenancy: {tenants: 3}\nworkload: {name: tpcb, pattern: {name: [single-peak, staggered-high], tau: 11, slot: 1s}}\n",
		"name: t\nworkload: {name: tpcb, schedule: {slot: 10s, slots: [1, 0, 2], stagger: 1s, tenants: [{stop: 5s}]}}\n",
		"name: t\nworkload: {name: tpcb, load: {shape: open}, schedule: {sinusoid: {mean: 5, amplitude: 5, period: 2s, shift: 1s}}}\n",
		"name: t\nworkload: {name: tpcb, schedule: {stages: [{duration: 1s, target: 2}, {duration: 0s, target: x}]}}\n",
		"name: t\nworkload: {name: tpcb, pattern: {name: custom, tau: -1, levels: [a, -1], tenants: [[1], 2]}}\n",
		"name: t\ntenancy: {model: [shared-table, database], tenants: 3}\nworkload: {name: tpcc, provision: clone}\n",
		"name: t\nworkload: {name: tpcc, provision: [load], cases: [{name: a, settings: {max_connections: 10}, scale: 2, clients: 3, options: {x: 1}}, {name: a}, 5]}\n",
		"- a\n- b\n",
		"name: t\n---\nname: u\n",
		"name: t\n\tbad: 1\n",
		"&a name: *a\n",
		"name: t\n<<: {seed: 2}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, problems := Parse(data)
		for _, p := range problems {
			if p.Path == "" || p.Allowed == "" {
				t.Fatalf("problem without path or rule: %#v", p)
			}
		}
		if len(problems) > 0 {
			return
		}
		if s == nil {
			t.Fatal("no problems but no spec")
		}
		plan, problems := Expand(s)
		if len(problems) > 0 {
			t.Fatalf("a parsed spec without problems does not expand:\n%s", joinProblems(problems))
		}
		if len(plan.Runs) == 0 || len(plan.Runs) > MaxRuns {
			t.Fatalf("plan of %d runs", len(plan.Runs))
		}
		var table bytes.Buffer
		if err := plan.WriteTable(&table); err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, problems := Parse(out)
		if len(problems) > 0 {
			t.Fatalf("Parse(Marshal(s)) has problems:\n%s\n%s", joinProblems(problems), out)
		}
		again, err := Marshal(back)
		if err != nil {
			t.Fatalf("Marshal again: %v", err)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("Marshal -> Parse -> Marshal changed the spec:\n%s\n---\n%s", out, again)
		}
		if !strings.HasPrefix(string(out), "name: ") {
			t.Fatalf("resolved spec should start with its name:\n%s", out)
		}
	})
}
