package plan

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// WriteTable prints the plan for people: the experiment, one row per run
// and, under a schedule or pattern, the first tenants' targets per slot.
func (p *Plan) WriteTable(w io.Writer) error {
	sp := &spec.Plan{Spec: p.Spec, SettingKeys: p.SettingKeys, InterferenceKeys: p.InterferenceKeys, StreamsEnd: p.StreamsEnd}
	for _, r := range p.Runs {
		sp.Runs = append(sp.Runs, r.Run)
	}
	if err := sp.WriteTable(w); err != nil {
		return err
	}
	if err := p.writeOrder(w); err != nil {
		return err
	}
	if err := p.writePlacements(w); err != nil {
		return err
	}
	if d := p.Resources.describe(); d != "" {
		if _, err := fmt.Fprintln(w, d); err != nil {
			return err
		}
	}
	if p.Replication != "" {
		reads := "the workload's reads stay on the primary"
		switch {
		case p.ReplicaUser:
			reads = "the workload reads its writes back from them"
		case p.Reads == spec.ReadsReplicas:
			reads = "the workload's read-only transactions go to them, round-robin per client"
		}
		if _, err := fmt.Fprintf(w, "replicas: hot standbys of every server (column replicas), streaming, %s, made after post-ingest; %s\n",
			p.Replication, reads); err != nil {
			return err
		}
	}
	if err := p.writeInterference(w); err != nil {
		return err
	}
	if err := p.writeClasses(w); err != nil {
		return err
	}
	if err := p.writeInteractions(w); err != nil {
		return err
	}
	if err := p.writeServers(w, p.models); err != nil {
		return err
	}
	if err := p.writeCores(w); err != nil {
		return err
	}
	return p.writeTargets(w)
}

