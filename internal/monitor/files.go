package monitor

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFiles writes the samples into dir (made if missing):
// resources.csv, tenant_cpu.csv, host.csv, waits.csv, dbms.json,
// monitor.json and, with a pooler, pooler.csv, each atomically. docs/monitor.md describes every column.
// Nil samples (no monitor) write nothing.
func (s *Samples) WriteFiles(dir string) error {
	if s == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		data func() ([]byte, error)
	}{
		{"resources.csv", s.resourcesCSV},
		{"tenant_cpu.csv", s.tenantCPUCSV},
		{"host.csv", s.hostCSV},
		{"waits.csv", s.waitsCSV},
		{"dbms.json", s.dbmsJSON},
		{"monitor.json", s.metaJSON},
	}
	for _, is := range s.Instances {
		if len(is.Replication) > 0 { // a run with replicas
			files = append(files, struct {
				name string
				data func() ([]byte, error)
			}{"replication.csv", s.replicationCSV})
			break
		}
	}
	for _, is := range s.Instances {
		if len(is.Pools) > 0 { // a run with a pooler
			files = append(files, struct {
				name string
				data func() ([]byte, error)
			}{"pooler.csv", s.poolerCSV})
			break
		}
	}
	for _, f := range files {
		b, err := f.data()
		if err != nil {
			return fmt.Errorf("monitor: %s: %w", f.name, err)
		}
		if err := writeAtomic(filepath.Join(dir, f.name), b); err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
	}
	return nil
}

// writeAtomic writes through a temporary file, so that a reader never
// sees half a file.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func toCSV(header []string, rows [][]string) ([]byte, error) {
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	return []byte(sb.String()), w.Error()
}

