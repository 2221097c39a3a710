// Package external places a run's instances on servers the user already
// runs (sut.provider: external, sut.servers): it starts no process, so
// its instances have endpoints but none of the capabilities of a server
// tenantbench owns (no Killer, Freezer, Restarter, ResourceSampler,
// Limits). Every name the run creates there begins with the run's id,
// each object is in the ledger before it is created, and Stop (or
// StopRecord, for `tenantbench down`) drops exactly those objects.
package external

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Name is the provider's name in sut.provider.
const Name = "external"

// connectTimeout bounds each connection to a user's server, so that an
// unreachable one fails the plan or the run instead of hanging it.
const connectTimeout = 10 * time.Second

// Provider places instances on the user's servers.
type Provider struct{}

// New makes the provider: it holds nothing, each instance names its
// server (InstanceSpec.Server).
func New() (provider.Provider, error) { return Provider{}, nil }

// Factory registers the provider.
func Factory() provider.Factory {
	return provider.Factory{Name: Name, New: New, StopRecord: StopRecord, Servers: true, CheckServer: CheckServer, Can: Can}
}

// Can is the plan's check of what a spec's interference needs of the
// servers: the user's servers are theirs to restart, freeze and place, so
// none of it (kill-backends is SQL, and noise on this machine's host or
// driver needs no server).
func Can(c provider.Capability) string {
	switch c {
	case provider.CanRestart:
		return "a server tenantbench did not start is not tenantbench's to restart or kill (kill-backends works: it is SQL)"
	case provider.CanFreeze:
		return "a server tenantbench did not start runs processes tenantbench does not own, maybe on another machine"
	case provider.InCgroup:
		return "a server tenantbench did not start is in no cgroup tenantbench made"
	}
	return "not a capability it has"
}

// engineOf is the engine's borrowable side; nil is PostgreSQL.
func engineOf(eng engine.Engine) (engine.Engine, engine.Borrowable, error) {
	if eng == nil {
		e, err := engine.Builtin().Get("postgres")
		if err != nil {
			return nil, nil, err
		}
		eng = e
	}
	b, ok := eng.(engine.Borrowable)
	if !ok {
		return eng, nil, fmt.Errorf("engine %s cannot be used on a server tenantbench did not start", eng.Name())
	}
	return eng, b, nil
}

// login reads the server's admin connection string from its variable into
// an Instance (no process: Exited never closes).
func login(eng engine.Engine, b engine.Borrowable, name string, s provider.Server) (*provider.Instance, error) {
	dsn, ok := os.LookupEnv(s.DSNEnv)
	if !ok || strings.TrimSpace(dsn) == "" {
		return nil, fmt.Errorf("environment variable %s is not set: it must hold server %s's admin connection string", s.DSNEnv, s.Name)
	}
	l, err := b.ParseAdmin(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.DSNEnv, err)
	}
	inst := &provider.Instance{Name: name, Engine: eng, Host: l.Host, Port: l.Port, User: l.User, Password: l.Password,
		TLS: l.TLS, Exited: make(chan struct{})}
	if strings.HasPrefix(l.Host, "/") {
		inst.SocketDir = l.Host
	}
	return inst, nil
}

// check connects as the admin and says what it lacks: privileges, and
// room for conns connections (0: not asked).
func check(ctx context.Context, b engine.Borrowable, inst *provider.Instance, s provider.Server, conns int) (version string, err error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	a, ok := inst.Engine.(engine.Admin)
	if !ok {
		return "", fmt.Errorf("engine %s has no admin SQL", inst.Engine.Name())
	}
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(a.MaintenanceDatabase()))
	if err != nil {
		return "", fmt.Errorf("cannot connect to server %s (%s port %d as %s, sslmode %s, from %s): %w",
			s.Name, inst.Host, inst.Port, inst.User, inst.TLS.Mode, s.DSNEnv, err)
	}
	defer conn.Close(context.Background())
	missing, err := b.MissingPrivileges(ctx, conn)
	if err != nil {
		return "", fmt.Errorf("server %s: %w", s.Name, err)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("role %s on server %s lacks %s: tenantbench creates its tenants' roles and databases there (grant %s, or name a superuser)",
			inst.User, s.Name, strings.Join(missing, " and "), strings.Join(missing, ", "))
	}
	if conns > 0 {
		have, err := b.MaxConnections(ctx, conn)
		if err != nil {
			return "", fmt.Errorf("server %s: %w", s.Name, err)
		}
		if have < conns {
			return "", fmt.Errorf("server %s allows %d connections (max_connections), the run needs %d (its tenants' clients and tenantbench's own): "+
				"raise it on the server, or run fewer tenants or clients", s.Name, have, conns)
		}
	}
	return conn.ServerVersion(), nil
}

