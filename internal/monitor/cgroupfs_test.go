package monitor

import (
	"os"
	"path/filepath"
	"testing"
)

// writeFiles makes a fixture cgroup directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCgroupV1(t *testing.T) {
	// v1 spreads the files over one directory per controller.
	cpu := writeFiles(t, map[string]string{"cgroup.procs": "10\n11\n", "cpuacct.stat": "user 250\nsystem 50\n",
		"cpuacct.usage_user": "2900000000\n", "cpuacct.usage_sys": "500000000\n"})
	mem := writeFiles(t, map[string]string{"cgroup.procs": "10\n11\n", "memory.usage_in_bytes": "104857600\n",
		"memory.max_usage_in_bytes": "209715200\n",
		"memory.stat":               "cache 73400320\nrss 31457280\nrss_huge 0\nshmem 67108864\nmapped_file 67108864\ntotal_rss 31457280\n"})
	// v1's blkio is left alone: it misses buffered writes.
	blk := writeFiles(t, map[string]string{"cgroup.procs": "10\n11\n",
		"blkio.throttle.io_service_bytes": "254:0 Read 4096\n254:0 Write 8192\n254:0 Total 12288\nTotal 12288\n"})
	c := probeCgroup("v1", []string{cpu, mem, blk})
	if !c.hasCPU() || !c.hasMemory() || c.hasIO() {
		t.Fatalf("probe found %+v", c)
	}
	var r reader
	var got cgroupReading
	if err := c.read(&r, &got); err != nil {
		t.Fatal(err)
	}
	want := cgroupReading{cpuUser: 2.5, cpuSys: 0.5, memCurrent: 100 << 20, memPeak: 200 << 20,
		memAnon: 30 << 20, memFile: 70 << 20, memShmem: 64 << 20, haveCPU: true, haveMem: true}
	if got != want {
		t.Errorf("read\n got %+v\nwant %+v", got, want)
	}
	pids, err := r.pidsOf(c.procs, nil)
	if err != nil || len(pids) != 2 || pids[0] != 10 || pids[1] != 11 {
		t.Errorf("pids = %v, %v", pids, err)
	}
}

func TestCgroupV1CPUOnly(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cgroup.procs": "", "cpuacct.stat": "user 250\nsystem 50\n"})
	c := probeCgroup("v1", []string{dir})
	var got cgroupReading
	if err := c.read(&reader{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.cpuUser != 2.5 || got.cpuSys != 0.5 || got.haveMem || got.haveIO || c.hasIO() || c.hasMemory() {
		t.Errorf("read %+v", got)
	}
}

func TestCgroupV2(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cgroup.procs": "7\n",
		"cpu.stat":       "usage_usec 3000000\nuser_usec 2000000\nsystem_usec 1000000\nnr_periods 0\n",
		"memory.current": "1048576\n", "memory.peak": "2097152\n",
		"memory.stat": "anon 524288\nfile 262144\nkernel 0\nshmem 131072\n",
		"io.stat":     "254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:0 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=0 dios=0\n"})
	c := probeCgroup("v2", []string{dir})
	var got cgroupReading
	if err := c.read(&reader{}, &got); err != nil {
		t.Fatal(err)
	}
	want := cgroupReading{cpuUser: 2, cpuSys: 1, memCurrent: 1 << 20, memPeak: 2 << 20, memAnon: 512 << 10, memFile: 256 << 10,
		memShmem: 128 << 10, readBytes: 4097, writeBytes: 8193, readOps: 2, writeOps: 3,
		haveCPU: true, haveMem: true, haveIO: true}
	if got != want {
		t.Errorf("read\n got %+v\nwant %+v", got, want)
	}
	// A kernel older than 5.19 has no memory.peak.
	os.Remove(filepath.Join(dir, "memory.peak"))
	c = probeCgroup("v2", []string{dir})
	if err := c.read(&reader{}, &got); err != nil || got.memPeak != -1 {
		t.Errorf("without memory.peak: %+v, %v", got, err)
	}
}

func TestNoCgroup(t *testing.T) {
	if c := probeCgroup("v1", []string{t.TempDir()}); c != nil {
		t.Errorf("a directory without cgroup.procs probed as %+v", c)
	}
	if c := openCgroup("", "none"); c != nil || c.hasCPU() || c.hasIO() || c.hasMemory() {
		t.Errorf("no group: %+v", c)
	}
}

func TestParsePids(t *testing.T) {
	for in, want := range map[string][]int{"": nil, "1\n22\n333\n": {1, 22, 333}, "4 5 6": {4, 5, 6}, "7 ": {7}} {
		got := parsePids([]byte(in), nil)
		if len(got) != len(want) {
			t.Errorf("parsePids(%q) = %v", in, got)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("parsePids(%q) = %v", in, got)
			}
		}
	}
}

func TestReaderGrows(t *testing.T) {
	big := make([]byte, 20000)
	for i := range big {
		big[i] = 'x'
	}
	dir := writeFiles(t, map[string]string{"f": string(big)})
	r := reader{}
	b, err := r.read(filepath.Join(dir, "f"))
	if err != nil || len(b) != len(big) {
		t.Errorf("read %d bytes, %v", len(b), err)
	}
	if _, err := r.read(filepath.Join(dir, "missing")); !gone(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}
