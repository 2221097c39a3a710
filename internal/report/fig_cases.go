package report

import "slices"

// caseBars draws each workload case's throughput as grouped bars, a bar
// per engine (or whatever else tells a case's points apart) with
// whiskers from the lowest to the highest repetition, as Matos and
// Pedreira (2025) compare their configurations: average TPM per
// configuration (Fig. 4-5, 13-14) and the engines side by side (Fig. 17).
// In TPM when every run reports NOPM (a TPC-C workload), else tx/s; at
// the largest tenant count. nil without workload.cases.
func (e *experiment) caseBars() *figure {
	if !e.vary.cases {
		return nil
	}
	const id, title = "cases", "Throughput per case"
	points := e.largestPoints()
	var cases, series []string
	at := map[string]map[string]*point{} // case -> series -> point
	for _, p := range points {
		rest := p.inCase
		if at[p.kase] == nil {
			at[p.kase] = map[string]*point{}
			cases = append(cases, p.kase)
		}
		if !slices.Contains(series, rest) {
			series = append(series, rest)
		}
		at[p.kase][rest] = p
	}
	if len(cases) == 0 {
		return missing(id, title, "no successful run.")
	}
	factor, axis := 1.0, "Throughput (tx/s)"
	if unit := e.timeUnit(points); unit.factor != 1 {
		factor, axis = unit.factor, "TPM (tx/min)"
	}
	c := newChart(title, "", axis)
	top := 0.0
	for k, s := range series {
		off, w := groupOffset(k, len(series))
		b := &bars{width: w, color: colorOf(k)}
		var xs, means, mins, maxs []float64
		for i, cs := range cases {
			p := at[cs][s]
			if p == nil {
				continue
			}
			st, ok := statOf(p, mThroughput)
			if !ok {
				continue
			}
			x := float64(i) + off
			b.add(x, 0, st.Mean*factor)
			xs, means = append(xs, x), append(means, st.Mean*factor)
			mins, maxs = append(mins, st.Min*factor), append(maxs, st.Max*factor)
			top = max(top, st.Max*factor)
		}
		c.Add(b)
		c.addLegend(s, b)
		if eb, err := minMaxBars(xs, means, mins, maxs); err == nil {
			c.Add(eb)
		}
	}
	c.nominalX(cases)
	fromZero(c.Plot, top)
	caption := "The mean throughput of each case of workload.cases over its successful repetitions (results.csv " +
		"throughput_tps), a bar per engine and deployment, whiskers from the lowest to the highest repetition; "
	if factor != 1 {
		caption += "in TPM, x 60 (results.csv's tpm also counts the expected rollbacks), as Matos and Pedreira (2025, " +
			"Fig. 4-5, 13-14 and 17) compare their configurations and engines."
	} else {
		caption += "as Matos and Pedreira (2025, Fig. 4-5 and 17) compare their configurations and engines."
	}
	return drawn(id, caption, c)
}
