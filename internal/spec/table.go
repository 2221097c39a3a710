package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WorkloadTime is the time the plan spends in the workload phase: every
// run's warmup and duration (at most, when StreamsEnd). Provisioning,
// loading and checks come on top and depend on the machine, so they are
// not guessed.
func (p *Plan) WorkloadTime() time.Duration {
	per := p.Spec.Workload.Warmup.D() + p.Spec.Workload.Duration.D()
	return time.Duration(len(p.Runs)) * per
}

// WriteTable prints the plan for people: a header line with the
// experiment's name, its number of runs and its workload time, then one
// aligned row per run with the values that vary from run to run (the
// matrix dimensions and the repetition).
func (p *Plan) WriteTable(w io.Writer) error {
	s := p.Spec
	runs := "runs"
	if len(p.Runs) == 1 {
		runs = "run"
	}
	upTo, ends := "", ""
	if p.StreamsEnd {
		upTo, ends = "up to ", "; a run ends sooner when its query streams have run their queries"
	}
	if _, err := fmt.Fprintf(w, "experiment %s: %d %s, workload time %s%s (%d x (warmup %s + duration %s%s), without provisioning and loading%s)\n",
		s.Name, len(p.Runs), runs, upTo, Duration(p.WorkloadTime()), len(p.Runs), s.Workload.Warmup, upTo, s.Workload.Duration, ends); err != nil {
		return err
	}
	if d := s.Workload.describe(); d != "" {
		if _, err := fmt.Fprintf(w, "load: %s\n", d); err != nil {
			return err
		}
	}
	if o := p.orderLine(); o != "" {
		if _, err := fmt.Fprintf(w, "order: %s\n", o); err != nil {
			return err
		}
	}
	if len(s.Tenancy.Guards) > 0 {
		if _, err := fmt.Fprintf(w, "tenancy guards: %s (set after post-ingest)\n", strings.Join(s.Tenancy.Guards, ", ")); err != nil {
			return err
		}
	}
	rates, patterns := len(s.Workload.rates()) > 1, len(s.Workload.patterns()) > 1
	for _, c := range s.Workload.Cases {
		patterns = patterns || c.Pattern != nil // the runs' patterns differ by case
	}
	// How tenants get their data, when some run clones it.
	cloned := false
	for _, r := range p.Runs {
		cloned = cloned || r.Provision == ProvisionClone
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"run", "model", "tenants", "scale", "clients"}
	cases := len(s.Workload.Cases) > 0
	if cases {
		head = append([]string{"run", "case"}, head[1:]...)
	}
	if cloned {
		head = append(head, "provision")
	}
	if rates {
		head = append(head, "rate")
	}
	if patterns {
		head = append(head, "pattern")
	}
	// Storage and CPU placement: shown once any run asks for other than
	// today's, so that a plan of disk, shared, none reads as before.
	placed := s.SUT.Placed()
	if placed {
		head = append(head, "storage", "volume", "cpu_policy")
	}
	// The clients' placement: shown whenever sut.placement names them.
	clientsPlaced := len(s.SUT.Placement) > 0
	if clientsPlaced {
		head = append(head, "placement")
	}
	// Replicas: shown once any run has some.
	replicated := false
	for _, r := range p.Runs {
		replicated = replicated || r.Replicas > 0
	}
	if replicated {
		head = append(head, "replicas")
	}
	head = append(head, p.SettingKeys...)
	head = append(head, p.InterferenceKeys...)
	head = append(head, "rep")
	// The engine, a dimension when sut.engine lists several, right after
	// the run (and its case, outer to it).
	engines := len(s.SUT.Engine) > 1
	at := 1
	if cases {
		at = 2
	}
	if engines {
		head = append(head[:at], append([]string{"engine"}, head[at:]...)...)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range p.Runs {
		row := []string{r.ID, r.Model, strconv.Itoa(r.Tenants), strconv.FormatFloat(r.Scale, 'g', -1, 64), strconv.Itoa(r.Clients)}
		if cases {
			row = append([]string{r.ID, r.Case}, row[1:]...)
		}
		if cloned {
			row = append(row, r.Provision)
		}
		if rates {
			rate := strconv.FormatFloat(r.Rate, 'g', -1, 64)
			if r.Pattern != "" {
				rate = "" // the pattern gives the rates
			}
			row = append(row, rate)
		}
		if patterns {
			row = append(row, r.Pattern)
		}
		if placed {
			row = append(row, r.Storage, r.Volume, r.CPUPolicy)
		}
		if clientsPlaced {
			row = append(row, r.Placement)
		}
		if replicated {
			row = append(row, strconv.Itoa(r.Replicas))
		}
		for _, k := range p.SettingKeys {
			row = append(row, r.Settings[k])
		}
		for _, k := range p.InterferenceKeys {
			row = append(row, r.Interference[k])
		}
		row = append(row, strconv.Itoa(r.Repetition))
		if engines {
			row = append(row[:at], append([]string{r.Engine}, row[at:]...)...)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// orderLine says in a line how the runs follow each other, "" when
// nothing repeats and no order was written (one run per point: every order
// is the same).
func (p *Plan) orderLine() string {
	s := p.Spec
	if s.Repeat == 1 && s.OrderDefaulted() {
		return ""
	}
	o := s.RunOrder()
	head := o
	if s.OrderDefaulted() {
		head += fmt.Sprintf(" (the default with repeat %d)", s.Repeat)
	}
	points := len(p.Runs) / s.Repeat
	switch o {
	case OrderInterleaved:
		return fmt.Sprintf("%s: %d rounds, each runs every one of the %d points once, in matrix order, every second round reversed; the rep column is the round",
			head, s.Repeat, points)
	case OrderShuffled:
		return fmt.Sprintf("%s: %d rounds, each runs every one of the %d points once, in an order drawn from seed %d; the rep column is the round",
			head, s.Repeat, points, s.Seed)
	}
	return fmt.Sprintf("%s: the %d repetitions of each point back to back", head, s.Repeat)
}