// CheckServer is the plan's check of one server: its variable set, the
// server reachable, the role's privileges. "" when all is well.
func CheckServer(ctx context.Context, eng engine.Engine, s provider.Server) string {
	eng, b, err := engineOf(eng)
	if err != nil {
		return err.Error()
	}
	inst, err := login(eng, b, s.Name, s)
	if err == nil {
		_, err = check(ctx, b, inst, s, 0)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// Start adopts the spec's server as the instance, after the same checks
// as the plan's (a server may have changed since).
func (Provider) Start(ctx context.Context, s provider.InstanceSpec) (*provider.Instance, error) {
	if s.Server == nil {
		return nil, fmt.Errorf("instance %s: no server named for it (sut.servers)", s.Name)
	}
	if s.RunID == "" {
		return nil, fmt.Errorf("instance %s: no run id to begin the names created on server %s", s.Name, s.Server.Name)
	}
	eng, b, err := engineOf(s.Engine)
	if err != nil {
		return nil, err
	}
	inst, err := login(eng, b, s.Name, *s.Server)
	if err != nil {
		return nil, err
	}
	if inst.Version, err = check(ctx, b, inst, *s.Server, s.MaxConnections); err != nil {
		return nil, err
	}
	bw := &borrowed{inst: inst, spec: s, prefix: s.RunID + "_"}
	inst.Control = bw
	bw.note()
	return inst, nil
}

// Stop drops what the run created on the server, and nothing else.
func (Provider) Stop(ctx context.Context, inst *provider.Instance) error {
	bw, ok := inst.Control.(*borrowed)
	if !ok {
		return fmt.Errorf("instance %s is not on a server of provider external", inst.Name)
	}
	_, b, err := engineOf(inst.Engine)
	if err != nil {
		return err
	}
	if err := drop(ctx, b, inst, bw.list()); err != nil {
		return err
	}
	if bw.spec.Ledger != nil {
		bw.spec.Ledger.Gone(inst.Record())
	}
	return nil
}

// StopRecord drops what a run's ledger lists on a server (`tenantbench
// down`): the server's variable must be set again in this process.
func StopRecord(ctx context.Context, r provider.Record) error {
	if r.Server == nil {
		return fmt.Errorf("record %s names no server", r.Name)
	}
	var eng engine.Engine
	if r.Engine != "" {
		e, err := engine.Builtin().Get(r.Engine)
		if err != nil {
			return err
		}
		eng = e
	}
	eng, b, err := engineOf(eng)
	if err != nil {
		return err
	}
	inst, err := login(eng, b, r.Name, *r.Server)
	if err != nil {
		return fmt.Errorf("%w (to drop what the run created there)", err)
	}
	return drop(ctx, b, inst, r.Objects)
}

// drop drops objs from inst: schemas whose database is not dropped as
// well, then databases, then roles (they own or hold privileges in the
// others), each if it is still there.
func drop(ctx context.Context, b engine.Borrowable, inst *provider.Instance, objs []provider.Object) error {
	a, ok := inst.Engine.(engine.Admin)
	if !ok {
		return fmt.Errorf("engine %s has no admin SQL", inst.Engine.Name())
	}
	dbs := map[string]bool{}
	for _, o := range objs {
		if o.Kind == provider.ObjectDatabase {
			dbs[o.Name] = true
		}
	}
	var errs []error
	run := func(database string, stmts []string) {
		cctx, cancel := context.WithTimeout(ctx, connectTimeout)
		defer cancel()
		conn, err := inst.Engine.Connect(cctx, inst.AdminDSN(database))
		if err != nil {
			errs = append(errs, fmt.Errorf("instance %s: %w", inst.Name, err))
			return
		}
		defer conn.Close(context.Background())
		for _, st := range stmts {
			if err := conn.Exec(ctx, st); err != nil {
				errs = append(errs, fmt.Errorf("instance %s: %s: %w", inst.Name, st, err))
			}
		}
	}
	for _, o := range objs {
		if o.Kind == provider.ObjectSchema && !dbs[o.Database] {
			run(o.Database, b.DropSchema(o.Name))
		}
	}
	var stmts []string
	for _, kind := range []string{provider.ObjectDatabase, provider.ObjectRole} {
		for i := len(objs) - 1; i >= 0; i-- {
			if o := objs[i]; o.Kind == kind && kind == provider.ObjectDatabase {
				stmts = append(stmts, b.DropDatabase(o.Name)...)
			} else if o.Kind == kind {
				stmts = append(stmts, b.DropRole(o.Name)...)
			}
		}
	}
	run(a.MaintenanceDatabase(), stmts)
	return errors.Join(errs...)
}

// borrowed is an instance on a user's server: the Borrowed and Recorder
// capabilities.
type borrowed struct {
	inst   *provider.Instance
	spec   provider.InstanceSpec
	prefix string

	mu      sync.Mutex
	objects []provider.Object
}

var (
	_ provider.Borrowed = (*borrowed)(nil)
	_ provider.Recorder = (*borrowed)(nil)
)

func (bw *borrowed) Prefix() string { return bw.prefix }

// Created lists o and writes the ledger before the caller creates it.
func (bw *borrowed) Created(o provider.Object) {
	bw.mu.Lock()
	for _, x := range bw.objects {
		if x == o {
			bw.mu.Unlock()
			return
		}
	}
	bw.objects = append(bw.objects, o)
	bw.mu.Unlock()
	bw.note()
}

func (bw *borrowed) list() []provider.Object {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	return append([]provider.Object(nil), bw.objects...)
}

// note writes the instance's record, objects and all, to the ledger.
func (bw *borrowed) note() {
	if bw.spec.Ledger != nil {
		bw.spec.Ledger.Live(bw.inst.Record())
	}
}

// Record fills in what `down` needs: the server as the spec named it
// (its variable, never the string) and the objects. DataDir is the
// ledger's key of a record: here the server and the run's instance,
// which no directory is.
func (bw *borrowed) Record(r *provider.Record) {
	r.DataDir = fmt.Sprintf("external:%s/%s/%s", bw.spec.Server.Name, bw.spec.RunID, bw.inst.Name)
	r.WorkDir = bw.spec.WorkDir
	sv := *bw.spec.Server
	r.Server = &sv
	r.Objects = bw.list()
}
