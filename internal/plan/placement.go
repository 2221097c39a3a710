package plan

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// checkPlacement asks the provider whether it can give the storage and
// the CPU placement the spec lists (sut.storage, sut.resources.cpu_policy):
// only the provider that starts the servers knows (the local one: root
// for a mount, a cpuset controller for cores). A spec that keeps today's
// (disk, shared, none) asks nothing.
func checkPlacement(s *spec.Spec, regs Registries) []spec.Problem {
	f, ok := regs.Providers[s.SUT.Provider]
	if !ok || !s.SUT.Placed() {
		return nil
	}
	var out []spec.Problem
	st := s.SUT.Storage
	for i, kind := range st.Kind {
		for j, vol := range st.Volume {
			if kind == spec.StorageDisk && vol == spec.VolumeShared {
				continue
			}
			path, value := spec.Index("sut.storage.kind", i), kind
			if kind == spec.StorageDisk {
				path, value = spec.Index("sut.storage.volume", j), vol
			}
			why := "provider " + s.SUT.Provider + " starts no server, so it has no data directory to place; " +
				"storage other than disk on a shared volume needs provider local"
			if f.Storage != nil {
				why = f.Storage(kind, vol)
			}
			if why != "" {
				out = append(out, spec.Problem{Path: path, Value: value,
					Allowed: fmt.Sprintf("storage %s on a %s volume: %s", kind, vol, why)})
			}
		}
	}
	for i, pol := range s.SUT.Resources.CPUPolicy {
		if pol == spec.CPUPolicyNone {
			continue
		}
		why := "provider " + s.SUT.Provider + " cannot place servers on cores; cpu_policy " + pol + " needs provider local"
		if f.Cores != nil {
			why = f.Cores()
		}
		if why != "" {
			out = append(out, spec.Problem{Path: spec.Index("sut.resources.cpu_policy", i), Value: pol,
				Allowed: "must be none here: " + why})
		}
	}
	return out
}

// checkElastic asks the provider whether it can change its servers'
// limits while they run (provider.Factory.Resizes), which
// sut.resources.schedule and autoscale need.
func checkElastic(s *spec.Spec, regs Registries) []spec.Problem {
	r := s.SUT.Resources
	f, ok := regs.Providers[s.SUT.Provider]
	if !ok || !(r.Elastic() || s.Autoscaled()) {
		return nil
	}
	path := "sut.resources.autoscale"
	switch {
	case r.Schedule != nil:
		path = "sut.resources.schedule"
	case r.Autoscale == nil:
		for i, c := range s.Workload.Cases {
			if c.Autoscale != nil {
				path = spec.Join(spec.Index("workload.cases", i), "autoscale")
				break
			}
		}
	}
	why := "provider " + s.SUT.Provider + " cannot change a running server's limits; it needs provider local"
	if f.Resizes != nil {
		why = f.Resizes()
	}
	if why == "" {
		return nil
	}
	return []spec.Problem{{Path: path, Allowed: "must be left out here: " + why}}
}

