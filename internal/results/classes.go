package results

import (
	"path/filepath"
	"strconv"
)

// SLA is what a tenant must get: an open load's achieved rate at least
// MinRateRatio of its target, a p95 latency at most P95Ms; a zero figure
// asks nothing.
type SLA struct {
	MinRateRatio float64 `json:"min_rate_ratio,omitempty"`
	P95Ms        float64 `json:"p95_ms,omitempty"`
}

// Meets says whether tenant t got what s asks: every figure asked for
// measured and within it, and no lost connection. The rate is judged
// against what the tenant's arrivals offered in the measured part, not
// the target: Poisson arrivals offer the target give or take its square
// root (10 in 3 s at 5 per second happens), and the SLA judges the
// system, not the draw; arrivals still waiting at the end count as
// dropped, so a saturated system falls short. A tenant offered nothing
// was denied nothing. A tenant that committed nothing has no latency to
// meet p95 with.
func (s SLA) Meets(t *TenantTotals) bool {
	if t.ConnLost != "" {
		return false
	}
	if s.MinRateRatio > 0 {
		o := t.Open
		if o == nil || float64(o.Arrivals-o.Dropped) < s.MinRateRatio*float64(o.Arrivals) {
			return false
		}
	}
	if s.P95Ms > 0 && (t.Committed == 0 || t.P95Ms > s.P95Ms) {
		return false
	}
	return true
}

// ClassTotals is one class of a run's tenants (tenancy.classes), its
// tenants' figures aggregated as the run's are (AggregateOf): summed
// throughput, macro-averaged mean latency, the worst tenant's p95 and
// p99; and how many of its tenants met their SLA.
type ClassTotals struct {
	Class     string  `json:"class"`
	Tenants   int     `json:"tenants"`
	TPS       float64 `json:"throughput_tps"`
	MeanMs    float64 `json:"latency_mean_ms"`
	P95Ms     float64 `json:"latency_p95_ms"`
	P99Ms     float64 `json:"latency_p99_ms"`
	Committed int64   `json:"committed"`
	Failed    int64   `json:"failed"`
	// SLATenants are the class's tenants with an SLA, SLAMetTenants those
	// of them that met it.
	SLATenants    int `json:"sla_tenants"`
	SLAMetTenants int `json:"sla_met_tenants"`
}

// judge marks each tenant that has an SLA (slas, by tenant) as meeting it
// or not, and counts them into the run's aggregate.
func judge(sum *Summary, slas map[string]SLA) {
	if len(slas) == 0 {
		return
	}
	with, met := 0, 0
	for i := range sum.Tenant {
		t := &sum.Tenant[i]
		s, ok := slas[t.Tenant]
		if !ok {
			continue
		}
		// A failed run's tenants did not get what was asked, whatever
		// they measured before it failed.
		ok = sum.Status == StatusOK && s.Meets(t)
		t.SLAMet = &ok
		with++
		if ok {
			met++
		}
	}
	if with == 0 {
		return
	}
	all := met == with
	sum.Provider.SLAMetTenants, sum.Provider.SLAMet = &met, &all
}

// classTotals aggregates the tenants by class (classes, by tenant), in
// the order each class's first tenant comes; nil without classes.
func classTotals(tenants []TenantTotals, classes map[string]string) []ClassTotals {
	if len(classes) == 0 {
		return nil
	}
	var out []ClassTotals
	at := map[string]int{}
	var members [][]TenantTotals
	for _, t := range tenants {
		c, ok := classes[t.Tenant]
		if !ok {
			continue
		}
		k, seen := at[c]
		if !seen {
			k = len(out)
			at[c] = k
			out = append(out, ClassTotals{Class: c})
			members = append(members, nil)
		}
		members[k] = append(members[k], t)
	}
	for k := range out {
		a := AggregateOf(members[k], nil)
		ct := &out[k]
		ct.Tenants, ct.TPS, ct.MeanMs, ct.P95Ms, ct.P99Ms = len(members[k]), a.TPS, a.MeanMs, a.P95Ms, a.P99Ms
		ct.Committed, ct.Failed = a.Committed, a.Failed
		for _, t := range members[k] {
			if t.SLAMet != nil {
				ct.SLATenants++
				if *t.SLAMet {
					ct.SLAMetTenants++
				}
			}
		}
	}
	return out
}

// ClassesHeader is the header of classes.csv.
var ClassesHeader = []string{"run_id", "model", "tenants", "class", "class_tenants", "status", "throughput_tps",
	"latency_mean_ms", "latency_p95_ms", "latency_p99_ms", "committed", "failed", "sla_tenants", "sla_met_tenants"}

// AppendClasses adds a run's classes to classes.csv, a row per class:
// results.csv keeps a row per run, and this file breaks its throughput,
// latency and SLA down by class. Nothing is written for a run without
// classes.
func (d *Dir) AppendClasses(s *Summary) error {
	if len(s.Classes) == 0 {
		return nil
	}
	rows := make([][]string, 0, len(s.Classes))
	wl := s.workloadMeasured()
	for _, c := range s.Classes {
		sla, met := "", ""
		if c.SLATenants > 0 {
			sla, met = itoa(c.SLATenants), itoa(c.SLAMetTenants)
		}
		rows = append(rows, []string{s.RunID, s.Model, itoa(s.Tenants), c.Class, itoa(c.Tenants), s.Status,
			ifMeasured(wl, ftoa(c.TPS)), ifMeasured(wl, ftoa(c.MeanMs)), ifMeasured(wl, ftoa(c.P95Ms)),
			ifMeasured(wl, ftoa(c.P99Ms)), ifMeasured(wl, strconv.FormatInt(c.Committed, 10)),
			ifMeasured(wl, strconv.FormatInt(c.Failed, 10)), sla, ifMeasured(wl, met)})
	}
	return d.appendCSV(filepath.Join(d.Path, "classes.csv"), ClassesHeader, rows)
}

// slaOfRuns is the SLA attainment of a point's repetitions: the fewest
// tenants any successful repetition met it with, and whether every one
// met it; nil when no repetition judged an SLA.
func slaOfRuns(ok []Aggregate) (*int, *bool) {
	var least *int
	all := true
	for _, a := range ok {
		if a.SLAMetTenants == nil {
			return nil, nil
		}
		if least == nil || *a.SLAMetTenants < *least {
			n := *a.SLAMetTenants
			least = &n
		}
		all = all && *a.SLAMet
	}
	if least == nil {
		return nil, nil
	}
	return least, &all
}

// slaCells are results.csv's sla_met_tenants and sla_met.
func slaCells(a *Aggregate) []string {
	if a.SLAMetTenants == nil {
		return []string{"", ""}
	}
	return []string{itoa(*a.SLAMetTenants), strconv.FormatBool(*a.SLAMet)}
}