// writeInterference lists the interference every run gets, an occurrence
// at a time; a param that is a matrix dimension is shown by run (its
// column in the runs' table) rather than with the event.
func (p *Plan) writeInterference(w io.Writer) error {
	if p.Spec == nil || len(p.Runs) == 0 {
		return nil
	}
	events, _ := interfere.Parse(p.Spec.InterferenceOf(&p.Runs[0].Run))
	if len(events) == 0 {
		return nil
	}
	phase := p.Spec.Workload.Phase()
	var b strings.Builder
	b.WriteString("interference in every run (seconds since the workload phase started):\n")
	for _, ev := range events {
		var byRun []string
		for _, k := range p.InterferenceKeys {
			if strings.HasPrefix(k, ev.Path+".") {
				byRun = append(byRun, k)
			}
		}
		target := ev.Target
		if target == "" {
			target = interfere.HostTarget
		}
		var at []string
		for _, t := range ev.Occurrences(phase) {
			at = append(at, strconv.FormatFloat(t.Seconds(), 'f', -1, 64))
		}
		line := fmt.Sprintf("  %s %s at %s", ev.Kind.Name(), target, strings.Join(at, ", "))
		if ev.Duration > 0 {
			line += fmt.Sprintf(" for %v", ev.Duration)
		}
		switch {
		case len(byRun) > 0:
			line += fmt.Sprintf(" (%s: by run, its column above)", strings.Join(byRun, ", "))
		case ev.Off():
			line += " (off: no noise)"
		default:
			if ps := ev.Params.String(); ps != "" {
				line += " (" + ps + ")"
			}
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeClasses writes the tenants of each class, once for the runs of
// the same tenants, scale and clients: how many, which, their scale,
// connections, workload and SLA.
func (p *Plan) writeClasses(w io.Writer) error {
	var b strings.Builder
	seen := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		key := fmt.Sprint(r.Tenants, r.Scale, r.Clients, r.Rate, r.Case)
		if seen[key] || len(r.TenantList) == 0 || r.TenantList[0].Class == "" {
			continue
		}
		seen[key] = true
		fmt.Fprintf(&b, "classes of run %s (%d tenants):\n", r.ID, r.Tenants)
		for _, c := range ClassesOf(r) {
			first, last := c.Tenants[0], c.Tenants[len(c.Tenants)-1]
			t := r.TenantList[first]
			names := t.Name
			if last != first {
				names += ".." + r.TenantList[last].Name
			}
			line := fmt.Sprintf("  %s: %d tenants (%s), scale %s, %d conns", c.Name, len(c.Tenants), names,
				strconv.FormatFloat(t.Scale, 'g', -1, 64), t.Conns)
			if t.Workload != "" {
				line += ", workload " + t.Workload
			}
			if t.Options != "" {
				line += ", own options"
			}
			if s := t.SLA; s != nil {
				line += ", sla"
				if s.MinRateRatio > 0 {
					line += fmt.Sprintf(" rate >= %g x target", s.MinRateRatio)
				}
				if s.P95 > 0 {
					line += " p95 <= " + s.P95.String()
				}
			}
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Class is one class of a run's tenants: its name and the indexes of its
// tenants in the run's TenantList, in order.
type Class struct {
	Name    string
	Tenants []int
}

// ClassesOf are the classes of run r in the order their first tenant
// comes; none when its tenants have no class.
func ClassesOf(r *Run) []Class {
	var out []Class
	at := map[string]int{}
	for i, t := range r.TenantList {
		if t.Class == "" {
			continue
		}
		k, ok := at[t.Class]
		if !ok {
			k = len(out)
			at[t.Class] = k
			out = append(out, Class{Name: t.Class})
		}
		out[k].Tenants = append(out[k].Tenants, i)
	}
	return out
}

// writeInteractions names the workload's interaction modes, when it has
// them: each with the runs that use it.
func (p *Plan) writeInteractions(w io.Writer) error {
	var modes []string
	runs := map[string][]string{}
	for _, r := range p.Runs {
		if r.Interaction == "" {
			continue
		}
		if runs[r.Interaction] == nil {
			modes = append(modes, r.Interaction)
		}
		runs[r.Interaction] = append(runs[r.Interaction], r.ID)
	}
	if len(modes) == 0 {
		return nil
	}
	parts := make([]string, len(modes))
	for i, m := range modes {
		parts[i] = m
		if len(modes) > 1 {
			parts[i] += " (runs " + strings.Join(runs[m], ", ") + ")"
		}
	}
	_, err := fmt.Fprintf(w, "interaction: %s\n", strings.Join(parts, "; "))
	return err
}

// writeTargets writes each tenant's mean target per result slot, for the
// runs of a plan with a schedule or pattern: the first 10 tenants and 24
// slots, once for runs of the same tenants, rate and pattern, for 12 such
// runs.
func (p *Plan) writeTargets(w io.Writer) error {
	if !p.Load.Varies || p.Spec == nil {
		return nil
	}
	const tenants, slots, runs = 10, 24, 12
	phase := p.Spec.Workload.Phase()
	seen := map[string]bool{}
	var b strings.Builder
	for i := range p.Runs {
		r := &p.Runs[i]
		key := fmt.Sprint(r.Tenants, r.Rate, r.Pattern, r.Clients)
		if seen[key] {
			continue
		}
		if len(seen) == runs {
			b.WriteString("(targets of further runs left out)\n")
			break
		}
		lp := p.Targets(r)
		if !lp.Scheduled() {
			continue // a case without a pattern, beside cases with one
		}
		seen[key] = true
		head := fmt.Sprintf("%d tenants", r.Tenants)
		if r.Tenants == 1 {
			head = "1 tenant"
		}
		if r.Pattern != "" {
			head = r.Pattern + ", " + head
		}
		if r.Rate > 0 {
			head += fmt.Sprintf(", rate %g", r.Rate)
		}
		fmt.Fprintf(&b, "targets per slot (%s) of run %s (%s):\n", p.Load.Unit, r.ID, head)
		for ti, t := range lp.Tenants {
			if ti == tenants {
				fmt.Fprintf(&b, "  ... %d tenants more\n", r.Tenants-tenants)
				break
			}
			var vals []string
			for j, from := range t.Windows {
				if j == slots {
					vals = append(vals, fmt.Sprintf("... %d slots more", len(t.Windows)-slots))
					break
				}
				to := phase
				if j+1 < len(t.Windows) {
					to = t.Windows[j+1]
				}
				vals = append(vals, strconv.FormatFloat(math.Round(t.Profile.Mean(from, to)*100)/100, 'f', -1, 64))
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", r.TenantList[ti].Name, strings.Join(vals, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
