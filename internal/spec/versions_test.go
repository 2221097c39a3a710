package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestEngineVersions: sut.version keyed by engine gives each engine its
// own version, "" (the newest) for one left out; with one engine keyed is
// the same as flat.
func TestEngineVersions(t *testing.T) {
	s := mustParse(t, "name: v\nsut:\n  engine: [postgres, mariadb]\n  version: {postgres: 15, mariadb: \"10.11\"}\nworkload: {name: tpcb}\n")
	if s.SUT.VersionOf("postgres") != "15" || s.SUT.VersionOf("mariadb") != "10.11" ||
		s.SUT.VersionPath("mariadb") != "sut.version.mariadb" {
		t.Errorf("versions %v, path %s", s.SUT.EngineVersions, s.SUT.VersionPath("mariadb"))
	}
	s = mustParse(t, "name: v\nsut:\n  engine: [postgres, mariadb]\n  version: {mariadb: 11.4.5}\nworkload: {name: tpcb}\n")
	if s.SUT.VersionOf("postgres") != "" || s.SUT.VersionOf("mariadb") != "11.4.5" {
		t.Errorf("one engine left out: %v", s.SUT.EngineVersions)
	}
	flat := mustParse(t, "name: v\nsut: {engine: mariadb, version: \"10.11\"}\nworkload: {name: tpcb}\n")
	keyed := mustParse(t, "name: v\nsut: {engine: mariadb, version: {mariadb: \"10.11\"}}\nworkload: {name: tpcb}\n")
	if flat.SUT.VersionOf("mariadb") != "10.11" || keyed.SUT.VersionOf("mariadb") != "10.11" || flat.SUT.VersionPath("mariadb") != "sut.version" {
		t.Errorf("one engine: flat %q, keyed %q", flat.SUT.VersionOf("mariadb"), keyed.SUT.VersionOf("mariadb"))
	}
}

// TestEngineVersionProblems: each misplaced version at its path and line.
func TestEngineVersionProblems(t *testing.T) {
	both := "name: v\nworkload: {name: tpcb}\nsut:\n  engine: [postgres, mariadb]\n"
	for _, c := range []struct {
		name, src, path, allows string
		line                    int
	}{
		{"flat under two engines", both + "  version: \"15\"\n", "sut.version",
			"with several engines (sut.engine: postgres, mariadb) a version is one engine's: give each its own, sut.version: {postgres: ...}", 5},
		{"engine key typo", both + "  version:\n    mariadbb: \"10.11\"\n", "sut.version.mariadbb",
			"is not an engine of sut.engine (postgres, mariadb): versions keyed by engine go under one of them; did you mean mariadb?", 6},
		{"bad value under an engine", both + "  version:\n    mariadb: latest\n", "sut.version.mariadb",
			"must be a server major version like 16", 6},
		{"engine twice", both + "  version:\n    mariadb: \"10.11\"\n    mariadb: \"11.4\"\n", "sut.version.mariadb", "written twice", 7},
		{"engine not listed", "name: v\nworkload: {name: tpcb}\nsut:\n  engine: postgres\n  version: {mariadb: \"10.11\"}\n",
			"sut.version.mariadb", "is not an engine of sut.engine (postgres)", 5},
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

// TestEngineVersionsMarshal: the resolved spec.yaml keeps the versions
// keyed by engine and reads back to the same.
func TestEngineVersionsMarshal(t *testing.T) {
	s := mustParse(t, "name: v\nsut:\n  engine: [postgres, mariadb]\n  version: {postgres: \"15\", mariadb: \"10.11\"}\nworkload: {name: tpcb}\n")
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again, problems := Parse(out)
	if len(problems) > 0 {
		t.Fatalf("read back:\n%s\n%s", joinProblems(problems), out)
	}
	if !reflect.DeepEqual(again.SUT.EngineVersions, s.SUT.EngineVersions) || again.SUT.Version != "" {
		t.Errorf("marshalled:\n%s", out)
	}
}
