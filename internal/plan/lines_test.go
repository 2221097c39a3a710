package plan

import (
	"strings"
	"testing"
)

// Every problem of every layer (the spec, the engine, the provider, the
// tenancy model, the workload and its options, the machine) is placed on
// the line its path is written on, when it is written. Each spec below
// writes every path it has a problem at, but those in unwritten.
func TestEveryProblemHasItsLine(t *testing.T) {
	small := Machine{MemoryBytes: 8 << 30, OpenFiles: 200, Processes: 1 << 20}
	for _, c := range []struct {
		name, src string
		m         Machine
		unwritten []string // paths not in the file: no line
	}{
		{"spec keys and values", "name: t\ncolour: red\ntenancy:\n  tenants: [0, 2]\nworkload:\n  name: tpcb\n  duration: 100000000h\n", big, nil},
		{"workload name", "name: t\nworkload:\n  name: tpcx\n", big, nil},
		{"workload options key", "name: t\nworkload:\n  name: tpcb\n  options:\n    fillfactr: 90\n", big, nil},
		{"workload options value", "name: t\nworkload:\n  name: tpcb\n  options:\n    fillfactor: 5\n    scripts: {tpcb-lik: 1}\n", big, nil},
		{"workload options against the load", "name: t\nworkload:\n  name: tpcc\n  duration: 1s\n  clients: 2\n" +
			"  load: {shape: open, rate: 10}\n  options:\n    keying_and_think_time: true\n", big, nil},
		{"case options merged", "name: t\nworkload:\n  name: tpcc\n  duration: 10s\n  cases:\n    - name: a\n" +
			"      options:\n        keying_and_think_time: true\n", big, nil},
		{"case scale and options", "name: t\nworkload:\n  name: tpcb\n  cases:\n    - {name: a, scale: 0.5}\n" +
			"    - name: b\n      options: {fillfactor: 1}\n", big, nil},
		{"tpch scale", "name: t\nworkload:\n  name: tpch\n  scale: [1, 2.5]\n", big, nil},
		{"tpch warmup", "name: t\nworkload:\n  name: tpch\n  warmup: 5s\n", big, nil},
		{"tpch streams", "name: t\ntenancy:\n  tenants: 100\nworkload:\n  name: tpch\n  clients: 10\n  options:\n    refresh: true\n", big, nil},
		{"model", "name: t\ntenancy:\n  model: [schema, shema, shared-table]\nworkload:\n  name: tpcb\n", big, nil},
		{"engine and provider", "name: t\nsut:\n  engine: postgress\n  provider: locl\nworkload: {name: tpcb}\n", big, nil},
		{"settings", "name: t\nsut:\n  settings:\n    port: 5433\n    Work_Mem: 4MB\n    max_connections: [100, 3]\nworkload: {name: tpcb}\n", big, nil},
		{"max_connections", "name: t\nsut:\n  settings:\n    max_connections: [100, 3]\nworkload: {name: tpcb}\n", big, nil},
		{"case max_connections", "name: t\nworkload:\n  name: tpcb\n  cases:\n    - name: a\n      settings: {max_connections: 2}\n", big, nil},
		{"case settings", "name: t\nworkload:\n  name: tpcb\n  cases:\n    - name: a\n      settings: {max_connections: 2, hba_file: /x}\n", big, nil},
		{"memory", "name: t\nsut:\n  resources:\n    memory: 1000000TiB\n    cpus: 0.001\nworkload: {name: tpcb}\n", small, nil},
		{"divide", "name: t\nsut:\n  resources: {memory: 100MiB, divide: true}\ntenancy:\n  model: instance\n  tenants: 8\nworkload: {name: tpcb}\n", big, nil},
		{"machine", "name: t\ntenancy:\n  tenants: [1, 300]\nworkload:\n  name: tpcb\n", small, nil},
		{"load names", "name: t\nworkload:\n  name: tpcb\n  load:\n    shape: opn\n", big, nil},
		{"pattern without tau", "name: t\ntenancy: {tenants: 2}\nworkload:\n  name: tpcb\n  pattern:\n    name: singl-peak\n", big,
			[]string{"workload.pattern.tau"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := buildSrc(t, c.src, c.m)
			for _, p := range problems {
				t.Log(p.Error())
			}
			if len(problems) == 0 {
				t.Fatalf("no problem in:\n%s", c.src)
			}
			for _, p := range problems {
				unwritten := false
				for _, u := range c.unwritten {
					unwritten = unwritten || p.Path == u
				}
				if unwritten != (p.Line == 0) {
					t.Errorf("%s: line %d (written: %v)", p.Error(), p.Line, !unwritten)
				}
				if p.Line > 0 {
					line := strings.Split(c.src, "\n")[p.Line-1]
					if p.Value != "" && !strings.Contains(line, strings.Trim(p.Value, `"`)) && !strings.Contains(p.Path, " with ") {
						t.Errorf("%s: line %d is %q, which does not hold the value", p.Error(), p.Line, line)
					}
				}
			}
		})
	}
}
