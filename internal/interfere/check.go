package interfere

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// Server is one server of a run as the plan resolved it: its name, the
// tenants it serves, and how many replicas it will have (sut.replicas).
type Server struct {
	Name     string
	Tenants  []string
	Replicas int
}

// Occurrence is one time an event happens.
type Occurrence struct {
	Event *Event
	N     int           // 0 for the first
	At    time.Duration // since the workload phase started
	// Target is resolved by the runner: the servers it names (none for
	// the host) and the tenants it affects.
	Target Target
	env    *Env
}

// Occurrences are the times ev happens within a workload phase of length
// phase: At, At+Every, ... up to Until (or the phase's end).
func (ev *Event) Occurrences(phase time.Duration) []time.Duration {
	last := phase
	if ev.Until > 0 && ev.Until < last {
		last = ev.Until
	}
	var out []time.Duration
	for at := ev.At; at < phase && at <= last; at += ev.Every {
		out = append(out, at)
		if ev.Every <= 0 {
			break
		}
	}
	return out
}

// Check checks events against a run whose workload phase (warmup +
// duration) lasts phase and whose servers are servers: every occurrence
// within the phase, lasting kinds with a duration, targets that exist,
// no two freezes of one server at once, and stress-ng installed when a
// noise needs it. run names the run in the problems ("run r03").
func Check(events []Event, phase time.Duration, servers []Server, run string) []spec.Problem {
	var problems []spec.Problem
	bad := func(path, value, allowed string) {
		problems = append(problems, spec.Problem{Path: path, Value: value, Allowed: allowed})
	}
	type span struct {
		from, to time.Duration
		path     string
	}
	frozen := map[string][]span{}
	promotions := map[string]int{} // fail-overs so far, by server
	for i := range events {
		ev := &events[i]
		if ev.At >= phase {
			bad(ev.Path+".at", fmt.Sprint(ev.At), fmt.Sprintf("is outside the workload phase (0s to %v: warmup + duration)", phase))
		}
		if ev.Until > 0 && ev.Until < ev.At {
			bad(ev.Path+".until", fmt.Sprint(ev.Until), "must not be before at ("+fmt.Sprint(ev.At)+")")
		}
		if ev.Until > phase {
			bad(ev.Path+".until", fmt.Sprint(ev.Until), fmt.Sprintf("is outside the workload phase (0s to %v)", phase))
		}
		if ev.Until > 0 && ev.Every == 0 {
			bad(ev.Path+".until", fmt.Sprint(ev.Until), "needs every: until ends a repeated event")
		}
		if ev.Kind.Lasts() {
			if ev.Duration <= 0 {
				bad(ev.Path+".duration", "", "is needed for "+ev.Kind.Name()+": how long each occurrence lasts")
			}
			if ev.Every > 0 && ev.Duration > ev.Every {
				bad(ev.Path+".duration", fmt.Sprint(ev.Duration), fmt.Sprintf("must not be longer than every (%v): occurrences would overlap", ev.Every))
			}
		} else if ev.Duration > 0 {
			bad(ev.Path+".duration", fmt.Sprint(ev.Duration), ev.Kind.Name()+" is an instant; remove duration")
		}
		occ := ev.Occurrences(phase)
		if ev.Kind.Lasts() {
			for _, at := range occ {
				if at+ev.Duration > phase {
					bad(ev.Path+".duration", fmt.Sprint(ev.Duration), fmt.Sprintf("the occurrence at %v would end at %v, after the workload phase (%v)", at, at+ev.Duration, phase))
					break
				}
			}
		}
		srv, ok := resolveServer(ev.Target, servers)
		_, noise := ev.Kind.(stressKind)
		switch {
		case ev.Target == DriverTarget && !noise:
			bad(ev.Path+".target", ev.Target, ev.Kind.Name()+" is a fault of a server and cannot target the driver; only noise (cpu, memory, io) may: "+targetWords(servers))
		case ev.Target == DriverTarget:
			// Noise beside (or inside) the driver's own cgroup, which
			// the run makes for the phase.
			if sys := cgroup.Detect(); sys.Mode == cgroup.None {
				bad(ev.Path+".target", ev.Target, "needs cgroups, to put the driver in a group of its own: "+sys.Reason)
			}
		case ev.Target == "" && ev.Kind.Host():
			// noise on the host by default
		case ev.Target == "":
			bad(ev.Path+".target", "", "is needed for "+ev.Kind.Name()+": "+targetWords(servers))
		case ev.Target == HostTarget && !ev.Kind.Host():
			bad(ev.Path+".target", ev.Target, ev.Kind.Name()+" needs a server: "+targetWords(servers))
		case ev.Target != HostTarget && !ok:
			bad(ev.Path+".target", ev.Target, "is no server or tenant of "+run+": "+targetWords(servers)+
				spec.Suggest(ev.Target, targetNames(servers)))
		}
		if rk, isR := ev.Kind.(replicaKind); isR && ok && !ev.Off() {
			n := replicasOf(srv, servers)
			key, k := rk.replicaIndex(ev.Params)
			switch {
			case n == 0:
				// No run named: every run with sut.replicas 0 says the same.
				bad(ev.Path+".kind", ev.Kind.Name(), fmt.Sprintf("needs replicas of server %s, which has none where sut.replicas is 0: set it to 1 or more", srv))
			case k > n:
				bad(ev.Path+".params."+key, fmt.Sprint(k), fmt.Sprintf("must be 1 to %d: server %s has %d replicas where sut.replicas is %d", n, srv, n, n))
			case rk.usesUp():
				promotions[srv] += len(occ)
				if promotions[srv] > n {
					bad(ev.Path, "", fmt.Sprintf("fails server %s over %d times where sut.replicas is %d: each fail-over promotes one", srv, promotions[srv], n))
				}
			}
		}
		if _, excl := ev.Kind.(exclusive); excl && ok && ev.Duration > 0 {
			for _, at := range occ {
				s := span{at, at + ev.Duration, ev.Path}
				for _, o := range frozen[srv] {
					if s.from < o.to && o.from < s.to {
						bad(ev.Path, "", fmt.Sprintf("freezes server %s from %v to %v while %s freezes it from %v to %v; freezes of one server must not overlap",
							srv, s.from, s.to, o.path, o.from, o.to))
						break
					}
				}
				frozen[srv] = append(frozen[srv], s)
			}
		}
		if sh, ok := ev.Params.(sharer); ok && sh.shared() && (ev.Target == "" || ev.Target == HostTarget) {
			bad(ev.Path+".params.share", "true", "needs a server or the driver as target: the noise joins the target's cgroup")
		}
		if noise && !ev.Off() {
			if _, err := exec.LookPath(stressNG); err != nil {
				bad(ev.Path+".kind", ev.Kind.Name(), "needs stress-ng, which is not installed (Debian package stress-ng: apt-get install stress-ng)")
			}
		}
	}
	return dedupe(problems)
}