// Formatting: seconds to the millisecond, MiB to 1/100, unknown (-1) empty.
func secs(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
func mb(v int64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatFloat(float64(v)/(1<<20), 'f', 2, 64)
}
func count(v int64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}
func pct(v float64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// rate is a counter's change per second from sample a to b ("" for the
// first sample).
func rate(dv float64, dt float64) string {
	if dt <= 0 {
		return ""
	}
	return strconv.FormatFloat(dv/dt, 'f', 3, 64)
}

func (s *Samples) resourcesCSV() ([]byte, error) {
	header := []string{"instance", "t_s", "cpu_user_s", "cpu_sys_s", "cpu_s", "cpus",
		"mem_current_mb", "mem_peak_mb", "mem_anon_mb", "mem_file_mb", "mem_shmem_mb", "rss_mb", "pss_mb",
		"io_read_bytes", "io_write_bytes", "io_read_ops", "io_write_ops",
		"ctx_voluntary", "ctx_involuntary", "procs", "client_backends", "background_procs", "background_anon_mb", "role"}
	var rows [][]string
	for _, is := range s.Instances {
		for i, x := range is.Samples {
			cpus := ""
			if i > 0 {
				p := is.Samples[i-1]
				cpus = rate(x.CPUUser+x.CPUSys-p.CPUUser-p.CPUSys, (x.T - p.T).Seconds())
			}
			row := []string{is.Name, secs(x.T.Seconds()), secs(x.CPUUser), secs(x.CPUSys), secs(x.CPUUser + x.CPUSys), cpus,
				mb(x.MemCurrent), mb(x.MemPeak), mb(x.MemAnon), mb(x.MemFile), mb(x.MemShmem), mb(x.RSS), mb(x.PSS),
				count(x.IOReadBytes), count(x.IOWriteBytes), count(x.IOReadOps), count(x.IOWriteOps),
				count(x.CtxVoluntary), count(x.CtxInvoluntary),
				strconv.Itoa(x.Procs), strconv.Itoa(x.ClientBackends), strconv.Itoa(x.Background), mb(x.BackgroundAnon), is.Role}
			if is.Whole { // CPU and memory only: the rest is unknown, not zero
				row[3] = ""
				for j := 11; j < len(row)-1; j++ { // the role stays
					row[j] = ""
				}
			}
			rows = append(rows, row)
		}
	}
	return toCSV(header, rows)
}

func (s *Samples) tenantCPUCSV() ([]byte, error) {
	header := []string{"instance", "tenant", "t_s", "cpu_user_s", "cpu_sys_s", "cpu_s", "cpus", "blks_read", "blks_hit"}
	var rows [][]string
	for _, is := range s.Instances {
		for k, name := range is.Tenants {
			var prevCPU, prevT float64
			for i, x := range is.Samples {
				var u, sy float64
				if k < len(x.TenantUser) {
					u, sy = x.TenantUser[k], x.TenantSys[k]
				}
				cpus := ""
				if i > 0 {
					cpus = rate(u+sy-prevCPU, x.T.Seconds()-prevT)
				}
				prevCPU, prevT = u+sy, x.T.Seconds()
				read, hit := "", ""
				if k < len(x.TenantBlksRead) && x.TenantBlksRead[k] >= 0 {
					read, hit = strconv.FormatInt(x.TenantBlksRead[k], 10), strconv.FormatInt(x.TenantBlksHit[k], 10)
				}
				row := []string{is.Name, name, secs(x.T.Seconds()), secs(u), secs(sy), secs(u + sy), cpus, read, hit}
				if is.Whole { // no process seen: no tenant's CPU, unknown
					row[3], row[4], row[5], row[6] = "", "", "", ""
				}
				rows = append(rows, row)
			}
		}
	}
	return toCSV(header, rows)
}

func (s *Samples) hostCSV() ([]byte, error) {
	header := []string{"t_s", "busy_pct", "idle_pct", "iowait_pct", "steal_pct", "mem_total_mb", "mem_available_mb", "mem_used_mb",
		"tenantbench_cpu_user_s", "tenantbench_cpu_sys_s", "tenantbench_cpus", "tenantbench_rss_mb"}
	var rows [][]string
	for i, x := range s.Host {
		used := int64(-1)
		if x.MemTotal >= 0 && x.MemAvailable >= 0 {
			used = x.MemTotal - x.MemAvailable
		}
		cpus := ""
		if i > 0 {
			p := s.Host[i-1]
			cpus = rate(x.SelfCPUUser+x.SelfCPUSys-p.SelfCPUUser-p.SelfCPUSys, (x.T - p.T).Seconds())
		}
		rows = append(rows, []string{secs(x.T.Seconds()), pct(x.BusyPct), pct(x.IdlePct), pct(x.IowaitPct), pct(x.StealPct),
			mb(x.MemTotal), mb(x.MemAvailable), mb(used),
			secs(x.SelfCPUUser), secs(x.SelfCPUSys), cpus, mb(x.SelfRSS)})
	}
	return toCSV(header, rows)
}

func (s *Samples) waitsCSV() ([]byte, error) {
	header := []string{"from", "to", "instance", "tenant", "state", "event", "samples", "sessions"}
	var rows [][]string
	for _, is := range s.Instances {
		for _, seg := range is.Waits {
			for _, c := range seg.Counts {
				sessions := ""
				if seg.Ticks > 0 {
					sessions = strconv.FormatFloat(float64(c.Samples)/float64(seg.Ticks), 'f', 4, 64)
				}
				rows = append(rows, []string{seg.From, seg.To, is.Name, c.Tenant, c.State, c.Event,
					strconv.FormatInt(c.Samples, 10), sessions})
			}
		}
	}
	return toCSV(header, rows)
}

// poolerCSV is a row per round and pool of the poolers: the pool's
// clients and server connections, the oldest client's wait, and its
// database's cumulative totals since the pooler started.
func (s *Samples) poolerCSV() ([]byte, error) {
	header := []string{"instance", "t_s", "tenant", "database", "user", "cl_active", "cl_waiting", "sv_active", "sv_idle",
		"maxwait_s", "db_xacts", "db_queries", "db_wait_s", "db_alone"}
	var rows [][]string
	for _, is := range s.Instances {
		for _, p := range is.Pools {
			rows = append(rows, []string{is.Name, secs(p.T.Seconds()), p.Tenant, p.Database, p.User,
				count(p.ClActive), count(p.ClWaiting), count(p.SvActive), count(p.SvIdle),
				strconv.FormatFloat(p.MaxWait.Seconds(), 'f', 6, 64), count(p.DBXacts), count(p.DBQueries),
				strconv.FormatFloat(p.DBWait.Seconds(), 'f', 6, 64), strconv.FormatBool(p.DBAlone)})
		}
	}
	return toCSV(header, rows)
}

func (s *Samples) dbmsJSON() ([]byte, error) {
	type inst struct {
		Instance string       `json:"instance"`
		Deltas   []StatsDelta `json:"deltas"`
	}
	out := struct {
		Instances []inst `json:"instances"`
	}{Instances: []inst{}}
	for _, is := range s.Instances {
		out.Instances = append(out.Instances, inst{Instance: is.Name, Deltas: is.DBMS})
	}
	return jsonBytes(out)
}

func (s *Samples) metaJSON() ([]byte, error) {
	type mark struct {
		Label string  `json:"label"`
		T     float64 `json:"t_s"`
	}
	type inst struct {
		Name         string   `json:"name"`
		Role         string   `json:"role,omitempty"`
		Pid          int      `json:"pid"`
		Cgroup       string   `json:"cgroup"`
		CgroupMode   string   `json:"cgroup_mode"`
		CPUSource    string   `json:"cpu_source"`
		MemorySource string   `json:"memory_source"`
		IOSource     string   `json:"io_source"`
		Tenants      []string `json:"tenants"`
		Samples      int      `json:"samples"`
		// SharedMB: shared memory without the buffer cache (absent unknown).
		SharedMB *float64 `json:"shared_except_buffers_mb,omitempty"`
	}
	out := struct {
		Origin       string   `json:"origin"`
		IntervalS    float64  `json:"interval_s"`
		WaitInterval float64  `json:"wait_interval_s"`
		PSSInterval  float64  `json:"pss_interval_s"`
		Marks        []mark   `json:"marks"`
		Instances    []inst   `json:"instances"`
		Errors       []string `json:"errors"`
	}{Origin: s.Origin.Format("2006-01-02T15:04:05.000Z07:00"), IntervalS: s.Interval.Seconds(),
		WaitInterval: s.WaitInterval.Seconds(), PSSInterval: s.PSSInterval.Seconds(),
		Marks: []mark{}, Instances: []inst{}, Errors: append([]string{}, s.Errors...)}
	for _, m := range s.Marks {
		out.Marks = append(out.Marks, mark{m.Label, m.T.Seconds()})
	}
	for _, is := range s.Instances {
		in := inst{is.Name, is.Role, is.Pid, is.Cgroup, is.CgroupMode, is.CPUSource, is.MemorySource,
			is.IOSource, is.Tenants[firstTenant:], len(is.Samples), nil}
		if is.SharedExceptBuffers >= 0 {
			v := float64(is.SharedExceptBuffers) / (1 << 20)
			in.SharedMB = &v
		}
		out.Instances = append(out.Instances, in)
	}
	return jsonBytes(out)
}

func jsonBytes(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}
