package provider

import "path/filepath"

// Record is what `tenantbench down` needs to stop this instance later
// from another process. Its WorkDir is the instance's own directory (the
// parent of DataDir), which StopRecord removes.
func (i *Instance) Record() Record {
	return Record{
		Name:       i.Name,
		Pid:        i.Pid,
		DataDir:    i.DataDir,
		Port:       i.Port,
		SocketDir:  i.SocketDir,
		Cgroup:     i.Cgroup,
		CgroupMode: i.CgroupMode,
		WorkDir:    filepath.Dir(i.DataDir),
	}
}
