// Package pooler owns the connection poolers a run may put in front of
// each server (sut.pooler): their kinds, registered by name, the modes
// each has, finding the program, and running one as a process of its own
// (pgbouncer.go). The local provider starts one per server, in a cgroup of
// its own, once the server's tenants are placed; the tenants' clients run
// the workload through it.
package pooler

import (
	"context"
	"maps"
	"slices"
)

// Kind is one pooler program.
type Kind interface {
	// Name is the kind in a spec (sut.pooler.kind).
	Name() string
	// Modes are the pool modes it can run (sut.pooler.mode).
	Modes() []string
	// Find is the program's path, or an error that names the package
	// that installs it.
	Find() (string, error)
	// Version is the installed program's version ("1.18.0").
	Version(bin string) (string, error)
	// NamedStatements says whether a client's named prepared statements
	// keep working between its transactions in mode, with the program of
	// version: else the clients must run their statements unnamed.
	NamedStatements(version, mode string) bool
	// Holds says a client holds its server connection for its whole
	// session in mode: a pool smaller than a tenant's clients then keeps
	// the others waiting until a session ends.
	Holds(mode string) bool
	// Start writes the pooler's configuration into o.Dir, starts it and
	// waits until it accepts connections. ErrPortBusy (wrapped) asks for
	// another port.
	Start(ctx context.Context, o Options) (*Process, error)
}

var kinds = map[string]Kind{}

func register(k Kind) {
	if _, dup := kinds[k.Name()]; dup {
		panic("pooler kind registered twice: " + k.Name())
	}
	kinds[k.Name()] = k
}

// Lookup is the kind named name.
func Lookup(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Names are the registered kinds, sorted: what sut.pooler.kind may be.
func Names() []string { return slices.Sorted(maps.Keys(kinds)) }

// Config is what a run asks of its poolers: sut.pooler as the plan
// resolved it.
type Config struct {
	Kind     string `json:"kind"`
	Mode     string `json:"mode"`
	PoolSize int    `json:"pool_size"`
}
