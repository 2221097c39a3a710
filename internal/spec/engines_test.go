package spec

import (
	"reflect"
	"strings"
	"testing"
)

const enginesSpec = `name: e
repeat: 2
order: blocked
sut:
  engine: [postgres, mariadb]
  settings:
    postgres: {shared_buffers: 128MB}
    mariadb: {innodb_buffer_pool_size: [64MB, 256MB]}
tenancy: {model: database}
workload:
  name: tpcc
  cases:
    - name: small
      settings:
        postgres: {max_connections: 100, wal_buffers: 8MB}
        mariadb: {max_connections: 100, innodb_log_buffer_size: 8MB}
      scale: 1
    - name: big
      scale: 2
`

// TestEngineDimension: sut.engine is a dimension right after the case;
// each engine's list-valued settings multiply its own runs only, and each
// run has its own engine's settings, the case's of that engine over them.
func TestEngineDimension(t *testing.T) {
	p := mustExpand(t, enginesSpec)
	// Per case: postgres 1 point, mariadb 2 points; x 2 repetitions.
	if len(p.Runs) != 2*(1+2)*2 {
		t.Fatalf("%d runs, want 12", len(p.Runs))
	}
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Case+"/"+r.Engine+"/"+point(r))
	}
	want := []string{
		"small/postgres/database/1/1/1/max_connections=100,shared_buffers=128MB,wal_buffers=8MB/r1",
		"small/postgres/database/1/1/1/max_connections=100,shared_buffers=128MB,wal_buffers=8MB/r2",
		"small/mariadb/database/1/1/1/innodb_buffer_pool_size=64MB,innodb_log_buffer_size=8MB,max_connections=100/r1",
		"small/mariadb/database/1/1/1/innodb_buffer_pool_size=64MB,innodb_log_buffer_size=8MB,max_connections=100/r2",
		"small/mariadb/database/1/1/1/innodb_buffer_pool_size=256MB,innodb_log_buffer_size=8MB,max_connections=100/r1",
		"small/mariadb/database/1/1/1/innodb_buffer_pool_size=256MB,innodb_log_buffer_size=8MB,max_connections=100/r2",
		"big/postgres/database/1/2/1/shared_buffers=128MB/r1",
		"big/postgres/database/1/2/1/shared_buffers=128MB/r2",
		"big/mariadb/database/1/2/1/innodb_buffer_pool_size=64MB/r1",
		"big/mariadb/database/1/2/1/innodb_buffer_pool_size=64MB/r2",
		"big/mariadb/database/1/2/1/innodb_buffer_pool_size=256MB/r1",
		"big/mariadb/database/1/2/1/innodb_buffer_pool_size=256MB/r2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, r := range p.Runs {
		if r.Point != i/2+1 || r.ID != []string{"001", "002", "003", "004", "005", "006", "007", "008", "009", "010", "011", "012"}[i] {
			t.Errorf("run %d: point %d, ID %s", i+1, r.Point, r.ID)
		}
	}
	wantKeys := []string{"innodb_buffer_pool_size", "innodb_log_buffer_size", "max_connections", "wal_buffers"}
	if !reflect.DeepEqual(p.SettingKeys, wantKeys) {
		t.Errorf("SettingKeys = %v, want %v", p.SettingKeys, wantKeys)
	}
	// The same data on both engines: the seed is the scale's.
	if p.Runs[0].Seed != p.Runs[2].Seed {
		t.Errorf("seeds differ across engines: %d, %d", p.Runs[0].Seed, p.Runs[2].Seed)
	}
	var b strings.Builder
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(b.String(), "\n"); !strings.HasPrefix(strings.Join(strings.Fields(lines[2]), " "), "run case engine model") ||
		!strings.Contains(b.String(), "003  small  mariadb") {
		t.Errorf("plan table without its engine column:\n%s", b.String())
	}
}

// TestOneEngineKeyed: with one engine the settings are flat as before, or
// keyed by that engine, which is the same plan.
func TestOneEngineKeyed(t *testing.T) {
	flat := mustExpand(t, "name: e\nsut: {engine: mariadb, settings: {innodb_buffer_pool_size: [64MB, 1G]}}\nworkload: {name: tpcb}\n")
	keyed := mustExpand(t, "name: e\nsut: {engine: mariadb, settings: {mariadb: {innodb_buffer_pool_size: [64MB, 1G]}}}\nworkload: {name: tpcb}\n")
	if len(flat.Runs) != 2 || len(keyed.Runs) != 2 {
		t.Fatalf("%d and %d runs, want 2", len(flat.Runs), len(keyed.Runs))
	}
	for i := range flat.Runs {
		if point(flat.Runs[i]) != point(keyed.Runs[i]) || flat.Runs[i].Engine != "mariadb" || keyed.Runs[i].Engine != "mariadb" {
			t.Errorf("run %d: flat %s (%s), keyed %s (%s)", i+1, point(flat.Runs[i]), flat.Runs[i].Engine, point(keyed.Runs[i]), keyed.Runs[i].Engine)
		}
	}
	// The default engine, as before.
	if r := mustExpand(t, "name: e\nworkload: {name: tpcb}\n").Runs[0]; r.Engine != "postgres" {
		t.Errorf("default engine %q", r.Engine)
	}
}

