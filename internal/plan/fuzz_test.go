package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
)

// uncheckedEngine is an engine without its optional interfaces: only the
// Engine methods are promoted from the interface value it embeds.
type uncheckedEngine struct{ engine.Engine }

// FuzzBuild feeds BuildBytes, with the builtin registries, arbitrary
// specs. Building a plan only reads: it must never panic, never start a
// process (a server, initdb, a download) and never create a file, and it
// must return quickly, as a server start never would. The one exception
// is the engine's settings check, which asks the server program (a short
// `postgres --describe-config` or `-C`, no server) and caches its answer;
// it is tested on its own (engine/postgres check_test.go), and left out
// here, where every input would run it. Every problem says
// where and what; a plan without problems has runs. CI runs it briefly:
//
//	go test ./internal/plan/ -run '^$' -fuzz FuzzBuild -fuzztime 10s
func FuzzBuild(f *testing.F) {
	for _, seed := range []string{
		"name: t\nworkload: {name: tpcb}\n",
		"name: t\nsut: {engine: postgres, provider: local, version: \"16\", settings: {shared_buffers: [128MB, 1GB], max_connections: 100}}\n" +
			"tenancy: {model: [schema, database, instance], tenants: [1, 2, 4]}\nworkload: {name: tpcb, scale: 1, clients: [1, 8], duration: 10s}\n",
		"name: t\nsut: {resources: {cpus: 1.5, memory: 1GiB, divide: true}}\ntenancy: {model: instance, tenants: 4}\nworkload: {name: sales}\n",
		"name: t\ntenancy: {model: [shared-table, database], tenants: 3}\nworkload: {name: tpcc, provision: clone, options: {mix: {new_order: 45, payment: 43, order_status: 4, delivery: 4, stock_level: 4}}}\n",
		"name: t\ntenancy: {tenants: 2}\nworkload: {name: tpch, scale: 0.01, clients: 2, options: {refresh: true}}\n",
		"name: t\nworkload: {name: tpcb, clients: 2, load: {shape: open, rate: [10, 20], on_full: drop}}\n",
		"name: t\ntenancy: {tenants: 3}\nworkload: {name: tpcb, pattern: {name: [single-peak, staggered-high], tau: 11, slot: 1s}}\n",
		"name: t\nworkload: {name: tpcb, schedule: {slot: 10s, slots: [1, 0, 2], stagger: 1s}}\n",
		"name: t\nworkload: {name: tpcc, cases: [{name: a, settings: {max_connections: 10}, scale: 2, clients: 3, options: {keying_and_think_time: true}}]}\n",
		// invalid ones, near the error paths of every layer
		"name: t\nsut: {engine: postgre, provider: locl, settings: {port: 1, include: x, Work_Mem: 4MB}}\nworkload: {name: tpcx}\n",
		"name: t\nsut: {resources: {memory: 1000000TiB}}\ntenancy: {model: shema, tenants: 100000}\nworkload: {name: tpcb, duration: 100000000h}\n",
		"name: t\ntenancy: {model: shared-table}\nworkload: {name: tpcb, options: {fillfactr: 1, scripts: {tpcb-lik: 1}}}\n",
		"name: t\ntenancy: {tenants: 10000}\nworkload: {name: tpcb, clients: 1000}\n",
	} {
		f.Add([]byte(seed))
	}
	// Everything a start would write goes under dir: it must stay empty.
	dir := f.TempDir()
	for _, k := range []string{"TMPDIR", "HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		f.Setenv(k, dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = os.Chdir(wd) })
	r := regs()
	r.Engines = engine.Registry{}
	for _, name := range regs().Engines.Names() {
		r.Engines.Add(uncheckedEngine{regs().Engines[name]})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, problems := BuildBytes(data, r)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("BuildBytes took %v: building a plan must not start anything", d)
		}
		if kids := children(t); len(kids) > 0 {
			t.Fatalf("BuildBytes started processes %v", kids)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Fatalf("BuildBytes created %s in %s", left[0].Name(), dir)
		}
		for _, pr := range problems {
			if pr.Path == "" || pr.Allowed == "" {
				t.Fatalf("problem without path or rule: %#v", pr)
			}
		}
		if len(problems) == 0 && (p == nil || len(p.Runs) == 0) {
			t.Fatalf("no problems but no runs: %#v", p)
		}
	})
}

// children are the processes this test process started and that are
// still there (zombies included): none, when nothing was started.
func children(t *testing.T) []string {
	files, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(files) == 0 {
		t.Skip("/proc/self/task/*/children is not available")
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended meanwhile
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}
