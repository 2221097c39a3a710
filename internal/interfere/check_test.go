package interfere

import (
	"context"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

func parse(t *testing.T, src string) ([]Event, []spec.Problem) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return Parse(doc.Content[0])
}

var servers = []Server{{Name: "shared", Tenants: []string{"t01", "t02"}}}

func problemsText(ps []spec.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Path + " [" + p.Value + "]: " + p.Allowed + "\n")
	}
	return b.String()
}

// TestParseAndOccurrences: every kind is read with its params; a repeated
// event happens at at, at+every, ... up to until.
func TestParseAndOccurrences(t *testing.T) {
	events, problems := parse(t, `
- {kind: restart, at: 10s, every: 15s, until: 40s, target: shared, params: {window: 5s, fraction: 0.9}}
- {kind: crash, at: 5s, target: t02}
- {kind: kill-backends, at: 7s, target: t01}
- {kind: freeze, at: 20s, duration: 2s, target: shared}
- {kind: cpu, at: 1s, duration: 5s, params: {load: 30}}
- {kind: memory, at: 1s, duration: 5s, target: shared, params: {bytes: 64MiB, share: true}}
- {kind: io, at: 1s, duration: 5s, params: {workers: 2}}
`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	if len(events) != 7 {
		t.Fatalf("%d events", len(events))
	}
	got := events[0].Occurrences(60 * time.Second)
	want := []time.Duration{10 * time.Second, 25 * time.Second, 40 * time.Second}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("occurrences %v, want %v", got, want)
	}
	if p := events[0].Params.String(); p != "window=5s;fraction=0.9" {
		t.Errorf("restart params %q", p)
	}
	if p := events[1].Params.String(); p != "window=10s;fraction=0.95" {
		t.Errorf("crash's default params %q", p)
	}
	if p := events[4].Params.String(); p != "load=30%;share=false" {
		t.Errorf("cpu params %q", p)
	}
	if p := events[5].Params.(memoryParams); p.Bytes != 64<<20 || !p.Share {
		t.Errorf("memory params %+v", p)
	}
	if p := events[6].Params.(ioParams); p.Workers != 2 || p.Bytes != 64<<20 {
		t.Errorf("io params %+v", p)
	}
	if ps := Check(events, 60*time.Second, servers, "run 001"); ps != nil {
		t.Errorf("valid events refused:\n%s", problemsText(ps))
	}
}

// TestBadEvents: each mistake is named at its path with what is allowed.
func TestBadEvents(t *testing.T) {
	_, problems := parse(t, `
- {kind: restrat, at: 10s, target: shared}
- {kind: cpu, at: 1s, duration: 5s, params: {load: 130}}
- {kind: restart, at: 1s, target: shared, params: {load: 3}}
- {kind: cpu, at: 1s, duration: 5s}
- {at: 3s, target: shared}
- {kind: freeze, at: 1s, duration: 1s, target: shared, colour: red}
- {kind: crash, at: 1s, target: shared, params: {window: 1500ms, fraction: 1.5}}
`)
	text := problemsText(problems)
	for _, want := range []string{
		"interference[0].kind [restrat]: must be one of", "did you mean restart?",
		"interference[1].params.load [130]: must be a percent",
		"interference[2].params.load", "allowed here: window, fraction",
		"interference[3].params.load []: is needed",
		"interference[4].kind []: is needed",
		"interference[5].colour", "unknown key",
		"interference[6].params.window [1500ms]: must be whole seconds",
		"interference[6].params.fraction [1.5]: must be above 0 and at most 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
}

// TestCheckAgainstRun: events outside the phase, unknown targets (with
// a suggestion), host targets of faults, a lasting kind without a duration
// and overlapping freezes of one server are refused.
func TestCheckAgainstRun(t *testing.T) {
	events, problems := parse(t, `
- {kind: restart, at: 70s, target: shared}
- {kind: restart, at: 5s, target: shard}
- {kind: crash, at: 5s, target: host}
- {kind: freeze, at: 5s, target: shared}
- {kind: cpu, at: 50s, duration: 20s, params: {load: 10}}
- {kind: freeze, at: 10s, duration: 5s, target: t01}
- {kind: freeze, at: 12s, duration: 5s, target: shared}
- {kind: restart, at: 5s, until: 30s, target: shared}
- {kind: cpu, at: 1s, duration: 2s, params: {load: 10, share: true}}
`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	text := problemsText(Check(events, 60*time.Second, servers, "run 001 (model schema, 2 tenants)"))
	for _, want := range []string{
		"interference[0].at [1m10s]: is outside the workload phase (0s to 1m0s",
		"interference[1].target [shard]: is no server or tenant of run 001", "did you mean shared?",
		"interference[2].target [host]: crash needs a server",
		"interference[3].duration []: is needed for freeze",
		"interference[4].duration [20s]: the occurrence at 50s would end at 1m10s",
		"interference[6] []: freezes server shared from 12s to 17s while interference[5] freezes it from 10s to 15s",
		"interference[7].until [30s]: needs every",
		"interference[8].params.share [true]: needs a server or the driver as target",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
}

// TestDriverTarget: noise may target the driver, beside it or sharing its
// cgroup; a fault may not, and plan says why.
func TestDriverTarget(t *testing.T) {
	events, problems := parse(t, `
- {kind: cpu, at: 1s, duration: 5s, target: driver, params: {load: 30}}
- {kind: cpu, at: 1s, duration: 5s, target: driver, params: {load: 30, share: true}}
- {kind: io, at: 1s, duration: 5s, target: driver}
`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	if ps := Check(events, 20*time.Second, servers, "run 001"); ps != nil {
		t.Errorf("noise on the driver refused: %s", problemsText(ps))
	}
	if !TargetsDriver(events) {
		t.Error("TargetsDriver: false")
	}
	for _, kind := range []string{"restart", "crash", "kill-backends"} {
		events, problems := parse(t, "- {kind: "+kind+", at: 1s, target: driver}")
		if problems != nil {
			t.Fatal(problemsText(problems))
		}
		ps := Check(events, 20*time.Second, servers, "run 001")
		if len(ps) != 1 || ps[0].Path != "interference[0].target" || ps[0].Value != "driver" ||
			!strings.Contains(ps[0].Allowed, "only noise") {
			t.Errorf("%s on the driver: %s", kind, problemsText(ps))
		}
	}
	events, _ = parse(t, "- {kind: freeze, at: 1s, duration: 1s, target: driver}")
	if ps := Check(events, 20*time.Second, servers, "run 001"); len(ps) != 1 || !strings.Contains(ps[0].Allowed, "cannot target the driver") {
		t.Errorf("freeze on the driver: %s", problemsText(ps))
	}
}

// TestLoadZeroIsOff: a cpu load of 0 is no noise: the event is off, the
// runner injects and records nothing, and it needs no stress-ng.
func TestLoadZeroIsOff(t *testing.T) {
	events, problems := parse(t, "- {kind: cpu, at: 0s, duration: 1s, params: {load: 0}}\n- {kind: cpu, at: 0s, duration: 1s, params: {load: 1}}")
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	if !events[0].Off() || events[1].Off() {
		t.Fatalf("off: %v, %v", events[0].Off(), events[1].Off())
	}
	r := Start(context.Background(), events[:1], 2*time.Second, &Env{}, time.Now())
	time.Sleep(50 * time.Millisecond)
	if recs := r.Stop(); len(recs) != 0 {
		t.Errorf("an event that is off ran: %+v", recs)
	}
}
