package monitor

import (
	"math"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

func TestClassOfTitle(t *testing.T) {
	for _, c := range []struct {
		title string
		want  class
	}{
		{"postgres: t01 t01 127.0.0.1(40312) idle", classClient},
		{"postgres: shared: t01 t01 127.0.0.1(40312) SELECT", classClient},
		{"postgres: tenantbench postgres [local] idle in transaction", classClient},
		{"postgres: shared: tenantbench postgres [local] idle", classClient},
		{"postgres: checkpointer ", classBackground},
		{"postgres: shared: background writer ", classBackground},
		{"postgres: autovacuum worker t01", classBackground},
		{"postgres: parallel worker for PID 1234 ", classBackground},
		{"/usr/local/bin/postgres -D /data", classUnknown},
		{"", classUnknown},
	} {
		if got := classOfTitle([]byte(c.title)); got != c.want {
			t.Errorf("classOfTitle(%q) = %d, want %d", c.title, got, c.want)
		}
	}
}

func TestTenantMap(t *testing.T) {
	a := &provider.Instance{Name: "shared"}
	b := &provider.Instance{Name: "other"}
	var m tenantMap
	m.names = pseudoTenants()
	// Schema model: one database for two tenants, told apart by role.
	m.set("shared", []tenancy.Placement{
		{Tenant: "t01", Instance: a, Database: "tenantbench", Role: "t01"},
		{Tenant: "t02", Instance: a, Database: "tenantbench", Role: "t02"},
		{Tenant: "t03", Instance: b, Database: "t03", Role: "t03"},
	})
	if len(m.names) != firstTenant+2 {
		t.Fatalf("names = %v", m.names)
	}
	for _, c := range []struct {
		cl       class
		user, db string
		want     string
	}{
		{classClient, "t02", "tenantbench", "t02"},
		{classParallel, "t01", "tenantbench", "t01"},
		{classClient, "tenantbench", "tenantbench", "(other)"}, // a shared database tells no tenant
		{classClient, "t03", "t03", "(other)"},                 // another instance's tenant
		{classBackground, "", "", "(background)"},
		{classMonitor, "", "", "(monitor)"},
	} {
		if got := m.category(c.cl, []byte(c.user), []byte(c.db)); m.names[got] != c.want {
			t.Errorf("category(%d, %s, %s) = %s, want %s", c.cl, c.user, c.db, m.names[got], c.want)
		}
	}
	// Database model: the superuser in a tenant's database is that tenant's.
	m.set("shared", []tenancy.Placement{{Tenant: "t04", Instance: a, Database: "t04", Role: "t04"}})
	if got := m.category(classClient, []byte("tenantbench"), []byte("t04")); m.names[got] != "t04" {
		t.Errorf("by database: %s", m.names[got])
	}
	if m.names[firstTenant] != "t01" {
		t.Errorf("indexes moved: %v", m.names)
	}
	if got := m.category(classUnknown, nil, nil); got != noTenant {
		t.Errorf("unknown class: %d", got)
	}
}

func TestWaitHist(t *testing.T) {
	var h waitHist
	names := []string{"(background)", "(monitor)", "(other)", "t01"}
	start := h.mark("start")
	h.ticks = 2
	h.add(3, []byte("idle in transaction"), []byte("Client"), []byte("ClientRead"))
	h.add(3, []byte("active"), nil, nil)
	h.add(3, []byte("active"), nil, nil)
	h.add(0, nil, []byte("Activity"), []byte("CheckpointerMain"))
	mid := h.mark("workload")
	h.ticks = 3
	h.add(3, []byte("active"), []byte("LWLock"), []byte("WALWrite"))
	h.add(3, []byte("idle"), nil, nil)
	end := h.mark("stop")
	seg := h.segment(start, mid, names)
	want := map[WaitCount]bool{
		{"t01", "idle in transaction", "Client:ClientRead", 1}: true,
		{"t01", "active", "CPU", 2}:                            true,
		{"(background)", "", "Activity:CheckpointerMain", 1}:   true,
	}
	if seg.Ticks != 2 || len(seg.Counts) != len(want) {
		t.Fatalf("segment 1: %+v", seg)
	}
	for _, c := range seg.Counts {
		if !want[c] {
			t.Errorf("segment 1 has %+v", c)
		}
	}
	seg = h.segment(mid, end, names)
	if seg.Ticks != 1 || len(seg.Counts) != 2 || seg.Counts[0] != (WaitCount{"t01", "active", "LWLock:WALWrite", 1}) ||
		seg.Counts[1] != (WaitCount{"t01", "idle", "-", 1}) {
		t.Errorf("segment 2: %+v", seg)
	}
	allocs := testing.AllocsPerRun(100, func() { h.add(3, []byte("active"), []byte("LWLock"), []byte("WALWrite")) })
	if allocs != 0 {
		t.Errorf("counting a known key allocates %v times", allocs)
	}
}

func TestCPUShares(t *testing.T) {
	a := cpuTimes{User: 10, System: 5, Idle: 100, Iowait: 1, Steal: 0}
	b := cpuTimes{User: 13, System: 6, Idle: 104, Iowait: 2, Steal: 1, Nice: 1, SoftIRQ: 1}
	busy, idle, iowait, steal := cpuShares(a, b)
	// busy 3+1+1+1 = 6, idle 4+1 = 5, steal 1, total 12.
	if math.Abs(busy-50) > 1e-9 || math.Abs(idle-500.0/12) > 1e-9 || math.Abs(iowait-100.0/12) > 1e-9 || math.Abs(steal-100.0/12) > 1e-9 {
		t.Errorf("shares %v %v %v %v", busy, idle, iowait, steal)
	}
}

func TestWindow(t *testing.T) {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	// CPU grows 1 s per s; memory peaks at 3 s with 300 MiB; the cgroup's
	// peak counter (since the group was made) was 500 MiB from before.
	is := &InstanceSeries{Name: "shared", Tenants: []string{"(background)", "(monitor)", "(other)", "t01", "t02"}}
	mem := []int64{100, 200, 300, 150, 100}
	for i := range 5 {
		is.Samples = append(is.Samples, ResourceSample{T: sec(float64(i)), CPUUser: float64(i) * 0.75, CPUSys: float64(i) * 0.25,
			MemCurrent: mem[i] << 20, MemPeak: 500 << 20, IOReadBytes: int64(i) * 1000, IOWriteBytes: int64(i) * 10,
			IOReadOps: int64(i) * 4, IOWriteOps: int64(i) * 6,
			TenantUser: []float64{float64(i) * 0.1, 0.01 * float64(i), 0, float64(i) * 0.5, 0}[:3+min(i, 2)],
			TenantSys:  []float64{0, 0, 0, 0, 0}[:3+min(i, 2)]})
	}
	s := &Samples{Origin: origin, Interval: time.Second, Instances: []*InstanceSeries{is},
		Host: []HostSample{{T: 0, BusyPct: -1}, {T: sec(1), BusyPct: 50, SelfCPUUser: 0.1}, {T: sec(2), BusyPct: 70, SelfCPUUser: 0.3},
			{T: sec(3), BusyPct: 90, SelfCPUUser: 0.5}}}
	w := s.Window(origin.Add(sec(0.5)), origin.Add(sec(3.5)))
	u := w.Total
	if math.Abs(u.CPU-3) > 1e-9 || math.Abs(u.CPUUser-2.25) > 1e-9 || u.IOReadBytes != 3000 || u.IOWriteBytes != 30 {
		t.Errorf("usage %+v", u)
	}
	if u.MemPeakMB != 300 {
		t.Errorf("peak %v MiB, want the largest sampled (the counter did not rise)", u.MemPeakMB)
	}
	if u.IOOps != 30 {
		t.Errorf("IO operations %d, want 30 (10 a second over 3 s)", u.IOOps)
	}
	if math.Abs(w.TenantCPU["t01"]-1.5) > 1e-9 || w.TenantCPU["t02"] != 0 || math.Abs(u.BackgroundCPU-0.3) > 1e-9 {
		t.Errorf("tenants %v, background %v", w.TenantCPU, u.BackgroundCPU)
	}
	// Foreground is the tenants' processes: t01's 1.5 s, not the
	// monitor's 0.03 s nor the background's 0.3 s.
	if math.Abs(u.ForegroundCPU-1.5) > 1e-9 || math.Abs(w.Instances[0].ForegroundCPU-1.5) > 1e-9 {
		t.Errorf("foreground %v (instance %v), want 1.5", u.ForegroundCPU, w.Instances[0].ForegroundCPU)
	}
	if math.Abs(w.SelfCPU-0.45) > 1e-9 || math.Abs(w.HostBusyPct-70) > 1e-9 {
		t.Errorf("self %v, host busy %v", w.SelfCPU, w.HostBusyPct)
	}
	// The counter rose inside the window: it is the peak.
	is.Samples[3].MemPeak, is.Samples[4].MemPeak = 800<<20, 800<<20
	if w := s.Window(origin.Add(sec(1)), origin.Add(sec(3))); w.Total.MemPeakMB != 800 {
		t.Errorf("peak %v MiB, want 800", w.Total.MemPeakMB)
	}
	// Without a cgroup: PSS when sampled, else RSS.
	for i := range is.Samples {
		is.Samples[i].MemCurrent, is.Samples[i].MemPeak, is.Samples[i].RSS, is.Samples[i].PSS = -1, -1, 900<<20, -1
	}
	is.Samples[2].PSS = 400 << 20
	if w := s.Window(origin.Add(sec(1)), origin.Add(sec(3))); w.Total.MemPeakMB != 400 {
		t.Errorf("peak %v MiB, want the PSS", w.Total.MemPeakMB)
	}
	if w := s.Window(origin.Add(sec(3)), origin.Add(sec(4))); w.Total.MemPeakMB != 900 {
		t.Errorf("peak %v MiB, want the RSS", w.Total.MemPeakMB)
	}
	// Outside the samples: the ends hold.
	if w := s.Window(origin.Add(-time.Hour), origin.Add(time.Hour)); math.Abs(w.Total.CPU-4) > 1e-9 {
		t.Errorf("whole CPU %v", w.Total.CPU)
	}

	// The footprint's parts: the background's anonymous memory at the PSS
	// rounds (0 s: 10 MiB, 2 s: 30 MiB), the largest in the window, else
	// the last before it; the shared memory as read.
	is.SharedExceptBuffers = 8 << 20
	for i := range is.Samples {
		is.Samples[i].BackgroundAnon = -1
	}
	is.Samples[0].BackgroundAnon, is.Samples[2].BackgroundAnon = 10<<20, 30<<20
	for _, c := range []struct{ from, to, want float64 }{{1, 3, 30}, {3, 4, 30}, {0.5, 1, 10}} {
		u := s.Window(origin.Add(sec(c.from)), origin.Add(sec(c.to))).Total
		if u.BackgroundAnonMB != c.want || u.SharedMB != 8 {
			t.Errorf("%v..%v s: background anon %v MiB (want %v), shared %v MiB", c.from, c.to, u.BackgroundAnonMB, c.want, u.SharedMB)
		}
	}
	// One instance's unknown makes the total unknown.
	s.Instances = append(s.Instances, &InstanceSeries{Name: "other", Tenants: is.Tenants[:3], SharedExceptBuffers: -1,
		Samples: []ResourceSample{{T: 0, BackgroundAnon: 5 << 20}}})
	if u := s.Window(origin.Add(sec(1)), origin.Add(sec(3))).Total; u.SharedMB != -1 || u.BackgroundAnonMB != 35 {
		t.Errorf("with an instance whose shared memory is unknown: shared %v, background anon %v", u.SharedMB, u.BackgroundAnonMB)
	}
}

func TestDelta(t *testing.T) {
	from := snapshot{label: "start", t: 0, rows: map[string]map[string]map[string]float64{
		"pg_stat_database": {"t01": {"xact_commit": 10, "numbackends": 3}},
		"pg_stat_wal":      {"all": {"wal_bytes": 1000}},
	}, reset: map[string]string{"pg_stat_database/t01": "", "pg_stat_wal/all": "a"}}
	to := snapshot{label: "stop", t: 2 * time.Second, rows: map[string]map[string]map[string]float64{
		"pg_stat_database": {"t01": {"xact_commit": 25, "numbackends": 1}, "t02": {"xact_commit": 4}},
		"pg_stat_wal":      {"all": {"wal_bytes": 500}},
		"pg_stat_io":       {"client backend/relation/normal": {"reads": 1}},
	}, reset: map[string]string{"pg_stat_database/t01": "", "pg_stat_wal/all": "b"}}
	d := delta(from, to)
	db := d.Views["pg_stat_database"]
	if d.Seconds != 2 || db["t01"]["xact_commit"] != 15 || db["t01"]["numbackends"] != 1 || db["t02"]["xact_commit"] != 4 {
		t.Errorf("delta %+v", d)
	}
	if _, ok := d.Views["pg_stat_io"]; ok {
		t.Error("a view missing at the earlier mark has a delta")
	}
	if len(d.Reset) != 1 || d.Reset[0] != "pg_stat_wal/all" {
		t.Errorf("reset %v", d.Reset)
	}
}
