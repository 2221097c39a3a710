package spec

import (
	"gopkg.in/yaml.v3"
)

// Storage is sut.storage: where the servers' data directories (and WAL)
// live, so that a comparison of tenancy models can tell the DBMS from the
// storage under it (Erdelt and Rabl 2026, sections 6.2-6.4: the shared and
// dedicated volumes of Fig. 3 and 4, the RAM disk of Fig. 15). Kind and
// Volume are matrix dimensions; the provider that starts the servers
// (local) says at plan whether it can give them.
type Storage struct {
	// Kind is StorageDisk (the work directory's file system) or
	// StorageTmpfs (a RAM disk the run mounts).
	Kind Strings `yaml:"kind"`
	// Volume is VolumeShared (every server of a run on one file system)
	// or VolumePerInstance (a file system each: instances no longer share
	// a journal).
	Volume Strings `yaml:"volume"`
	// Size is the size of each file system the run makes, 0 to size it
	// from the data it must hold.
	Size ByteSize `yaml:"size,omitempty"`
}

// The values of sut.storage.kind, sut.storage.volume and
// sut.resources.cpu_policy.
const (
	StorageDisk       = "disk"
	StorageTmpfs      = "tmpfs"
	VolumeShared      = "shared"
	VolumePerInstance = "per-instance"
	// CPUPolicyNone leaves the servers where the scheduler puts them;
	// CPUPolicyPack puts them all on as few cores as their cpus limits
	// need, from core 0; CPUPolicySpread on distinct cores, round-robin
	// when there are more servers than cores (Kubernetes'
	// distribute-cpus-across-cores, Erdelt and Rabl 2026, Fig. 13).
	CPUPolicyNone   = "none"
	CPUPolicyPack   = "pack"
	CPUPolicySpread = "spread"
)

func storageKinds() choice   { return choice{[]string{StorageDisk, StorageTmpfs}, nil} }
func storageVolumes() choice { return choice{[]string{VolumeShared, VolumePerInstance}, nil} }
func cpuPolicies() choice {
	return choice{[]string{CPUPolicyNone, CPUPolicyPack, CPUPolicySpread}, nil}
}

// rule is the choice as a list element's rule: "" when v is one of it.
func (c choice) rule(v string) string {
	if c.has(v) {
		return ""
	}
	return c.allowed(v)
}

// storage reads sut.storage: kind and volume (a value or a list), size.
func (d *Decoder) storage(n *yaml.Node, path string, dst *Storage) {
	d.Mapping(n, path, []Field{
		{"kind", func(n *yaml.Node, p string) { values(d, n, p, ReadText, storageKinds().rule, (*[]string)(&dst.Kind)) }},
		{"volume", func(n *yaml.Node, p string) {
			values(d, n, p, ReadText, storageVolumes().rule, (*[]string)(&dst.Volume))
		}},
		{"size", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadByteSize, &dst.Size) }},
	})
}

// placement checks sut.storage and sut.resources.cpu_policy as written;
// whether the provider and the machine can give them is the plan's to
// check.
func (v *validator) placement(s *SUT) {
	oneOf(v, "sut.storage.kind", s.Storage.Kind, storageKinds().rule)
	oneOf(v, "sut.storage.volume", s.Storage.Volume, storageVolumes().rule)
	oneOf(v, "sut.resources.cpu_policy", s.Resources.CPUPolicy, cpuPolicies().rule)
	if s.Storage.Size < 0 {
		v.add("sut.storage.size", s.Storage.Size.String(), "must be a size (0 or left out: sized from the data)")
	}
}

// Placed says whether any run of the spec asks for storage or a CPU
// placement other than today's (disk, shared, none): only then does the
// plan ask the provider and the machine for them.
func (s *SUT) Placed() bool {
	for _, k := range s.Storage.Kind {
		if k != StorageDisk {
			return true
		}
	}
	for _, v := range s.Storage.Volume {
		if v != VolumeShared {
			return true
		}
	}
	for _, c := range s.Resources.CPUPolicy {
		if c != CPUPolicyNone {
			return true
		}
	}
	return false
}
