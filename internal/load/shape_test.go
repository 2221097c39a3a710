package load

import (
	"testing"
	"time"
)

func TestShapeRegistry(t *testing.T) {
	var names []string
	for _, s := range Shapes() {
		names = append(names, s.Name())
	}
	if len(names) != 2 || names[0] != "closed" || names[1] != "open" {
		t.Errorf("shapes %v, want [closed open]", names)
	}
	if s, ok := ShapeOf(""); !ok || s.Name() != "closed" {
		t.Errorf("the default shape is %v", s)
	}
	if _, ok := ShapeOf("ajar"); ok {
		t.Error("an unknown shape was found")
	}
	if o := Owners("rate"); len(o) != 1 || o[0] != "open" {
		t.Errorf("rate belongs to %v", o)
	}
}

// Closed connections are the peak rounded as the driver runs clients; an
// open tenant opens its pool, by default twice workload.clients.
func TestShapeConns(t *testing.T) {
	for _, c := range []struct {
		peak float64
		want int
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {2.5, 3}, {7, 7}} {
		if got := (Closed{}).Conns(c.peak, 99); got != c.want {
			t.Errorf("closed, peak %v: %d connections, want %d", c.peak, got, c.want)
		}
	}
	o := Open{}.Configure(&Settings{})
	if o != (Open{Arrivals: ArrivalsPoisson, OnFull: OnFullQueue}) || o.Conns(1000, 4) != 8 {
		t.Errorf("open defaults: %+v, %d connections", o, o.Conns(1000, 4))
	}
	if r := o.Resolve(8); r.(Open).Pool != 8 || r.Conns(0, 1) != 8 {
		t.Errorf("resolved pool: %+v", r)
	}
	if c := (Closed{}).Configure(&Settings{Think: time.Minute}); c.Describe(false) != "closed, think 1m" || c.Loop().Think != time.Minute {
		t.Errorf("closed: %q, %+v", c.Describe(false), c.Loop())
	}
}
