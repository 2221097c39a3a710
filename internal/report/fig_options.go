package report

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// optionLabels names, for each run of the plan, the workload options in
// which the plan's runs differ (a case's all_warehouses: Matos and
// Pedreira 2025 draw TPM over time apart for all-warehouses off and on,
// Fig. 2-3 and 11-12): "all_warehouses=true", by run ID; nil when no
// option's value differs between runs. Only top-level scalar options
// count; "(default)" stands for a key a run does not write.
func (e *experiment) optionLabels() map[string]string {
	if e.plan == nil {
		return nil
	}
	values := map[string]map[string]string{} // run ID -> key -> value
	seen := map[string]map[string]bool{}     // key -> values
	for _, r := range e.plan.Runs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(r.Options), &m); err != nil {
			continue
		}
		vs := map[string]string{}
		for k, v := range m {
			switch v.(type) {
			case map[string]any, []any:
				continue
			}
			vs[k] = fmt.Sprint(v)
		}
		values[r.ID] = vs
		for k, v := range vs {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			seen[k][v] = true
		}
	}
	// A run that does not write a key has the workload's default, which
	// differs from a value another run writes (as far as the report can
	// tell: it does not know the defaults).
	var keys []string
	for k, vs := range seen {
		missing := false
		for _, r := range values {
			if _, ok := r[k]; !ok {
				missing = true
			}
		}
		if len(vs) > 1 || missing {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	out := map[string]string{}
	for id, vs := range values {
		var parts []string
		for _, k := range keys {
			v, ok := vs[k]
			if !ok {
				v = "(default)"
			}
			parts = append(parts, k+"="+v)
		}
		out[id] = strings.Join(parts, ", ")
	}
	return out
}