// TestEngineSettingsProblems: each misplaced setting at its path and
// line, with what is allowed.
func TestEngineSettingsProblems(t *testing.T) {
	for _, c := range []struct {
		name, src, path, allows string
		line                    int
	}{
		{"flat under two engines", "name: e\nworkload: {name: tpcb}\nsut:\n  engine: [postgres, mariadb]\n  settings:\n    shared_buffers: 1GB\n",
			"sut.settings.shared_buffers", "with several engines (sut.engine: postgres, mariadb) each setting goes under its engine: sut.settings.<engine>.shared_buffers", 6},
		{"engine key typo", "name: e\nworkload: {name: tpcb}\nsut:\n  engine: [postgres, mariadb]\n  settings:\n    mariadbb: {innodb_buffer_pool_size: 1G}\n",
			"sut.settings.mariadbb", "is not an engine of sut.engine (postgres, mariadb): settings keyed by engine go under one of them; did you mean mariadb?", 6},
		{"engine not listed", "name: e\nworkload: {name: tpcb}\nsut:\n  engine: postgres\n  settings:\n    mariadb: {innodb_buffer_pool_size: 1G}\n",
			"sut.settings.mariadb", "not a mapping (a mapping here is an engine's settings, and sut.engine is postgres)", 6},
		{"flat and keyed", "name: e\nworkload: {name: tpcb}\nsut:\n  engine: postgres\n  settings:\n    work_mem: 4MB\n    postgres: {shared_buffers: 1GB}\n",
			"sut.settings", "is written both flat and keyed by engine (postgres)", 6},
		{"flat case under two engines", "name: e\nsut: {engine: [postgres, mariadb]}\nworkload:\n  name: tpcb\n  cases:\n    - name: a\n      settings: {max_connections: 100}\n",
			"workload.cases[0].settings.max_connections", "each setting goes under its engine", 7},
		{"case engine typo", "name: e\nsut: {engine: [postgres, mariadb]}\nworkload:\n  name: tpcb\n  cases:\n    - name: a\n      settings:\n        postgress: {max_connections: 100}\n",
			"workload.cases[0].settings.postgress", "did you mean postgres?", 8},
		{"case sets an engine's list", "name: e\nsut:\n  engine: [postgres, mariadb]\n  settings: {mariadb: {max_connections: [100, 200]}}\n" +
			"workload:\n  name: tpcb\n  cases:\n    - name: a\n      settings: {mariadb: {max_connections: 300}}\n",
			"workload.cases[0].settings.mariadb.max_connections", "sut.settings.mariadb.max_connections is a list", 9},
		{"engine twice", "name: e\nworkload: {name: tpcb}\nsut: {engine: [mariadb, mariadb]}\n", "sut.engine[1]", "already given as sut.engine[0]", 3},
		{"empty engine value", "name: e\nworkload: {name: tpcb}\nsut:\n  engine: [postgres, mariadb]\n  settings:\n    mariadb: {innodb_buffer_pool_size: \"\"}\n",
			"sut.settings.mariadb.innodb_buffer_pool_size", "must not be empty", 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := Parse([]byte(c.src))
			var p *Problem
			for i := range problems {
				if problems[i].Path == c.path {
					p = &problems[i]
				}
			}
			if p == nil {
				t.Fatalf("no problem at %s; got:\n%s", c.path, joinProblems(problems))
			}
			if !strings.Contains(p.Allowed, c.allows) || p.Line != c.line {
				t.Errorf("got %q (line %d), want it to contain %q at line %d", p.Error(), p.Line, c.allows, c.line)
			}
		})
	}
}

// TestEngineSettingsMarshal: the resolved spec.yaml keeps the settings
// keyed by engine, in sut and in the cases, and reads back to the same
// plan.
func TestEngineSettingsMarshal(t *testing.T) {
	s := mustParse(t, enginesSpec)
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again, problems := Parse(out)
	if len(problems) > 0 {
		t.Fatalf("read back:\n%s\n%s", joinProblems(problems), out)
	}
	if !reflect.DeepEqual(again.SUT.EngineSettings, s.SUT.EngineSettings) || !reflect.DeepEqual(again.SUT.Engine, s.SUT.Engine) ||
		!reflect.DeepEqual(again.Workload.Cases[0].EngineSettings, s.Workload.Cases[0].EngineSettings) {
		t.Errorf("marshalled:\n%s", out)
	}
	a, b := ExpandValid(s), ExpandValid(again)
	for i := range a.Runs {
		if point(a.Runs[i]) != point(b.Runs[i]) || a.Runs[i].Engine != b.Runs[i].Engine {
			t.Errorf("run %d: %s %s, read back %s %s", i+1, a.Runs[i].Engine, point(a.Runs[i]), b.Runs[i].Engine, point(b.Runs[i]))
		}
	}
}
