package interfere

import "context"

// crash kills every process of the server at once (SIGKILL of the
// postmaster and its backends) and starts it again: crash recovery from
// the WAL, the failure a restart's clean shutdown avoids.
type crash struct {
	fault
	recoveryOnly
}

func init() { register(crash{}) }

func (crash) Name() string { return "crash" }

func (crash) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	return restartServer(ctx, o, true)
}
