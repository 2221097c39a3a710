package spec

import "time"

// What the plan layer (internal/plan) asks of a spec it resolves: the
// checks that need the registries (models, workloads, engines) run there,
// on values this package decoded.

// Placer places a problem found by a later layer as Parse places its
// own: on the line of the spec file its path is written on, with the path
// as written (a list given as one value loses its "[0]"). The zero Placer
// leaves problems as they are.
type Placer struct{ d *Decoder }

// Place places p.
func (pl Placer) Place(p Problem) Problem {
	if pl.d == nil {
		return p
	}
	return pl.d.place(p)
}

// CaseList is workload.cases, or one empty case when there are none: the
// points every run of the plan comes from.
func (s *Spec) CaseList() []Case { return s.Workload.cases() }

// Conns is the connections each tenant opens in case c's runs of t
// tenants and cl clients (workload.clients' value), one per value of the
// rate and pattern dimensions: the most clients of a closed load, the
// pool of an open one.
func (s *Spec) Conns(c *Case, t, cl int) []int {
	var out []int
	for _, r := range s.loadRuns(c, t, cl) {
		out = append(out, r.Clients)
	}
	return out
}

// Unit names what the load's targets count: clients or arrivals per
// second.
func (w *Workload) Unit() string { return w.unit() }

// Phase is the workload phase: warmup and duration.
func (w *Workload) Phase() time.Duration { return w.phase() }

// Describe says in a line what the load is, "" for the plain closed loop.
func (w *Workload) Describe() string { return w.describe() }

// Index is path with a list index: "tenancy.model[2]".
func Index(path string, i int) string { return index(path, i) }

// Join is path with a key: "sut.settings.max_connections".
func Join(path, key string) string { return join(path, key) }

// Shown is a value as problems show it: quoted when it is empty, has
// spaces at its ends or characters that do not print.
func Shown(s string) string { return shown(s) }

// RateTargets says the load's targets are arrival rates, not clients.
func (w *Workload) RateTargets() bool { return !w.target().Clients }
