package local

import (
	"syscall"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// deathSignal is what a server of eng gets when tenantbench dies without
// stopping it (SIGKILL, a crash): the engine's faster shutdown
// (PostgreSQL's immediate one, which ends every backend too). The data
// directory is thrown away with the run, so a checkpoint would be wasted
// time.
func deathSignal(eng engine.Server) syscall.Signal {
	_, fast := eng.StopSignals()
	return fast
}

// note tells the spec's ledger what exists of srv so far: called as soon
// as its directory is made and again as the socket directory, cgroup,
// process and port are added.
func (srv *server) note() {
	if srv.spec.Ledger != nil && srv.inst != nil {
		srv.spec.Ledger.Live(srv.record())
	}
}

// forget tells the ledger that srv has stopped.
func (srv *server) forget() {
	if srv.spec.Ledger != nil && srv.inst != nil {
		srv.spec.Ledger.Gone(srv.record())
	}
}

// record is srv's Record for the ledger. Its WorkDir is the run's (the
// spec's), as for a kept server: StopRecord removes it once empty.
func (srv *server) record() provider.Record {
	r := srv.inst.Record()
	if srv.workDir != "" {
		r.WorkDir = srv.workDir
	}
	return r
}
