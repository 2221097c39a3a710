package cgroup

import (
	"fmt"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// createV1 makes the group in each hierarchy of the controllers used.
// Limits are always written, unlimited ones as -1, so that a group left by
// an earlier run with the same path does not keep old limits.
func (s System) createV1(path string, l Limits) (*Group, error) {
	all, err := cgroup1.Default()
	if err != nil {
		return nil, fmt.Errorf("read the cgroup v1 mounts: %w", err)
	}
	var subsystems []cgroup1.Subsystem
	for _, sub := range all {
		if _, ok := s.v1[sub.Name()]; ok {
			subsystems = append(subsystems, sub)
		}
	}
	res := &specs.LinuxResources{}
	_, hasCPU := s.v1[cgroup1.Cpu]
	_, hasMemory := s.v1[cgroup1.Memory]
	if hasCPU {
		quota, period := int64(-1), uint64(cfsPeriod)
		if l.CPUs > 0 {
			quota = l.quota()
		}
		res.CPU = &specs.LinuxCPU{Quota: &quota, Period: &period}
	}
	if hasMemory {
		limit := int64(-1)
		if l.MemoryBytes > 0 {
			limit = l.MemoryBytes
		}
		res.Memory = &specs.LinuxMemory{Limit: &limit}
	}
	g := s.Open(path)
	g.enforced = hasCPU && hasMemory
	hierarchy := func() ([]cgroup1.Subsystem, error) { return subsystems, nil }
	if _, err := cgroup1.New(cgroup1.StaticPath(path), res, cgroup1.WithHierarchy(hierarchy)); err != nil {
		_ = g.Remove(time.Second)
		return nil, fmt.Errorf("create cgroup %s (v1) with %v CPUs and %d bytes of memory: %w", path, l.CPUs, l.MemoryBytes, err)
	}
	if err := s.placeV1(g, l.Cores); err != nil {
		_ = g.Remove(time.Second)
		return nil, err
	}
	return g, nil
}