// exclusive is a kind of which two occurrences must not overlap on one
// server (a freeze: the second's thaw would end the first early).
type exclusive interface{ exclusive() }

// dedupe keeps the first problem of each path (a repeated event would
// repeat it).
func dedupe(ps []spec.Problem) []spec.Problem {
	seen := map[string]bool{}
	var out []spec.Problem
	for _, p := range ps {
		k := p.Path + "\x00" + p.Allowed
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// replicasOf is how many replicas the server named name has.
func replicasOf(name string, servers []Server) int {
	for _, s := range servers {
		if s.Name == name {
			return s.Replicas
		}
	}
	return 0
}

// resolveServer is the server a target names: a server by name, else the
// server of a tenant by name.
func resolveServer(target string, servers []Server) (string, bool) {
	for _, s := range servers {
		if s.Name == target {
			return s.Name, true
		}
	}
	for _, s := range servers {
		if slices.Contains(s.Tenants, target) {
			return s.Name, true
		}
	}
	return "", false
}

func targetNames(servers []Server) []string {
	names := []string{HostTarget, DriverTarget}
	for _, s := range servers {
		names = append(names, s.Name)
		names = append(names, s.Tenants...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// targetWords lists what a target may be in a run.
func targetWords(servers []Server) string {
	var srv, ten []string
	for _, s := range servers {
		srv = append(srv, s.Name)
		ten = append(ten, s.Tenants...)
	}
	return fmt.Sprintf("servers %s; tenants %s (their server); host and driver for noise", strings.Join(srv, ", "), strings.Join(ten, ", "))
}
