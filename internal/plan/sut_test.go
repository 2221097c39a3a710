package plan

import (
	"strings"
	"testing"
)

// TestSettingsAgainstServer: the plan refuses, at the spec's line, what
// the PostgreSQL 15 program installed here refuses, and what a spec may
// not set; a custom setting passes with a warning.
func TestSettingsAgainstServer(t *testing.T) {
	const v15 = "name: t\nsut: {version: \"15\", settings: "
	for _, c := range []struct {
		name, src, path, value, allows string
		line                           int
	}{
		{"include", v15 + "{include: /tmp/x.conf}}\nworkload: {name: tpcb}\n", "sut.settings.include", "", "included would be read after", 2},
		{"include of a case", "name: t\nworkload: {name: tpcb, cases: [{name: a, settings: {include_if_exists: /tmp/x.conf}}]}\n",
			"workload.cases[0].settings.include_if_exists", "", "could override them, authentication included", 2},
		{"include_dir", "name: t\nsut:\n  settings:\n    include_dir: /tmp\nworkload: {name: tpcb}\n", "sut.settings.include_dir", "", "included", 4},
		{"too big", v15 + "{shared_buffers: 1PB}}\nworkload: {name: tpcb}\n", "sut.settings.shared_buffers", "1PB",
			`invalid value for parameter "shared_buffers": "1PB"; Valid units`, 2},
		{"not a size", v15 + "{work_mem: lots}}\nworkload: {name: tpcb}\n", "sut.settings.work_mem", "lots", `invalid value for parameter "work_mem"`, 2},
		{"in a list", v15 + "{work_mem: [4MB, lots]}}\nworkload: {name: tpcb}\n", "sut.settings.work_mem[1]", "lots", `invalid value`, 2},
		{"enum", "name: t\nworkload: {name: tpcb, cases: [{name: a, settings: {wal_level: fast}}]}\n",
			"workload.cases[0].settings.wal_level", "fast", "Available values: minimal, replica, logical", 2},
		{"unknown", v15 + "{shared_bufers: 1GB}}\nworkload: {name: tpcb}\n", "sut.settings.shared_bufers", "1GB",
			"(did you mean shared_buffers?)", 2},
		{"no such library", v15 + "{shared_preload_libraries: no_such_lib}}\nworkload: {name: tpcb}\n",
			"sut.settings.shared_preload_libraries", "no_such_lib", "has no library no_such_lib installed", 2},
		{"version", "name: t\nsut: {version: \"99\"}\nworkload: {name: tpcb}\n", "sut.version", "99", "no PostgreSQL 99 server binaries found", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := buildSrc(t, c.src, big)
			if len(problems) != 1 {
				t.Fatalf("%d problems, want 1:\n%v", len(problems), problems)
			}
			p := problems[0]
			if p.Path != c.path || p.Value != c.value || !strings.Contains(p.Allowed, c.allows) || p.Line != c.line {
				t.Errorf("got  %q (line %d, value %q)\nwant %s value %q, allowed containing %q, line %d", p.Error(), p.Line, p.Value, c.path, c.value, c.allows, c.line)
			}
		})
	}
}

// TestCustomSettingWarns: a custom setting passes, with a warning at its
// line; valid settings pass without one.
func TestCustomSettingWarns(t *testing.T) {
	p := mustBuild(t, "name: t\nsut:\n  version: \"15\"\n  settings:\n    foo.bar: 1\n    shared_preload_libraries: pg_stat_statements\n"+
		"    work_mem: 64MB\nworkload: {name: tpcb}\n")
	if len(p.Warnings) != 1 {
		t.Fatalf("warnings %v, want one", p.Warnings)
	}
	w := p.Warnings[0]
	if w.Path != "sut.settings.foo.bar" || w.Line != 5 || !strings.Contains(w.Allowed, "custom setting") {
		t.Errorf("warning %q (line %d)", w.Error(), w.Line)
	}
	if p := mustBuild(t, minimal); len(p.Warnings) != 0 {
		t.Errorf("warnings for a plain spec: %v", p.Warnings)
	}
}
