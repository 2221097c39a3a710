package local

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// restartInPlace is Process.Restart: it stops srv's server (a fast
// shutdown, or SIGKILL of every process of it when crash) and starts the
// postmaster again on the same data directory, port, socket, cgroup and
// log, so that the clients' connection strings still reach it. The
// configuration written at the first start holds the port. It holds
// srv.mu throughout, so that a Stop waits for it.
func (p *Provider) restartInPlace(ctx context.Context, srv *server, crash bool) (time.Time, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if err := srv.running(); err != nil {
		return time.Time{}, err
	}
	srv.restarting.Store(true)
	defer srv.restarting.Store(false)
	fast := p.opts.StopTimeout
	if crash {
		fast = -1 // terminate goes straight to SIGKILL of every process
	}
	if err := srv.terminate(ctx, fast); err != nil {
		return time.Time{}, fmt.Errorf("instance %s: stopping for a restart: %w", srv.inst.Name, err)
	}
	down := time.Now()
	provider.NoteDown(ctx, down)
	// A killed server leaves its socket and lock file; the new one must
	// bind the same path.
	removeSocket(srv.eng, srv.inst.SocketDir, srv.inst.Port)
	if err := p.startProcess(srv, srv.conf); err != nil {
		srv.lifeOnce.Do(func() { close(srv.life) })
		return down, fmt.Errorf("instance %s: restart: %w", srv.inst.Name, err)
	}
	if _, err := waitReady(ctx, srv, p.opts.StartTimeout); err != nil {
		// Left for Stop to clean up; the run learns of it from Exited.
		_ = srv.terminate(context.Background(), 0)
		srv.lifeOnce.Do(func() { close(srv.life) })
		if errors.Is(err, context.Canceled) {
			return down, err
		}
		return down, fmt.Errorf("instance %s: restart: %w", srv.inst.Name, err)
	}
	return down, nil
}
