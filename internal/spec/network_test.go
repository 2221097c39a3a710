package spec

import (
	"strings"
	"testing"
	"time"
)

// TestNetwork: sut.network reads its durations, a loss with or without
// "%", its rate as written; unwritten or null is none and `{}` a plain
// link; it survives the resolved spec's round trip; bad values are
// refused with their line.
func TestNetwork(t *testing.T) {
	s := mustParse(t, "name: t\nsut:\n  network: {delay: 1ms, jitter: 0.2ms, loss: 0.5%, rate: 1gbit}\nworkload: {name: tpcb}\n")
	n := s.SUT.Network
	if n == nil || n.Delay.D() != time.Millisecond || n.Jitter.D() != 200*time.Microsecond || n.Loss != 0.5 || n.Rate != "1gbit" {
		t.Fatalf("read %+v", n)
	}
	roundTrip(t, s)
	if s := mustParse(t, "name: t\nsut:\n  network:\nworkload: {name: tpcb}\n"); s.SUT.Network != nil {
		t.Errorf("network: with no value read as %+v", s.SUT.Network)
	}
	if s := mustParse(t, "name: t\nsut: {network: {}}\nworkload: {name: tpcb}\n"); s.SUT.Network == nil || *s.SUT.Network != (Network{}) {
		t.Errorf("network: {} read as %+v", s.SUT.Network)
	}
	if s := mustParse(t, "name: t\nsut: {network: {delay: 1ms, emulator: queue}}\nworkload: {name: tpcb}\n"); s.SUT.Network.Emulator != "queue" {
		t.Errorf("emulator: queue read as %+v", s.SUT.Network)
	} else {
		roundTrip(t, s)
	}
	if s := mustParse(t, "name: t\nsut: {network: {loss: 3}}\nworkload: {name: tpcb}\n"); s.SUT.Network.Loss != 3 {
		t.Errorf("loss: 3 read as %v", s.SUT.Network.Loss)
	}
	for src, want := range map[string]string{
		"sut:\n  network:\n    delay: -2ms\n":  "sut.network.delay (line 4)",
		"sut:\n  network:\n    jitter: fast\n": "sut.network.jitter (line 4)",
		"sut:\n  network:\n    loss: 101%\n":   "sut.network.loss (line 4)",
		"sut:\n  network:\n    loss: -1\n":     "sut.network.loss (line 4)",
		"sut:\n  network: [1ms]\n":             "sut.network (line 3)",
	} {
		_, problems := Parse([]byte("name: t\n" + src + "workload: {name: tpcb}\n"))
		if text := joinProblems(problems); !strings.Contains(text, want) {
			t.Errorf("%q: no %q in %s", src, want, text)
		}
	}
}
