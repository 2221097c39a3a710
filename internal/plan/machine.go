package plan

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// Machine is what the machine that runs the plan can hold: the plan
// checks each run against it, so that a spec of thousands of tenants
// fails at `plan` with a reason, not an hour into its run. A zero field
// is unknown and not checked.
type Machine struct {
	// MemoryBytes is the machine's memory (MemTotal).
	MemoryBytes int64
	// OpenFiles is the most files tenantbench may hold open: the hard
	// RLIMIT_NOFILE, to which Go raises the soft limit at start. Every
	// client connection is a socket of this process.
	OpenFiles int
	// Processes is how many more processes the kernel can start: pid_max
	// less the processes running now. Every connection is a server
	// process.
	Processes int
	// Ports is how many loopback ports the kernel hands out
	// (net.ipv4.ip_local_port_range): the local provider puts each
	// server, replicas included, on one of them.
	Ports int
	// Root says tenantbench runs as root, which sut.network needs.
	Root bool
	// Cores are the CPUs tenantbench may run on, the servers' to share
	// by sut.resources.cpu_policy; none known: runtime.NumCPU's.
	Cores []int
}

// What tenantbench itself and the rest of the machine need beside the
// run's servers and connections.
const (
	ownOpenFiles     = 64 // tenantbench's own files, logs and admin connections
	otherProcessRoom = 64 // processes the rest of the machine may start meanwhile
)

// Here is this machine. A figure that cannot be read is left unknown.
func Here() Machine {
	m := Machine{Root: os.Geteuid() == 0, Cores: hereCores()}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.MemoryBytes = kb << 10
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			lo, err1 := strconv.Atoi(f[0])
			hi, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && hi >= lo {
				m.Ports = hi - lo + 1
			}
		}
	}
	m.OpenFiles = openFileLimit()
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if max, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if procs, err := os.ReadDir("/proc"); err == nil {
				running := 0
				for _, p := range procs {
					if _, err := strconv.Atoi(p.Name()); err == nil {
						running++
					}
				}
				m.Processes = max - running
			}
		}
	}
	return m
}

// openFileLimit is the hard RLIMIT_NOFILE, to which Go raises the soft
// limit at start; 0 when it cannot be read or is unlimited.
func openFileLimit() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Max < 1<<31 {
		return int(lim.Max)
	}
	return 0
}

