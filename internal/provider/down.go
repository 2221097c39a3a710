package provider

import (
	"context"
	"time"
)

// A fault's F (Zhang et al. 2025, eq. 3) runs from the moment a server
// stopped serving to its tenants' next commit. A restart or a fail-over
// returns only once the server (or its promoted replica) is back, and by
// then the tenants may have committed again: on the promoted server, or
// on the primary while a replica restarts. So the caller may pass in the
// context a function that the provider calls as the server goes down, as
// net/http/httptrace passes its hooks.
type downKey struct{}

// WithDown is ctx with f as the hook NoteDown calls.
func WithDown(ctx context.Context, f func(time.Time)) context.Context {
	return context.WithValue(ctx, downKey{}, f)
}

// NoteDown tells ctx's hook, if it has one, that the server stopped
// serving at t. Restarter.Restart and FailOver call it.
func NoteDown(ctx context.Context, t time.Time) {
	if f, ok := ctx.Value(downKey{}).(func(time.Time)); ok {
		f(t)
	}
}
