package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTPCCBadInput: bad tpcc input is refused by plan
// with exit status 2, naming the field, the value and what is allowed.
func TestTPCCBadInput(t *testing.T) {
	const head = "name: bad\ntenancy: {model: schema, tenants: 1}\nworkload:\n  name: tpcc\n"
	for _, c := range []struct {
		name, workload string
		want           []string
	}{
		{"no warehouses", "  scale: 0\n  clients: 1\n  duration: 10s\n", []string{"workload.scale", ": 0:", "greater than 0"}},
		{"part of a warehouse", "  scale: [1, 2.5]\n  clients: 1\n  duration: 10s\n",
			[]string{"workload.scale[1]", "2.5", "whole number from 1"}},
		{"a case's part of a warehouse", "  scale: 1\n  clients: 1\n  duration: 10s\n  cases:\n    - {name: a, scale: 1.5}\n",
			[]string{"workload.cases[0].scale", "1.5", "whole number from 1"}},
		{"no clients", "  scale: 1\n  clients: 0\n  duration: 10s\n", []string{"workload.clients", ": 0:", "must be 1.."}},
		{"mix short of 100", "  scale: 1\n  clients: 1\n  duration: 10s\n  options: {mix: {new_order: 45, payment: 43, order_status: 4, delivery: 4}}\n",
			[]string{"workload.options.mix", "sum to 96", "must sum to 100"}},
		{"keying under an open load", "  scale: 1\n  clients: 1\n  duration: 10m\n  load: {shape: open, rate: 10}\n  options: {keying_and_think_time: true}\n",
			[]string{"workload.options.keying_and_think_time", "needs a closed load"}},
		{"keying and load.think", "  scale: 1\n  clients: 10\n  duration: 10m\n  load: {think: 1s}\n  options: {keying_and_think_time: true}\n",
			[]string{"workload.load.think", "1s", "cannot be combined"}},
		{"keying too short to honour the mix", "  scale: 1\n  clients: 10\n  duration: 10s\n  options: {keying_and_think_time: true}\n",
			[]string{"workload.duration", "10s", "20.99s", "mix could not be honoured"}},
		{"a case's keying under an open load", "  scale: 1\n  clients: 1\n  duration: 10m\n  load: {shape: open, rate: 10}\n" +
			"  cases:\n    - {name: a}\n    - {name: b, options: {keying_and_think_time: true}}\n",
			[]string{"workload.cases[1].options", "keying_and_think_time", "needs a closed load"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(head+c.workload), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := execute([]string{"plan", path}, &stdout, &stderr); code != exitBadInput {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitBadInput, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if !strings.Contains(msg, "1 problem(s), nothing was started") {
				t.Errorf("want exactly one problem:\n%s", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
		})
	}
	// The same options with a long enough closed load are fine.
	path := filepath.Join(t.TempDir(), "good.yaml")
	os.WriteFile(path, []byte(head+"  scale: 1\n  clients: 10\n  duration: 5m\n  options: {keying_and_think_time: true}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"plan", path}, &stdout, &stderr); code != exitOK {
		t.Fatalf("a good spec: exit %d\n%s", code, stderr.String())
	}
}