// checkMachine checks every run's servers, connections and memory
// against the machine, once per distinct shape of run.
// With remote servers (the user's: provider external; pods of a cluster:
// provider kubernetes) only tenantbench's own open files are this
// machine's.
func checkMachine(p *Plan, engs engines, m Machine, remote bool) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		eng, ok := engs[p.EngineOf(r)]
		if !ok {
			continue // checkSUT refused it
		}
		serverProcesses, serverMemory, backendMemory := eng.Footprint()
		if remote {
			serverProcesses, serverMemory, backendMemory = 0, 0, 0
		}
		servers, conns := p.servers(r), p.connections(r)
		shm := sharedMemory(eng, r, remote)
		key := fmt.Sprint(eng.Name(), servers, conns, shm)
		if seen[key] {
			continue
		}
		seen[key] = true
		path := "tenancy.tenants"
		for k, t := range p.Spec.Tenancy.Tenants {
			if t == r.Tenants {
				path = spec.Index(path, k)
			}
		}
		what := fmt.Sprintf("run %s (model %s, %d tenants x %d clients: %d servers, %d connections)",
			r.ID, r.Model, r.Tenants, r.Clients, servers, conns)
		if r.Replicas > 0 {
			what = fmt.Sprintf("run %s (model %s, %d tenants x %d clients, %d replicas per server: %d servers, %d connections)",
				r.ID, r.Model, r.Tenants, r.Clients, r.Replicas, servers, conns)
		}
		if m.OpenFiles > 0 && conns+ownOpenFiles+servers > m.OpenFiles {
			out = append(out, spec.Problem{Path: path, Value: strconv.Itoa(r.Tenants), Allowed: fmt.Sprintf(
				"%s needs %d open files in tenantbench (a socket per connection), more than this machine's limit of %d "+
					"(ulimit -Hn): lower tenants or clients, or raise the limit", what, conns+ownOpenFiles+servers, m.OpenFiles)})
		}
		procs := conns + servers*serverProcesses
		if m.Processes > 0 && procs+otherProcessRoom > m.Processes {
			out = append(out, spec.Problem{Path: path, Value: strconv.Itoa(r.Tenants), Allowed: fmt.Sprintf(
				"%s needs about %d server processes (one per connection, %d per server), more than the %d this machine can still start "+
					"(kernel.pid_max): lower tenants or clients, or use a model with fewer servers", what, procs, serverProcesses, m.Processes)})
		}
		// Every server listens on a loopback port of its own; every
		// connection takes a client port too.
		if ports := servers + conns; !remote && m.Ports > 0 && ports > m.Ports {
			out = append(out, spec.Problem{Path: path, Value: strconv.Itoa(r.Tenants), Allowed: fmt.Sprintf(
				"%s needs %d loopback ports (one per server and per connection), more than the %d this machine hands out "+
					"(net.ipv4.ip_local_port_range): lower tenants, clients or sut.replicas, or use a model with fewer servers", what, ports, m.Ports)})
		}
		// Each server's shared memory (its buffers first) is held once it
		// is used; with none known, the engine's idle footprint.
		if shm < serverMemory {
			shm = serverMemory
		}
		if shm > serverMemory && m.MemoryBytes > 0 && int64(servers)*shm+int64(conns)*backendMemory > m.MemoryBytes {
			out = append(out, spec.Problem{Path: path, Value: strconv.Itoa(r.Tenants), Allowed: fmt.Sprintf(
				"%s maps %s of shared memory (%s a server, shared_buffers %s, max_connections %d) and %s for its connections, "+
					"more than this machine's %s: every server's buffers are held once its data fills them; "+
					"lower tenants, or sut.settings.shared_buffers (%s fits)", what, gib(int64(servers)*shm), mib(shm),
				orDefault(r.Settings["shared_buffers"], "128MB (the default)"), maxConns(r), mib(int64(conns)*backendMemory),
				gib(m.MemoryBytes), fitBuffers(m.MemoryBytes, servers, conns, backendMemory))})
			continue
		}
		mem := int64(servers)*serverMemory + int64(conns)*backendMemory
		if m.MemoryBytes > 0 && mem > m.MemoryBytes {
			out = append(out, spec.Problem{Path: path, Value: strconv.Itoa(r.Tenants), Allowed: fmt.Sprintf(
				"%s needs at least %s of memory (%s a server, %s a connection), more than this machine's %s: "+
					"lower tenants or clients, or use a model with fewer servers", what, gib(mem),
				mib(serverMemory), mib(backendMemory), gib(m.MemoryBytes))})
		}
	}
	return out
}

// servers is how many servers run r starts: each server's replicas are
// servers too.
func (p *Plan) servers(r *Run) int { return len(r.Instances) * (1 + r.Replicas) }

// connections is how many connections run r's clients hold: a client that
// reads the replicas holds a connection to each.
func (p *Plan) connections(r *Run) int {
	conns := 0
	for _, t := range r.TenantList {
		conns += t.Conns
	}
	if p.ReadsReplicas(r) {
		conns *= 1 + r.Replicas
	}
	return conns
}

// SpareFiles is how many more files tenantbench may open during run r
// than the run needs (a socket per connection, an admin session per
// server, its own files) under this machine's limit, for what may do
// without them: the monitor keeps each server process's counters open
// only within it. ok is false when the limit is not known.
func (p *Plan) SpareFiles(r *Run) (spare int, ok bool) {
	limit := openFileLimit()
	if limit <= 0 {
		return 0, false
	}
	return max(0, limit-p.connections(r)-ownOpenFiles-p.servers(r)), true
}

