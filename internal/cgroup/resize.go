package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Resize changes the CPU quota and the memory limit of a group whose
// processes run (a serverless database's scaling: sut.resources.schedule
// and autoscale), in every hierarchy that holds them: v1's
// cpu.cfs_quota_us and memory.limit_in_bytes, v2's cpu.max and
// memory.max. Zero is no limit. The kernel applies a quota from the next
// CFS period (100 ms) on; lowering memory below what the group holds
// makes the kernel reclaim, and fails (v1: EBUSY) when it cannot. Cores
// are not changed.
func (g *Group) Resize(l Limits) error {
	if g == nil || g.mode == None {
		return fmt.Errorf("no cgroup to resize")
	}
	if l.CPUs < 0 || l.MemoryBytes < 0 {
		return fmt.Errorf("negative limits: %v CPUs, %d bytes", l.CPUs, l.MemoryBytes)
	}
	cpu, err := g.controlFile("cpu.cfs_quota_us", "cpu.max")
	if err != nil {
		return err
	}
	quota := "-1"
	if filepath.Base(cpu) == "cpu.max" {
		quota = "max"
	}
	if l.CPUs > 0 {
		quota = strconv.FormatInt(l.quota(), 10)
	}
	if filepath.Base(cpu) == "cpu.max" {
		quota += " " + strconv.Itoa(cfsPeriod)
	} else if err := os.WriteFile(filepath.Join(filepath.Dir(cpu), "cpu.cfs_period_us"), []byte(strconv.Itoa(cfsPeriod)), 0); err != nil {
		return fmt.Errorf("cgroup %s: set the CFS period: %w", g.path, err)
	}
	if err := os.WriteFile(cpu, []byte(quota), 0); err != nil {
		return fmt.Errorf("cgroup %s: set the CPU quota to %v CPUs: %w", g.path, l.CPUs, err)
	}
	mem, err := g.controlFile("memory.limit_in_bytes", "memory.max")
	if err != nil {
		return err
	}
	limit := "-1"
	if filepath.Base(mem) == "memory.max" {
		limit = "max"
	}
	if l.MemoryBytes > 0 {
		limit = strconv.FormatInt(l.MemoryBytes, 10)
	}
	if err := os.WriteFile(mem, []byte(limit), 0); err != nil {
		return fmt.Errorf("cgroup %s: set the memory limit to %d bytes: %w", g.path, l.MemoryBytes, err)
	}
	return nil
}

// Quota reads back the limits in force: the CPU quota in CPUs and the
// memory limit in bytes, 0 for none (v1 writes "no memory limit" as a
// page-rounded huge number: anything at or above 2^62 is none).
func (g *Group) Quota() (Limits, error) {
	var l Limits
	cpu, err := g.controlFile("cpu.cfs_quota_us", "cpu.max")
	if err != nil {
		return l, err
	}
	b, err := os.ReadFile(cpu)
	if err != nil {
		return l, err
	}
	f := strings.Fields(string(b))
	period := float64(cfsPeriod)
	if filepath.Base(cpu) == "cpu.max" && len(f) == 2 {
		if period, err = strconv.ParseFloat(f[1], 64); err != nil {
			return l, fmt.Errorf("%s: %w", cpu, err)
		}
	} else if pb, err := os.ReadFile(filepath.Join(filepath.Dir(cpu), "cpu.cfs_period_us")); err == nil {
		if period, err = strconv.ParseFloat(strings.TrimSpace(string(pb)), 64); err != nil {
			return l, fmt.Errorf("cpu.cfs_period_us: %w", err)
		}
	}
	if len(f) > 0 && f[0] != "max" && f[0] != "-1" {
		q, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return l, fmt.Errorf("%s: %w", cpu, err)
		}
		l.CPUs = q / period
	}
	mem, err := g.controlFile("memory.limit_in_bytes", "memory.max")
	if err != nil {
		return l, err
	}
	if b, err = os.ReadFile(mem); err != nil {
		return l, err
	}
	if s := strings.TrimSpace(string(b)); s != "max" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return l, fmt.Errorf("%s: %w", mem, err)
		}
		if n < 1<<62 {
			l.MemoryBytes = n
		}
	}
	return l, nil
}

// controlFile is the first of names (v1's, then v2's) present in one of
// the group's directories.
func (g *Group) controlFile(names ...string) (string, error) {
	for _, d := range g.dirs {
		for _, n := range names {
			f := filepath.Join(d, n)
			if _, err := os.Stat(f); err == nil {
				return f, nil
			}
		}
	}
	return "", fmt.Errorf("cgroup %s has no %s: its controller is not available to it", g.path, strings.Join(names, " or "))
}
