package spec

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestInterferenceDimension: list-valued params are dimensions after the
// settings, before the repetition, counted against MaxRuns; a run's list
// has its own value in place of the list and the spec's is unchanged.
func TestInterferenceDimension(t *testing.T) {
	s, problems := Parse([]byte(`name: t
workload: {name: tpcb}
sut: {settings: {work_mem: [4MB, 8MB]}}
repeat: 2
order: blocked
interference:
  - {kind: cpu, at: 1s, duration: 2s, params: {load: [0, 30, 40], share: [false, true]}}
`))
	if problems != nil {
		t.Fatal(problems)
	}
	p := ExpandValid(s)
	if len(p.Runs) != 2*3*2*2 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	var got []string
	for _, r := range p.Runs[:6] {
		got = append(got, r.Settings["work_mem"]+"/"+r.Interference["interference[0].load"]+"/"+r.Interference["interference[0].share"])
	}
	if strings.Join(got, " ") != "4MB/0/false 4MB/0/false 4MB/0/true 4MB/0/true 4MB/30/false 4MB/30/false" {
		t.Errorf("order: %v", got)
	}
	var b strings.Builder
	if err := yaml.NewEncoder(&b).Encode(s.InterferenceOf(&p.Runs[4])); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "load: 30") || !strings.Contains(b.String(), "share: false") {
		t.Errorf("run 5's list:\n%s", b.String())
	}
	b.Reset()
	_ = yaml.NewEncoder(&b).Encode(&s.Interference)
	if !strings.Contains(b.String(), "[0, 30, 40]") {
		t.Errorf("the spec's list changed:\n%s", b.String())
	}
	if v := s.InterferenceVariants(); len(v) != 5 || v[4].Param != "interference[0].params.share" || v[4].Index != 1 {
		t.Errorf("variants %+v", v)
	}

	_, problems = Parse([]byte(`name: t
workload: {name: tpcb}
repeat: 5000
interference:
  - {kind: cpu, at: 1s, duration: 2s, params: {load: [0, 30, 40]}}
`))
	if len(problems) != 1 || !strings.Contains(problems[0].Allowed, "interference[0].load 3 x repeat 5000") {
		t.Errorf("MaxRuns: %v", problems)
	}
}
