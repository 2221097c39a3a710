package interfere

import (
	"context"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// held is a kind whose injection is under way until released, and which
// reports the context it ran under when it returns. It is no registered
// kind: the runner is given its event directly.
type held struct {
	lasts   bool
	started chan struct{}
	release chan struct{}
	ctxErr  chan error
}

func (held) Name() string                                   { return "held" }
func (held) Keys() []string                                 { return nil }
func (held) Parse(*spec.Decoder, *yaml.Node, string) Params { return nil }
func (h held) Lasts() bool                                  { return h.lasts }
func (held) Fault() bool                                    { return true }
func (held) Host() bool                                     { return true }
func (h held) Inject(ctx context.Context, _ *Occurrence) (Observed, error) {
	close(h.started)
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	h.ctxErr <- ctx.Err()
	return Observed{}, ctx.Err()
}

type noParams struct{}

func (noParams) String() string { return "" }

func newHeld(lasts bool) held {
	return held{lasts: lasts, started: make(chan struct{}), release: make(chan struct{}), ctxErr: make(chan error, 1)}
}

// TestPhaseEndLetsInstantFaultFinish: the phase ends (Stop) while an
// instant fault is being injected: the injection goes on under the run's
// context until it is done, and its record has no error; a lasting kind
// ends with the phase; the run's own end (Ctrl-C) cuts an instant fault.
func TestPhaseEndLetsInstantFaultFinish(t *testing.T) {
	startWith := func(ctx context.Context, k held) *Runner {
		ev := Event{Path: "interference[0]", Kind: k, Target: HostTarget, Params: noParams{}}
		return Start(ctx, []Event{ev}, time.Minute, &Env{}, time.Now())
	}

	// An instant fault under way when the phase ends.
	k := newHeld(false)
	r := startWith(context.Background(), k)
	<-k.started
	stopped := make(chan []Record)
	go func() { stopped <- r.Stop() }()
	select {
	case err := <-k.ctxErr:
		t.Fatalf("the phase's end cut an instant fault's injection: %v", err)
	case recs := <-stopped:
		t.Fatalf("Stop returned before the injection under way ended: %+v", recs)
	case <-time.After(200 * time.Millisecond):
	}
	close(k.release)
	if err := <-k.ctxErr; err != nil {
		t.Errorf("the instant fault's context ended: %v", err)
	}
	if recs := <-stopped; len(recs) != 1 || recs[0].Err != nil {
		t.Errorf("records %+v, want one without an error", recs)
	}

	// A lasting kind ends with the phase.
	k = newHeld(true)
	r = startWith(context.Background(), k)
	<-k.started
	recs := r.Stop()
	if err := <-k.ctxErr; err == nil {
		t.Error("a lasting kind's context did not end with the phase")
	}
	if len(recs) != 1 {
		t.Errorf("records %+v, want one", recs)
	}

	// The run's own end cuts an instant fault.
	k = newHeld(false)
	ctx, cancel := context.WithCancel(context.Background())
	r = startWith(ctx, k)
	<-k.started
	cancel()
	if err := <-k.ctxErr; err == nil {
		t.Error("the run's end did not cut the instant fault")
	}
	r.Stop()
}
