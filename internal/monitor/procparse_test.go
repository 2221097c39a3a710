package monitor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

func TestParseStat(t *testing.T) {
	// A command name with blanks and parentheses; the fields after it
	// from proc(5): ppid 4, utime 14, stime 15, cutime 16, cstime 17,
	// num_threads 20, starttime 22, rss 24.
	line := "4242 (postgres: a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 " +
		"1234 567 -8 9 20 0 1 0 98765 123456789 321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	var st procStat
	if !parseStat([]byte(line), &st) {
		t.Fatal("not parsed")
	}
	want := procStat{ppid: 17, utime: 1234, stime: 567, cutime: -8, cstime: 9, starttime: 98765, rss: 321, threads: 1}
	if st != want {
		t.Errorf("got %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1 2 3", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20 21 22"} {
		if parseStat([]byte(bad), &st) {
			t.Errorf("parsed %q", bad)
		}
	}
	raw := []byte(line)
	if allocs := testing.AllocsPerRun(100, func() { parseStat(raw, &st) }); allocs != 0 {
		t.Errorf("parseStat allocates %v times", allocs)
	}
}

func TestParseKV(t *testing.T) {
	status := "Name:\tpostgres\nVmRSS:\t   1234 kB\nvoluntary_ctxt_switches:\t812\nnonvoluntary_ctxt_switches:\t3\n"
	if v, i, ok := ctxSwitches([]byte(status)); !ok || v != 812 || i != 3 {
		t.Errorf("ctxSwitches %d %d %v", v, i, ok)
	}
	if _, _, ok := ctxSwitches([]byte("Name:\tx\n")); ok {
		t.Error("ctxSwitches without the lines")
	}
	io := "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 512\n"
	if r, w, ok := ioBytes([]byte(io)); !ok || r != 4096 || w != 8192 {
		t.Errorf("ioBytes %d %d %v", r, w, ok)
	}
	rollup := "55d0c1a2b000-7ffd6a9f2000 ---p 00000000 00:00 0    [rollup]\nRss:  20480 kB\nPss:  10240 kB\nPss_Anon:  1024 kB\n"
	if v, ok := kBField([]byte(rollup), "Pss"); !ok || v != 10240*1024 {
		t.Errorf("Pss %d %v", v, ok)
	}
	if p, a, ok := smapsRollup([]byte(rollup)); !ok || p != 10240*1024 || a != 1024*1024 {
		t.Errorf("smapsRollup %d %d %v", p, a, ok)
	}
	if p, a, ok := smapsRollup([]byte("Rss:  20 kB\nPss:  10 kB\n")); !ok || p != 10*1024 || a != -1 {
		t.Errorf("smapsRollup without Pss_Anon: %d %d %v", p, a, ok)
	}
	var c cpuTimes
	if !parseCPULine([]byte("cpu  100 2 30 400 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"), &c) ||
		c != (cpuTimes{User: 1, Nice: 0.02, System: 0.3, Idle: 4, Iowait: 0.05, IRQ: 0.06, SoftIRQ: 0.07, Steal: 0.08}) {
		t.Errorf("cpu line %+v", c)
	}
	if parseCPULine([]byte("cpu0 1 2 3 4\n"), &c) {
		t.Error("parsed a single CPU's line as the total")
	}
}

func TestClassOfCmdline(t *testing.T) {
	for _, c := range []struct {
		cmdline string
		want    class
	}{
		// PostgreSQL pads the title it writes over argv with NULs.
		{"postgres: t01 t01 127.0.0.1(40312) idle\x00\x00\x00\x00", classClient},
		{"postgres: checkpointer \x00\x00", classBackground},
		// The original arguments, before the title is set.
		{"/usr/local/bin/postgres\x00-D\x00/data\x00", classUnknown},
	} {
		if got := classOfTitle([]byte(c.cmdline)); got != c.want {
			t.Errorf("classOfTitle(%q) = %d, want %d", c.cmdline, got, c.want)
		}
	}
}

// TestProcAgainstProcfs reads live processes with the monitor's parsers
// and with prometheus/procfs (the parser they replaced): the same figures.
// Counters move between reads, so each of ours lies between a procfs read
// before and one after.
func TestProcAgainstProcfs(t *testing.T) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Skip(err)
	}
	var r reader
	for _, pid := range []int{os.Getpid(), os.Getppid()} {
		p, err := fs.Proc(pid)
		if err != nil {
			t.Fatal(err)
		}
		before, err1 := p.Stat()
		sb, err2 := p.NewStatus()
		b, err := r.readProc(pid, "stat")
		var st procStat
		if err != nil || !parseStat(b, &st) {
			t.Fatalf("pid %d: stat %v", pid, err)
		}
		b, err = r.readProc(pid, "status")
		vol, invol, ok := ctxSwitches(b)
		if err != nil || !ok {
			t.Fatalf("pid %d: status %v", pid, err)
		}
		after, err3 := p.Stat()
		sa, err4 := p.NewStatus()
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			t.Fatal(err1, err2, err3, err4)
		}
		if st.ppid != before.PPID || st.starttime != before.Starttime ||
			st.utime < uint64(before.UTime) || st.utime > uint64(after.UTime) ||
			st.stime < uint64(before.STime) || st.stime > uint64(after.STime) ||
			st.cutime < int64(before.CUTime) || st.cutime > int64(after.CUTime) ||
			st.rss <= 0 {
			t.Errorf("pid %d: stat %+v, procfs %+v .. %+v", pid, st, before, after)
		}
		if vol < sb.VoluntaryCtxtSwitches || vol > sa.VoluntaryCtxtSwitches ||
			invol < sb.NonVoluntaryCtxtSwitches || invol > sa.NonVoluntaryCtxtSwitches {
			t.Errorf("pid %d: context switches %d %d, procfs %+v .. %+v", pid, vol, invol, sb, sa)
		}
		if io, err := p.IO(); err == nil {
			b, err := r.readProc(pid, "io")
			rb, wb, ok := ioBytes(b)
			if err != nil || !ok || rb < io.ReadBytes || wb < io.WriteBytes {
				t.Errorf("pid %d: io %d %d %v, procfs %+v", pid, rb, wb, err, io)
			}
		}
		if sm, err := p.ProcSMapsRollup(); err == nil {
			b, err := r.readProc(pid, "smaps_rollup")
			v, ok := kBField(b, "Pss")
			if err != nil || !ok || v == 0 || float64(v) < 0.8*float64(sm.Pss) || float64(v) > 1.25*float64(sm.Pss) {
				t.Errorf("pid %d: Pss %d, procfs %d", pid, v, sm.Pss)
			}
		}
	}
	stat, err := fs.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.read("/proc/stat")
	var c cpuTimes
	if err != nil || !parseCPULine(b, &c) {
		t.Fatal("/proc/stat not parsed", err)
	}
	if c.Idle < stat.CPUTotal.Idle || c.Idle > stat.CPUTotal.Idle+10 || c.User < stat.CPUTotal.User || c.User > stat.CPUTotal.User+10 {
		t.Errorf("/proc/stat %+v, procfs %+v", c, stat.CPUTotal)
	}
	mi, err := fs.Meminfo()
	if err != nil {
		t.Fatal(err)
	}
	b, _ = r.read("/proc/meminfo")
	if v, ok := kBField(b, "MemTotal"); !ok || mi.MemTotalBytes == nil || v != *mi.MemTotalBytes {
		t.Errorf("MemTotal %d, procfs %v", v, mi.MemTotalBytes)
	}
}