// sharedMemory is the shared memory one server of run r maps, from its
// settings and max_connections, when its engine says (engine.SharedMemory);
// 0 when it does not, the servers are not on this machine, or a setting
// cannot be read (the engine's settings check refuses it at its path).
func sharedMemory(eng engine.Engine, r *Run, remote bool) int64 {
	sm, ok := eng.(engine.SharedMemory)
	if !ok || remote {
		return 0
	}
	n, err := sm.SharedMemoryBytes(r.Settings, maxConns(r))
	if err != nil {
		return 0
	}
	return n
}

// maxConns is the most max_connections of run r's servers.
func maxConns(r *Run) int {
	n := 0
	for _, in := range r.Instances {
		n = max(n, in.MaxConnections)
	}
	return n
}

// fitBuffers is the shared_buffers that would let servers fit in memory
// beside their connections: what is left, a server's share, less a
// quarter for the rest of its shared memory, in whole MiB (at least 16).
func fitBuffers(memory int64, servers, conns int, backend int64) string {
	left := (memory - int64(conns)*backend) / int64(max(servers, 1))
	return strconv.FormatInt(max(left*3/4>>20, 16), 10) + "MB"
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// checkMemory refuses a per-server memory limit above the machine's
// memory: such a limit limits nothing, so the run would measure a server
// the machine cannot hold, not the limit the spec asks for. With divide,
// the largest share any run gives a server is checked.
func checkMemory(s *spec.Spec, regs Registries, m Machine) []spec.Problem {
	out := checkSlotMemory(s, m)
	mem := int64(s.SUT.Resources.Memory)
	if m.MemoryBytes <= 0 || mem <= m.MemoryBytes {
		return out
	}
	per, how := mem, "each server"
	if s.SUT.Resources.Divide {
		per = 0 // the largest share of any run
		for _, name := range s.Tenancy.Model {
			model, ok := regs.Models[name]
			if !ok {
				continue
			}
			for _, t := range s.Tenancy.Tenants {
				if t < 1 || t > spec.MaxTenants {
					continue
				}
				if n := int64(max(1, model.Instances(t))); mem/n > per {
					per, how = mem/n, fmt.Sprintf("with divide: true each of the %d servers of model %s with %d tenants", n, name, t)
				}
			}
		}
	}
	if per <= m.MemoryBytes {
		return out
	}
	return append(out, spec.Problem{Path: "sut.resources.memory", Value: s.SUT.Resources.Memory.String(), Allowed: fmt.Sprintf(
		"%s would be limited to %s, more than this machine's memory of %s: a limit the machine cannot give limits nothing; "+
			"give at most %s, or 0 for no limit", how, gib(per), gib(m.MemoryBytes), spec.ByteSize(m.MemoryBytes>>20<<20))})
}

// checkSlotMemory refuses a slot of sut.resources.schedule whose memory
// (per server: divide does not apply) is above the machine's, as
// checkMemory does sut.resources.memory.
func checkSlotMemory(s *spec.Spec, m Machine) []spec.Problem {
	sc := s.SUT.Resources.Schedule
	if sc == nil || m.MemoryBytes <= 0 {
		return nil
	}
	var out []spec.Problem
	for i, sl := range sc.Slots {
		if sl.Memory != nil && int64(*sl.Memory) > m.MemoryBytes {
			out = append(out, spec.Problem{Path: spec.Index("sut.resources.schedule.slots", i) + ".memory", Value: sl.Memory.String(),
				Allowed: fmt.Sprintf("must be at most this machine's memory of %s: a limit the machine cannot give limits nothing",
					gib(m.MemoryBytes))})
		}
	}
	return out
}

// gib writes a size in GiB with one decimal, as people compare memory.
func gib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB" }

func mib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', -1, 64) + " MiB" }
