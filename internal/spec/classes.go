package spec

import (
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"
)

// Class is one entry of tenancy.classes: a kind of tenant with its own
// size and load, so that one run holds unlike tenants, as Oracle 2014
// (Table 11) ran small, medium and large databases a third each. A class
// takes a share of the run's tenants or a count of them; what it does not
// set (scale, clients, rate, workload, options, sla) it takes from the run.
type Class struct {
	Name  string  `yaml:"name"`
	Share float64 `yaml:"share,omitempty"`
	Count int     `yaml:"count,omitempty"`
	// Scale, Clients and Rate replace the run's workload.scale,
	// workload.clients and workload.load.rate for the class's tenants.
	Scale   *float64 `yaml:"scale,omitempty"`
	Clients *int     `yaml:"clients,omitempty"`
	Rate    *float64 `yaml:"rate,omitempty"`
	// Workload is the class's own workload name, "" for workload.name;
	// Options its workload.options: merged over the run's when the
	// workload is the run's, its own otherwise.
	Workload string    `yaml:"workload,omitempty"`
	Options  yaml.Node `yaml:"options,omitempty"`
	// SLA replaces the keys of workload.sla it sets.
	SLA *SLA `yaml:"sla,omitempty"`
}

// SLA is what each tenant must get (workload.sla, or a class's): an open
// load's achieved rate at least MinRateRatio of its target, and a p95
// latency at most P95. A zero key asks nothing.
type SLA struct {
	MinRateRatio float64  `yaml:"min_rate_ratio,omitempty" json:"min_rate_ratio,omitempty"`
	P95          Duration `yaml:"p95,omitempty" json:"p95_ns,omitempty"`
}

// Empty says the SLA asks nothing.
func (s *SLA) Empty() bool { return s == nil || (s.MinRateRatio == 0 && s.P95 == 0) }

// over is a with the keys b sets replacing a's.
func (a *SLA) over(b *SLA) *SLA {
	if b == nil {
		return a
	}
	out := SLA{}
	if a != nil {
		out = *a
	}
	if b.MinRateRatio != 0 {
		out.MinRateRatio = b.MinRateRatio
	}
	if b.P95 != 0 {
		out.P95 = b.P95
	}
	if out.Empty() {
		return nil
	}
	return &out
}

func (d *Decoder) sla(n *yaml.Node, path string, dst **SLA) {
	if IsNull(resolve(n)) {
		return
	}
	var s SLA
	d.Mapping(n, path, []Field{
		{"min_rate_ratio", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.MinRateRatio) }},
		{"p95", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.P95) }},
	})
	*dst = &s
}

func (d *Decoder) classes(n *yaml.Node, path string, dst *[]Class) {
	out := []Class{}
	d.Seq(n, path, "classes ({name: small, share: 0.5, scale: 1, clients: 1})", func(e *yaml.Node, p string) {
		var c Class
		d.Mapping(e, p, []Field{
			{"name", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &c.Name) }},
			{"share", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &c.Share) }},
			{"count", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadInt, &c.Count) }},
			{"scale", func(n *yaml.Node, p string) { optional(d, n, p, ReadFloat, &c.Scale) }},
			{"clients", func(n *yaml.Node, p string) { optional(d, n, p, ReadInt, &c.Clients) }},
			{"rate", func(n *yaml.Node, p string) { optional(d, n, p, ReadFloat, &c.Rate) }},
			{"workload", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &c.Workload) }},
			{"options", func(n *yaml.Node, p string) { d.options(n, p, &c.Options) }},
			{"sla", func(n *yaml.Node, p string) { d.sla(n, p, &c.SLA) }},
		})
		out = append(out, c)
	})
	if !IsNull(n) {
		*dst = out
	}
}

// optional reads a value that is nil when not written.
func optional[T any](d *Decoder, n *yaml.Node, path string, read Reader[T], dst **T) {
	if IsNull(n) {
		return
	}
	var v T
	if Scalar(d, n, path, read, &v) {
		*dst = &v
	}
}

// shareSlack is how far the shares may sum from 1: written as thirds
// (0.33, 0.33, 0.34) they still sum to 1 within it.
const shareSlack = 0.011