// TestRoundAllocs: in the steady state (every process named) a resource
// round and a host round allocate nothing.
func TestRoundAllocs(t *testing.T) {
	inst := pgtest.Start(t)
	ctx := context.Background()
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		c, err := pgx.Connect(ctx, ps[0].DSN("unix"))
		if err != nil {
			t.Fatal("connect as the tenant failed")
		}
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Interval: time.Hour, WaitInterval: time.Hour, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	s := m.samplers[0]
	// The first round names every process. The backends of Place's own
	// connections may still be exiting, and an autovacuum worker starting:
	// on a busy machine either can outlast a measure, counted as a client
	// backend and named again in every round. Measure once the server has
	// settled: four client backends, each named.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s.sample(ctx, time.Now())
		n := s.series[len(s.series)-1].ClientBackends
		if n == 4 && !s.needActivity() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not settle: %d client backends, want 4: %s", n, clientProcs(s))
		}
	}
	// A process the server starts mid-measure (an autovacuum worker, on a
	// busy machine several) is named once, which allocates: the steady
	// round must allocate nothing in one of three measures.
	var allocs []float64
	for range 3 {
		a := testing.AllocsPerRun(50, func() { s.sample(ctx, time.Now()) })
		if allocs = append(allocs, a); a == 0 {
			break
		}
	}
	if allocs[len(allocs)-1] != 0 {
		t.Errorf("a resource round allocates %v times (three measures): %s", allocs, clientProcs(s))
	}
	if a := testing.AllocsPerRun(50, func() { m.host.sample(time.Now()) }); a != 0 {
		t.Errorf("a host round allocates %v times", a)
	}
	if errs := s.errs.list(""); len(errs) > 0 {
		t.Errorf("sampling errors: %v", errs)
	}
	if n := s.series[len(s.series)-1].ClientBackends; n != 4 {
		t.Errorf("%d client backends, want 4: %s", n, clientProcs(s))
	}
}

// clientProcs describes the processes a round counts as client backends
// (classUnknown among them) with their state and title, for a failure.
func clientProcs(s *sampler) string {
	var out []string
	for _, pid := range s.pids {
		p := s.procs[pid]
		if p == nil || p.class != classClient && p.class != classUnknown {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		title, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		state := "gone"
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			state = string(stat[i+2])
		}
		out = append(out, fmt.Sprintf("pid %d class %d tenant %d state %s title %q", pid, p.class, p.cat, state, bytes.TrimSpace(bytes.ReplaceAll(title, []byte{0}, []byte{' '}))))
	}
	return strings.Join(out, "; ")
}
