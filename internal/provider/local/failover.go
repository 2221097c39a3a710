package local

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Fail-over (provider.FailOver, the fail-primary fault): the primary is
// killed at once, its standby that received the most WAL promoted, the
// pooler in front of the dead primary put in front of it, and the other
// standbys pointed at it through slots of their own there. The dead
// primary keeps its directory, cgroup and ledger record until teardown,
// but no standby: its Stop then stops only what is left of it.

// promoteWait bounds the wait for a promoted standby to accept writes.
const promoteWait = 60 * time.Second

// asPrimary gives srv's Process what a primary has: standbys to start and
// list, and a fail-over. Under the Process's lock: a promoted standby
// gets them while the monitor and the run ask for them.
func (p *Provider) asPrimary(srv *server) {
	proc := Of(srv.inst)
	proc.mu.Lock()
	defer proc.mu.Unlock()
	proc.primary = nil
	proc.startReplicas = func(ctx context.Context, n int, sync bool) ([]*provider.Instance, error) {
		return p.startReplicas(ctx, srv, n, sync)
	}
	proc.replicas = srv.replicaInstances
	proc.failOver = func(ctx context.Context, promote int, moved func(*provider.Instance)) (*provider.Instance, time.Time, error) {
		return p.failOver(ctx, srv, promote, moved)
	}
}

// FailOver kills the server and promotes one of its standbys in its place
// (provider.FailOver).
func (p *Process) FailOver(ctx context.Context, promote int, moved func(*provider.Instance)) (*provider.Instance, time.Time, error) {
	p.mu.RLock()
	f := p.failOver
	p.mu.RUnlock()
	if f == nil {
		return nil, time.Time{}, errors.New("the server is not a running primary")
	}
	return f(ctx, promote, moved)
}

// failOver is Process.FailOver for the primary prim.
func (p *Provider) failOver(ctx context.Context, prim *server, promote int, moved func(*provider.Instance)) (*provider.Instance, time.Time, error) {
	name := prim.inst.Name
	rep, ok := prim.inst.Engine.(engine.Replicator)
	pro, ok2 := prim.inst.Engine.(engine.Promoter)
	if !ok || !ok2 {
		return nil, time.Time{}, fmt.Errorf("instance %s: engine %s cannot promote a replica", name, prim.inst.Engine.Name())
	}
	prim.replMu.Lock()
	rs := append([]*server(nil), prim.replicas...)
	sync := prim.syncStandbys
	prim.replMu.Unlock()
	if len(rs) == 0 {
		return nil, time.Time{}, fmt.Errorf("instance %s has no replica to promote", name)
	}
	if promote < 0 || promote > len(rs) {
		return nil, time.Time{}, fmt.Errorf("instance %s has %d replicas: no replica %d to promote", name, len(rs), promote)
	}
	down, err := p.kill(ctx, prim)
	if err != nil {
		return nil, down, err
	}
	var to *server
	if promote > 0 {
		to = rs[promote-1]
	} else if to, err = mostReceived(ctx, pro, rs); err != nil {
		return nil, down, fmt.Errorf("instance %s: choosing the replica to promote: %w", name, err)
	}
	if err := promoteStandby(ctx, pro, to); err != nil {
		return nil, down, fmt.Errorf("instance %s: promoting %s: %w", name, to.inst.Name, err)
	}
	// The promoted server is a primary now: it no longer streams through
	// its slot on the dead one, and may fail over in turn.
	to.mu.Lock()
	to.primary, to.slot = nil, ""
	to.mu.Unlock()
	p.asPrimary(to)
	prim.replMu.Lock()
	prim.replicas = without(prim.replicas, to)
	prim.syncStandbys = false
	prim.replMu.Unlock()
	perr := p.movePooler(prim, to)
	if moved != nil {
		moved(to.inst)
	}
	var errs []error
	if perr != nil {
		errs = append(errs, fmt.Errorf("instance %s: moving its pooler to %s: %w", name, to.inst.Name, perr))
	}
	var follow []*server
	for _, o := range rs {
		if o == to {
			continue
		}
		if err := p.repoint(ctx, pro, prim, o, to); err != nil {
			errs = append(errs, fmt.Errorf("instance %s: pointing %s at %s: %w", name, o.inst.Name, to.inst.Name, err))
			continue
		}
		follow = append(follow, o)
	}
	if len(follow) > 0 {
		if err := waitStreaming(ctx, to, rep, follow); err != nil {
			errs = append(errs, err)
		} else if sync {
			var names []string
			for _, o := range follow {
				names = append(names, o.inst.Name)
			}
			if err := adminExec(ctx, to.inst, rep.Synchronous(names)...); err != nil {
				errs = append(errs, fmt.Errorf("instance %s: making its replicas synchronous: %w", to.inst.Name, err))
			} else {
				to.replMu.Lock()
				to.syncStandbys = true
				to.replMu.Unlock()
			}
		}
	}
	return to.inst, down, errors.Join(errs...)
}

