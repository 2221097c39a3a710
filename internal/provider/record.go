package provider

import "github.com/prometheus/procfs"

// Record is what `tenantbench down` needs to stop this instance later
// from another process: the name and endpoint, and what the provider
// adds (the local one: process, data directory, cgroup).
func (i *Instance) Record() Record {
	r := Record{Name: i.Name, Port: i.Port, SocketDir: i.SocketDir}
	if i.Engine != nil {
		r.Engine = i.Engine.Name()
	}
	if rc, ok := As[Recorder](i); ok {
		rc.Record(&r)
	}
	return r
}

// StartTime is pid's start time in clock ticks since boot (field 22 of
// /proc/<pid>/stat): with the pid it names one process, never a later one
// given the same pid, which is how a record or a ledger tells a server (or
// a tenantbench) it wrote from a stranger. 0 when the process cannot be
// read.
func StartTime(pid int) uint64 {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return st.Starttime
}
