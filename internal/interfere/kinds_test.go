package interfere

import (
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestKindAnswers pins what each registered kind answers, most of it
// through the fault and noise types it embeds: when it is measured for F
// and R, whether it lasts, whether it may target the host, its keys and
// that its Parse reads each of them. A kind added without a row here
// fails, so its answers are written down once.
func TestKindAnswers(t *testing.T) {
	type answers struct {
		lasts, fault, host bool
		keys               []string
	}
	want := map[string]answers{
		"restart":       {false, true, false, []string{"window", "fraction"}},
		"crash":         {false, true, false, []string{"window", "fraction"}},
		"kill-backends": {false, true, false, []string{"window", "fraction"}},
		"freeze":        {true, true, false, []string{"window", "fraction"}},
		"fail-primary":  {false, true, false, []string{"window", "fraction", "promote"}},
		"fail-replica":  {false, true, false, []string{"window", "fraction", "replica", "crash"}},
		"cpu":           {true, false, true, []string{"load", "share"}},
		"io":            {true, false, true, []string{"workers", "bytes", "share"}},
		"memory":        {true, false, true, []string{"bytes", "share"}},
	}
	for _, name := range Names() {
		k, _ := Lookup(name)
		w, ok := want[name]
		if !ok {
			t.Errorf("kind %s has no row here", name)
			continue
		}
		got := answers{k.Lasts(), k.Fault(), k.Host(), k.Keys()}
		if got.lasts != w.lasts || got.fault != w.fault || got.host != w.host || !slices.Equal(got.keys, w.keys) {
			t.Errorf("%s: lasts %v fault %v host %v keys %v, want %+v", name, got.lasts, got.fault, got.host, got.keys, w)
		}
		if _, noise := k.(stressKind); noise == k.Fault() {
			t.Errorf("%s: a noise kind (needs stress-ng) %v, a fault %v: it must be one of the two", name, noise, k.Fault())
		}
		// Every key it names is one its Parse reads: a key given with a
		// wrong value is refused at that key, not as unknown.
		for _, key := range k.Keys() {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(key+": [not, a, value]"), &doc); err != nil {
				t.Fatal(err)
			}
			d := spec.NewDecoder()
			k.Parse(d, doc.Content[0], "params")
			ps := d.Problems()
			at := slices.ContainsFunc(ps, func(p spec.Problem) bool { return p.Path == "params."+key })
			unknown := slices.ContainsFunc(ps, func(p spec.Problem) bool { return strings.HasPrefix(p.Allowed, "unknown key") })
			if !at || unknown {
				t.Errorf("%s: params.%s with a list: problems %+v, want one at params.%s that knows the key", name, key, ps, key)
			}
		}
	}
	for name := range want {
		if _, ok := Lookup(name); !ok {
			t.Errorf("kind %s is not registered", name)
		}
	}
}
