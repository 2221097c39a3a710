package provider

// Record is what `tenantbench down` needs to stop this instance later
// from another process: the name and endpoint, and what the provider
// adds (the local one: process, data directory, cgroup).
func (i *Instance) Record() Record {
	r := Record{Name: i.Name, Port: i.Port, SocketDir: i.SocketDir}
	if rc, ok := As[Recorder](i); ok {
		rc.Record(&r)
	}
	return r
}