// kill ends every process of srv at once (SIGKILL), as a crash, and does
// not start it again; it returns when none is left. srv's Exited closes:
// the server is gone, by design of the fault.
func (p *Provider) kill(ctx context.Context, srv *server) (time.Time, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if err := srv.running(); err != nil {
		return time.Time{}, err
	}
	// No more fail-overs of a dead server.
	proc := Of(srv.inst)
	proc.mu.Lock()
	proc.failOver, proc.startReplicas = nil, nil
	proc.mu.Unlock()
	if err := srv.terminate(ctx, -1); err != nil {
		return time.Time{}, fmt.Errorf("instance %s: killing it: %w", srv.inst.Name, err)
	}
	down := time.Now()
	provider.NoteDown(ctx, down)
	removeSocket(srv.eng, srv.inst.SocketDir, srv.inst.Port)
	return down, nil
}

// mostReceived is the standby of rs that received the most WAL: the
// others, behind it or level with it, can follow its new timeline.
func mostReceived(ctx context.Context, pro engine.Promoter, rs []*server) (*server, error) {
	var best *server
	most := -1.0
	var errs []error
	for _, r := range rs {
		got, err := adminStrings(ctx, r.inst, pro.Received())
		if err != nil || len(got) != 1 {
			errs = append(errs, fmt.Errorf("%s: %v %v", r.inst.Name, got, err))
			continue
		}
		n, err := strconv.ParseFloat(got[0], 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.inst.Name, err))
			continue
		}
		if n > most {
			best, most = r, n
		}
	}
	if best == nil {
		return nil, errors.Join(errs...)
	}
	return best, nil
}

// promoteStandby asks r to end its recovery and polls, on one session,
// until it accepts writes.
func promoteStandby(ctx context.Context, pro engine.Promoter, r *server) error {
	conn, err := r.inst.Engine.Connect(ctx, r.inst.AdminDSN(maintenanceDB(r.inst)))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if got, err := conn.QueryStrings(ctx, pro.Promote()); err != nil || len(got) != 1 || got[0] != "true" {
		return fmt.Errorf("promote request: %v %v", got, err)
	}
	deadline := time.Now().Add(promoteWait)
	for {
		got, err := conn.QueryStrings(ctx, pro.Promoted())
		if err == nil && len(got) == 1 && got[0] == "true" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still in recovery after %v (%v %v)", promoteWait, got, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// repoint makes the standby o, which followed the dead primary prim,
// stream from to through a slot of its own there, and moves it to to's
// standbys: to's Stop stops it, and its own Stop drops that slot.
func (p *Provider) repoint(ctx context.Context, pro engine.Promoter, prim, o, to *server) error {
	slot := slotName(o.inst.Name)
	if _, err := adminStrings(ctx, to.inst, pro.CreateSlot(), slot); err != nil {
		return fmt.Errorf("creating replication slot %s: %w", slot, err)
	}
	if err := adminExec(ctx, o.inst, pro.Follow(dbserver.Standby{SocketDir: to.inst.SocketDir, Port: to.inst.Port,
		User: to.inst.User, Password: to.inst.Password, Slot: slot})...); err != nil {
		rep, _ := to.inst.Engine.(engine.Replicator)
		_ = dropSlot(context.WithoutCancel(ctx), to, rep, slot)
		return err
	}
	o.mu.Lock()
	o.primary, o.slot = to, slot
	o.mu.Unlock()
	proc := Of(o.inst)
	proc.mu.Lock()
	proc.primary = to.inst
	proc.mu.Unlock()
	prim.replMu.Lock()
	prim.replicas = without(prim.replicas, o)
	prim.replMu.Unlock()
	to.replMu.Lock()
	to.replicas = append(to.replicas, o)
	to.replMu.Unlock()
	return nil
}

// movePooler puts the pooler in front of from (if any) in front of to:
// to's Stop and record own it from now on, and it forwards to to's
// socket. Its files and socket stay where they are.
func (p *Provider) movePooler(from, to *server) error {
	from.mu.Lock()
	st, pool := from.pool, from.inst.Pool
	if st.proc == nil {
		from.mu.Unlock()
		return nil
	}
	from.pool = poolerState{}
	// from.inst.Pool stays: clients not yet moved read it, and it is the
	// same pooler.
	proc := Of(from.inst)
	proc.mu.Lock()
	proc.pooler = nil
	proc.mu.Unlock()
	from.note()
	from.mu.Unlock()

	to.mu.Lock()
	defer to.mu.Unlock()
	to.pool = st
	to.inst.Pool = pool
	to.notePooler()
	host := to.inst.SocketDir
	if host == "" {
		host = to.inst.Host
	}
	return st.proc.Retarget(host, to.inst.Port)
}

// without is rs without r.
func without(rs []*server, r *server) []*server {
	out := make([]*server, 0, len(rs))
	for _, x := range rs {
		if x != r {
			out = append(out, x)
		}
	}
	return out
}
