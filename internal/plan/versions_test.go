package plan

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// mariadbInstalled is the installed MariaDB majors, skipping the test
// where there is none (.ci/run installs Debian's).
func mariadbInstalled(t *testing.T) []mariadb.Programs {
	t.Helper()
	found := mariadb.Installed(context.Background())
	if len(found) == 0 {
		t.Skip("no MariaDB server installed")
	}
	return found
}

// TestEngineVersions: with sut.version keyed by engine each engine's runs
// ask for their own version (plan.json's versions, Plan.VersionOf), an
// engine left out for its newest.
func TestEngineVersions(t *testing.T) {
	maria := mariadbInstalled(t)[0].Major
	p := mustBuild(t, "name: t\nsut:\n  engine: [postgres, mariadb]\n  version: {mariadb: \""+maria+"\"}\n"+
		"tenancy: {model: database}\nworkload: {name: tpcb}\n")
	if len(p.Runs) != 2 || p.Versions["mariadb"] != maria || p.Version != "" {
		t.Fatalf("%d runs, version %q, versions %v", len(p.Runs), p.Version, p.Versions)
	}
	for _, r := range p.Runs {
		want := map[string]string{"postgres": "", "mariadb": maria}[r.Engine]
		if got := p.VersionOf(&r); got != want {
			t.Errorf("run %s (%s): version %q, want %q", r.ID, r.Engine, got, want)
		}
	}
	// plan.json keeps them: the run reads its version from there.
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.VersionOf(&back.Runs[1]) != maria || back.VersionOf(&back.Runs[0]) != "" {
		b, _ := json.Marshal(back.Versions)
		t.Errorf("read back: versions %s", b)
	}
	// One engine: plan.json's version, as before.
	if one := mustBuild(t, "name: t\nsut: {engine: mariadb, version: {mariadb: \""+maria+"\"}}\ntenancy: {model: database}\nworkload: {name: tpcb}\n"); one.Version != maria || one.Versions != nil || one.VersionOf(&one.Runs[0]) != maria {
		t.Errorf("one engine: version %q, versions %v", one.Version, one.Versions)
	}
}

// TestEngineVersionRefused: a version of one engine that is neither
// installed nor published is refused at its own path, naming what was
// found.
func TestEngineVersionRefused(t *testing.T) {
	found := mariadbInstalled(t)
	src := "name: t\nsut:\n  engine: [postgres, mariadb]\n  version:\n    mariadb: \"9.9\"\ntenancy: {model: database}\nworkload: {name: tpcb}\n"
	_, problems := buildSrc(t, src, big)
	var p *spec.Problem
	for i := range problems {
		if problems[i].Path == "sut.version.mariadb" {
			p = &problems[i]
		}
	}
	if p == nil || len(problems) != 1 {
		t.Fatalf("want one problem at sut.version.mariadb; got:\n%v", problems)
	}
	have := found[0].Full + " in " + filepath.Dir(found[0].Server)
	if p.Value != "9.9" || p.Line != 5 || !strings.Contains(p.Allowed, "no MariaDB 9.9 server programs") || !strings.Contains(p.Allowed, have) {
		t.Errorf("got %q (line %d), want MariaDB 9.9 refused naming %s", p.Error(), p.Line, have)
	}
}