// classes checks tenancy.classes: named once each, every class a share
// or every class a count (shares summing to 1, counts to every value of
// tenancy.tenants), values within the spec's own limits, rate only under
// an open load and clients or rate only where no schedule gives them.
func (v *validator) classes(s *Spec) {
	cs := s.Tenancy.Classes
	if cs == nil {
		return
	}
	if len(cs) == 0 {
		v.add("tenancy.classes", "", "must not be an empty list: give at least one class, or leave the key out")
		return
	}
	w := &s.Workload
	seen := map[string]int{}
	shares, counts, sum, total := 0, 0, 0.0, 0
	for i, c := range cs {
		p := index("tenancy.classes", i)
		switch {
		case c.Name == "":
			v.add(join(p, "name"), "", "required: the class's name, in the plan and in the results (letters, digits, '-', '_', '.')")
		case len(c.Name) > maxNameLen || !experimentName.MatchString(c.Name):
			v.add(join(p, "name"), shown(c.Name), fmt.Sprintf("must be letters, digits, '-', '_' and '.', starting with a letter or digit, at most %d characters", maxNameLen))
		default:
			if j, dup := seen[c.Name]; dup {
				v.add(join(p, "name"), shown(c.Name), fmt.Sprintf("already the name of tenancy.classes[%d]; each class needs its own", j))
			}
			seen[c.Name] = i
		}
		switch {
		case c.Share != 0 && c.Count != 0:
			v.add(p, "", "give share or count, not both")
		case c.Share == 0 && c.Count == 0:
			v.add(p, "", "needs share (a fraction of the run's tenants, 0 to 1) or count (a number of tenants)")
		case c.Share != 0:
			shares++
			if !(c.Share > 0 && c.Share <= 1) {
				v.add(join(p, "share"), fmt.Sprint(c.Share), "must be more than 0 and at most 1 (a fraction of the run's tenants)")
			} else {
				sum += c.Share
			}
		default:
			counts++
			if c.Count < 1 || c.Count > MaxTenants {
				v.add(join(p, "count"), fmt.Sprint(c.Count), fmt.Sprintf("must be 1..%d tenants", MaxTenants))
			} else {
				total += c.Count
			}
		}
		if c.Scale != nil {
			if msg := scaleRule(*c.Scale); msg != "" {
				v.add(join(p, "scale"), fmt.Sprint(*c.Scale), msg)
			}
		}
		v.classLoad(w, p, &c)
		v.slaRule(w, join(p, "sla"), c.SLA)
	}
	switch {
	case shares > 0 && counts > 0:
		v.add("tenancy.classes", "", "every class gives a share or every class a count; they cannot be mixed")
	case shares == len(cs) && math.Abs(sum-1) > shareSlack:
		v.add("tenancy.classes", fmt.Sprintf("shares summing to %g", sum), "the shares must sum to 1")
	case counts == len(cs) && total > 0:
		for i, t := range s.Tenancy.Tenants {
			if t != total {
				v.add(index("tenancy.tenants", i), fmt.Sprint(t), fmt.Sprintf(
					"the counts of tenancy.classes sum to %d tenants; set tenancy.tenants to %d, or give the classes shares", total, total))
			}
		}
	}
}

// classLoad checks a class's clients and rate against the load shape.
func (v *validator) classLoad(w *Workload, p string, c *Class) {
	closed := w.target().Clients
	if c.Clients != nil {
		if msg := clientsRule(*c.Clients); msg != "" {
			v.add(join(p, "clients"), fmt.Sprint(*c.Clients), msg)
		} else if closed && w.setsTarget() {
			v.add(join(p, "clients"), fmt.Sprint(*c.Clients), "the schedule or pattern gives every tenant's clients; remove it here")
		}
	}
	if c.Rate == nil {
		return
	}
	switch {
	case closed:
		v.add(join(p, "rate"), fmt.Sprint(*c.Rate), "a rate needs an open load (workload.load.shape: open); give the class clients instead")
	case w.setsTarget():
		v.add(join(p, "rate"), fmt.Sprint(*c.Rate), "the schedule or pattern gives every tenant's rate; remove it here")
	case !(*c.Rate > 0) || *c.Rate > MaxRate:
		v.add(join(p, "rate"), fmt.Sprint(*c.Rate), fmt.Sprintf("must be more than 0 and at most %d arrivals per second", MaxRate))
	}
}