// hereCores are the CPUs this process may run on, in order: those a
// cpuset may give the servers.
func hereCores() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		var out []int
		for c := 0; c < len(set)*64 && len(out) < set.Count(); c++ {
			if set.IsSet(c) {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	out := make([]int, runtime.NumCPU())
	for i := range out {
		out[i] = i
	}
	return out
}

// placeCores gives each server of a run its cores by policy, nil each
// for CPUPolicyNone; cpus are the servers' CPU limits (0 for none, which
// counts as one core's worth) and cores the machine's.
//
// pack puts every server on the first ceil(sum of cpus) cores (at least
// one), so that they compete for them; spread gives each server
// ceil(its cpus) cores of its own, taken in turn and starting over at
// the first core when the servers need more than there are (Kubernetes'
// distribute-cpus-across-cores, Erdelt and Rabl 2026, Fig. 13).
func placeCores(policy string, cpus []float64, cores []int) [][]int {
	out := make([][]int, len(cpus))
	if len(cores) == 0 {
		return out
	}
	need := func(c float64) int {
		return min(len(cores), max(1, int(math.Ceil(c-1e-9))))
	}
	switch policy {
	case spec.CPUPolicyPack:
		sum := 0.0
		for _, c := range cpus {
			if c == 0 {
				c = 1
			}
			sum += c
		}
		n := need(sum)
		for i := range out {
			out[i] = append([]int(nil), cores[:n]...)
		}
	case spec.CPUPolicySpread:
		next := 0
		for i, c := range cpus {
			for range need(c) {
				out[i] = append(out[i], cores[next%len(cores)])
				next++
			}
		}
	}
	return out
}

// CoreList writes cores as a cpuset list ("0,1").
func CoreList(cores []int) string {
	parts := make([]string, len(cores))
	for i, c := range cores {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// StorageOf is the storage server in of run r gets: the zero value for
// today's (disk, shared; also a plan.json older than sut.storage).
func (p *Plan) StorageOf(r *Run, in *Instance) provider.StorageSpec {
	if !mounts(&r.Run) {
		return provider.StorageSpec{}
	}
	return provider.StorageSpec{Kind: r.Storage, Volume: r.Volume, SizeBytes: in.VolumeBytes}
}

// mounts says whether the run makes file systems for its servers' data.
func mounts(r *spec.Run) bool {
	return !((r.Storage == "" || r.Storage == spec.StorageDisk) && (r.Volume == "" || r.Volume == spec.VolumeShared))
}

// The rule that sizes a file system from the data it must hold, when
// sut.storage.size is not given: rowBytes a loaded row with its share of
// the indexes and pages (pgbench's accounts take about 160 bytes a row;
// wider rows have fewer per page), twice the data for what the workload
// adds and vacuum has not reclaimed, and walBytes for the WAL
// (PostgreSQL's default max_wal_size), at least minVolumeBytes.
const (
	rowBytes       = 256
	walBytes       = 1 << 30
	minVolumeBytes = 256 << 20
)

// sizeVolumes gives each server of run r the size of the file system
// its data lives on (Instance.VolumeBytes): sut.storage.size, or sized
// from its tenants' rows (dataBytes); on a shared volume every server
// gives the run's. It returns the data the run loads, for the machine
// check.
func sizeVolumes(s *spec.Spec, sr *spec.Run, r *Run, regs Registries) (int64, error) {
	if !mounts(sr) {
		return 0, nil
	}
	data, err := dataBytes(s, sr, regs)
	if err != nil {
		return 0, err
	}
	perServer := make([]int64, len(r.Instances))
	var total int64
	for k, in := range r.Instances {
		for _, t := range in.Tenants {
			perServer[k] += data[t]
		}
		total += perServer[k]
	}
	size := func(d int64) int64 { return max(minVolumeBytes, 2*d+walBytes) }
	for k := range r.Instances {
		switch {
		case s.SUT.Storage.Size > 0:
			r.Instances[k].VolumeBytes = int64(s.SUT.Storage.Size)
		case sr.Volume == spec.VolumeShared:
			r.Instances[k].VolumeBytes = max(minVolumeBytes, 2*total+int64(len(r.Instances))*walBytes)
		default:
			r.Instances[k].VolumeBytes = size(perServer[k])
		}
	}
	return total, nil
}

// dataBytes estimates what each tenant of run sr loads: the rows its
// workload says it loads (Workload.Rows) x rowBytes.
func dataBytes(s *spec.Spec, sr *spec.Run, regs Registries) (map[string]int64, error) {
	type key struct {
		name  string
		opts  *yaml.Node
		scale float64
	}
	rows := map[key]int64{}
	out := map[string]int64{}
	names := tenancy.TenantNames(sr.Tenants)
	for i, m := range s.Members(sr) {
		k := key{m.Workload, m.Options, m.Scale}
		n, ok := rows[k]
		if !ok {
			w := s.Workload
			w.Name = m.Workload
			if m.Options != nil {
				w.Options = *m.Options
			}
			built, err := regs.Workloads.Build(&w, m.Scale)
			if err != nil {
				return nil, err
			}
			n = built.Rows()
			rows[k] = n
		}
		out[names[i]] = n * rowBytes
	}
	return out, nil
}

// checkVolumes refuses a run whose data on tmpfs is more than the
// machine's memory: a RAM disk holds it in memory.
func checkVolumes(p *Plan, data map[string]int64, m Machine) []spec.Problem {
	if m.MemoryBytes <= 0 {
		return nil
	}
	var out []spec.Problem
	seen := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		d := data[r.ID]
		if r.Storage != spec.StorageTmpfs || d <= m.MemoryBytes || seen[r.Model+strconv.Itoa(r.Tenants)] {
			continue
		}
		seen[r.Model+strconv.Itoa(r.Tenants)] = true
		path := "sut.storage.kind"
		for k, v := range p.Spec.SUT.Storage.Kind {
			if v == spec.StorageTmpfs {
				path = spec.Index(path, k)
			}
		}
		out = append(out, spec.Problem{Path: path, Value: spec.StorageTmpfs, Allowed: fmt.Sprintf(
			"run %s (model %s, %d tenants at scale %g) loads about %s, more than this machine's memory of %s, which a RAM disk must hold it in: "+
				"lower tenants or scale, or use kind disk", r.ID, r.Model, r.Tenants, r.Scale, gib(d), gib(m.MemoryBytes))})
	}
	return out
}

// writeCores lists the cores each server of a run gets, once for the
// runs alike (policy and servers).
func (p *Plan) writeCores(w io.Writer) error {
	var b strings.Builder
	seen := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		var parts []string
		for _, in := range r.Instances {
			if len(in.Cores) > 0 {
				parts = append(parts, in.Name+" on "+CoreList(in.Cores))
			}
		}
		key := r.CPUPolicy + strings.Join(parts, ";")
		if len(parts) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		fmt.Fprintf(&b, "cores of run %s (cpu_policy %s): %s\n", r.ID, r.CPUPolicy, strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
