package postgres

import (
	"fmt"
	"strconv"
	"strings"
)

// The shared memory a server maps at start (PostgreSQL 15's
// shared_memory_size), estimated from the settings that size it, so that
// a plan whose servers' shared memory the machine cannot hold is refused
// before anything starts: 100 servers of the default 128MB of
// shared_buffers are 14 GiB, and a server uses its buffers as its data
// fills them.

// Fitted to shared_memory_size as PostgreSQL 15.18 reports it on this
// machine (16MB and 128MB of buffers, 20 to 1,010 connections): a fixed part,
// the buffers with their descriptors and the WAL buffers, and a part per
// connection slot (lock table, procs, snapshots).
const (
	shmemBase     int64 = 7 << 19  // 3.5 MiB
	shmemPerConn  int64 = 50 << 10 // per max_connections slot
	shmemPerBlock int64 = 8192 + 8192/64
)

// SharedMemoryBytes estimates the shared memory one server maps with
// settings (the spec's, one value each; unset: PostgreSQL's defaults)
// and maxConnections slots. It is an engine.SharedMemory.
func (Engine) SharedMemoryBytes(settings map[string]string, maxConnections int) (int64, error) {
	buffers := int64(128 << 20)
	if v, ok := settings["shared_buffers"]; ok {
		b, err := memorySetting(v, 8192)
		if err != nil {
			return 0, fmt.Errorf("shared_buffers %q: %w", v, err)
		}
		buffers = b
	}
	// wal_buffers' default, -1: 1/32 of shared_buffers, at least 64kB,
	// at most a WAL segment (16MB).
	wal := min(max(buffers/32, 64<<10), 16<<20)
	if v, ok := settings["wal_buffers"]; ok && strings.TrimSpace(v) != "-1" {
		b, err := memorySetting(v, 8192)
		if err != nil {
			return 0, fmt.Errorf("wal_buffers %q: %w", v, err)
		}
		wal = b
	}
	if v, ok := settings["max_connections"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err == nil && n > maxConnections {
			maxConnections = n
		}
	}
	return shmemBase + buffers/8192*shmemPerBlock + wal + int64(maxConnections)*shmemPerConn, nil
}

// memorySetting reads a memory setting as postgresql.conf takes it: a
// number, in units of unit bytes when it has no unit, or with one of
// PostgreSQL's memory units (B, kB, MB, GB, TB: case matters).
func memorySetting(v string, unit int64) (int64, error) {
	s := strings.TrimSpace(v)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') && s[i-1] != '.' {
		i--
	}
	num, u := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("not a memory size (a number, with B, kB, MB, GB or TB)")
	}
	mult := unit
	switch u {
	case "":
	case "B":
		mult = 1
	case "kB":
		mult = 1 << 10
	case "MB":
		mult = 1 << 20
	case "GB":
		mult = 1 << 30
	case "TB":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("unit %q: PostgreSQL's memory units are B, kB, MB, GB and TB", u)
	}
	return int64(f * float64(mult)), nil
}
