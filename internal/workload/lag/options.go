package lag

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Options are lag's keys of workload.options.
type Options struct {
	// Insert, Update and Delete are the operations' shares in percent
	// (Zhang et al. 2025, section V-F: (60, 30, 10), (100, 0, 0),
	// (0, 100, 0), (0, 0, 100)); they add up to 100.
	Insert, Update, Delete int
	// Timeout bounds the wait for one change to show on a replica: a
	// change not seen by then fails its transaction.
	Timeout time.Duration
	// Poll is the pause between two reads of the replica; 0 reads again
	// at once, each read then taking a round trip: the lag is measured
	// to within one round trip plus Poll.
	Poll time.Duration
}

// DefaultOptions are the paper's first pattern, (60, 30, 10), a 10 s
// timeout and no pause between reads.
func DefaultOptions() Options {
	return Options{Insert: 60, Update: 30, Delete: 10, Timeout: 10 * time.Second}
}

const optionsPath = "workload.options"

// Parse decodes workload.options strictly: mix {insert, update, delete}
// in percent, timeout, poll.
func Parse(node *yaml.Node) (any, []spec.Problem) {
	opts := DefaultOptions()
	d := spec.NewDecoder()
	share := spec.Where(spec.ReadInt, spec.Within(0, 100), "must be a percentage from 0 to 100")
	mixed := false
	d.Mapping(node, optionsPath, []spec.Field{
		{Key: "mix", Read: func(n *yaml.Node, p string) {
			if spec.IsNull(n) {
				return
			}
			mixed = true
			opts.Insert, opts.Update, opts.Delete = 0, 0, 0
			d.Mapping(n, p, []spec.Field{
				{Key: "insert", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, share, &opts.Insert) }},
				{Key: "update", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, share, &opts.Update) }},
				{Key: "delete", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, share, &opts.Delete) }},
			})
		}},
		{Key: "timeout", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadDuration, (*spec.Duration)(&opts.Timeout)) }},
		{Key: "poll", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadDuration, (*spec.Duration)(&opts.Poll)) }},
	})
	if problems := d.Problems(); problems != nil {
		return nil, problems
	}
	var out []spec.Problem
	if sum := opts.Insert + opts.Update + opts.Delete; mixed && sum != 100 {
		out = append(out, spec.Problem{Path: optionsPath + ".mix", Value: fmt.Sprintf("%d+%d+%d", opts.Insert, opts.Update, opts.Delete),
			Allowed: "the shares of insert, update and delete must add up to 100 (Zhang et al. 2025: 60/30/10, 100/0/0, 0/100/0, 0/0/100)"})
	}
	if opts.Timeout <= 0 {
		out = append(out, spec.Problem{Path: optionsPath + ".timeout", Value: opts.Timeout.String(), Allowed: "must be longer than 0s"})
	}
	if opts.Poll < 0 {
		out = append(out, spec.Problem{Path: optionsPath + ".poll", Value: opts.Poll.String(), Allowed: "must be 0s or longer"})
	}
	if len(out) > 0 {
		return nil, out
	}
	return opts, nil
}
