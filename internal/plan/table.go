package plan

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// WriteTable prints the plan for people: the experiment, one row per run
// and, under a schedule or pattern, the first tenants' targets per slot.
func (p *Plan) WriteTable(w io.Writer) error {
	sp := &spec.Plan{Spec: p.Spec, SettingKeys: p.SettingKeys, StreamsEnd: p.StreamsEnd}
	for _, r := range p.Runs {
		sp.Runs = append(sp.Runs, r.Run)
	}
	if err := sp.WriteTable(w); err != nil {
		return err
	}
	if err := p.writeInteractions(w); err != nil {
		return err
	}
	return p.writeTargets(w)
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
		seen[key] = true
		lp := p.Targets(r)
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