// slaRule checks workload.sla or a class's sla.
func (v *validator) slaRule(w *Workload, path string, s *SLA) {
	if s == nil {
		return
	}
	if s.Empty() {
		v.add(path, "", "give min_rate_ratio (0 to 1 of the target rate) or p95 (a latency), or leave the key out")
		return
	}
	if s.MinRateRatio != 0 {
		switch {
		case !(s.MinRateRatio > 0 && s.MinRateRatio <= 1):
			v.add(join(path, "min_rate_ratio"), fmt.Sprint(s.MinRateRatio), "must be more than 0 and at most 1 (achieved rate / target rate)")
		case w.target().Clients:
			v.add(join(path, "min_rate_ratio"), fmt.Sprint(s.MinRateRatio), "needs a target rate: an open load (workload.load.shape: open); a closed load's tenants have none")
		}
	}
	if s.P95 < 0 || (s.P95 > 0 && s.P95.D() < time.Microsecond) {
		v.add(join(path, "p95"), s.P95.String(), "must be a latency of 1us or more, like 20ms")
	}
}

// Assign is the class of each of n tenants, by index into
// tenancy.classes, in contiguous blocks in the order of the classes; nil
// without classes. Counts are taken as they are; shares by the largest
// remainder (Hamilton's method), ties to the earlier class, so that the
// shares of 10 tenants at a third each are 4, 3, 3.
func (t *Tenancy) Assign(n int) []int {
	cs := t.Classes
	if len(cs) == 0 {
		return nil
	}
	sizes := make([]int, len(cs))
	if cs[0].Count > 0 {
		for i, c := range cs {
			sizes[i] = c.Count
		}
	} else {
		sum := 0.0
		for _, c := range cs {
			sum += c.Share
		}
		given, rest := 0, make([]float64, len(cs))
		for i, c := range cs {
			exact := float64(n) * c.Share / sum
			sizes[i] = int(math.Floor(exact))
			rest[i] = exact - float64(sizes[i])
			given += sizes[i]
		}
		for ; given < n; given++ {
			best := 0
			for i := range rest {
				if rest[i] > rest[best]+1e-9 {
					best = i
				}
			}
			sizes[best]++
			rest[best] = -1
		}
	}
	out := make([]int, 0, n)
	for i, k := range sizes {
		for range k {
			if len(out) < n {
				out = append(out, i)
			}
		}
	}
	for len(out) < n { // counts checked against n; never short
		out = append(out, len(cs)-1)
	}
	return out
}

// Member is what one tenant of a run takes from its class: its size,
// load, workload and SLA, resolved.
type Member struct {
	// Class is the index into tenancy.classes, -1 without classes.
	Class int
	// Name is the class's name, "" without classes.
	Name  string
	Scale float64
	// Conns is the connections the tenant opens (as Run.Clients).
	Conns int
	// Clients and Rate are the tenant's base target: workload.clients
	// (closed) and workload.load.rate (open), or its class's.
	Clients int
	Rate    float64
	// Workload and Options are the tenant's workload: the run's unless its
	// class names its own.
	Workload string
	Options  *yaml.Node
	SLA      *SLA
}

// Members resolves every tenant of run r of the spec's plan. Without
// classes every tenant is the run's.
func (s *Spec) Members(r *Run) []Member {
	w := &s.Workload
	opts := &w.Options
	if r.Options != nil {
		opts = r.Options
	}
	run := Member{Class: -1, Scale: r.Scale, Conns: r.Clients, Clients: r.Clients, Rate: r.Rate,
		Workload: s.WorkloadOf(r).Name, Options: opts, SLA: w.SLA.over(nil)}
	assign := s.Tenancy.Assign(r.Tenants)
	out := make([]Member, r.Tenants)
	for i := range out {
		out[i] = run
		if assign == nil {
			continue
		}
		c := &s.Tenancy.Classes[assign[i]]
		m := &out[i]
		m.Class, m.Name, m.SLA = assign[i], c.Name, w.SLA.over(c.SLA)
		if c.Scale != nil {
			m.Scale = *c.Scale
		}
		if c.Rate != nil {
			m.Rate = *c.Rate
		}
		if c.Clients != nil || c.Rate != nil {
			cr := Run{Tenants: r.Tenants, Rate: m.Rate, Pattern: r.Pattern, Case: r.Case}
			clients := r.Clients
			if c.Clients != nil {
				clients = *c.Clients
			}
			m.Clients = clients
			if c.Clients != nil {
				m.Conns = s.conns(&cr, clients)
			}
		}
		switch {
		case c.Workload != "" && c.Workload != w.Name:
			m.Workload, m.Options = c.Workload, &c.Options
		case !IsNull(&c.Options):
			m.Options = MergeOptions(opts, &c.Options)
		}
	}
	return out
}
