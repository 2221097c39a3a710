package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/isolation"
)

// isolationAudit runs the isolation audit when the run asks for it
// (tenancy.isolation: audit): from the first tenant's role against the
// second's, and writes runs/<id>/isolation.csv. What the probes find is
// information about the model, never a failure of the run; an audit that
// cannot run is.
func (e *execution) isolationAudit(ctx context.Context) error {
	if !e.run.Audits() {
		return nil
	}
	if len(e.placements) < 2 {
		e.logf("isolation audit: skipped, it needs two tenants and the run has %d", len(e.placements))
		return nil
	}
	fs, err := isolation.Audit(ctx, e.opts.Models[e.run.Model], e.placements[0], e.placements[1], e.run.Guards)
	if err != nil {
		return err
	}
	e.logf("isolation audit: %s", Tally(fs))
	if e.opts.Out == nil {
		return nil
	}
	return e.opts.Out.WriteFile("runs/"+e.run.ID+"/"+isolation.File, IsolationCSV(e.run.Model, fs), 0o644)
}

// IsolationCSV is the content of isolation.csv for findings of model.
func IsolationCSV(model string, fs []isolation.Finding) []byte {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.WriteAll(isolation.Rows(model, fs)) // to memory
	return b.Bytes()
}

// Tally counts findings by outcome, in a line.
func Tally(fs []isolation.Finding) string {
	n := map[isolation.Outcome]int{}
	var visible []string
	for _, f := range fs {
		n[f.Outcome]++
		if f.Outcome != isolation.Denied {
			visible = append(visible, f.Probe)
		}
	}
	line := fmt.Sprintf("%d probes: %d denied, %d visible, %d possible", len(fs), n[isolation.Denied], n[isolation.Visible], n[isolation.Possible])
	if u := n[isolation.Untested]; u > 0 {
		line += fmt.Sprintf(", %d untested", u)
	}
	if len(visible) > 0 {
		line += " (" + strings.Join(visible, ", ") + ")"
	}
	return line
}
