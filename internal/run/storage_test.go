package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider/local"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// mountsBelow are the mount points below root with their file system
// types (/proc/self/mountinfo: field 5 the mount point, the type after
// the " - ").
func mountsBelow(root string) map[string]string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		_, after, ok := strings.Cut(line, " - ")
		if len(f) < 5 || !ok || !strings.HasPrefix(f[4], root+"/") {
			continue
		}
		out[f[4]] = strings.Fields(after)[0]
	}
	return out
}

// TestStorageRuns runs a short experiment per storage variant on real
// servers and watches, while it runs, that the servers' data directories
// are mount points of the file system asked for; once it ends nothing is
// mounted, and results.csv says each run's storage.
func TestStorageRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if os.Geteuid() != 0 {
		t.Skip("sut.storage mounts file systems: needs root")
	}
	if why := local.Storage(spec.StorageDisk, spec.VolumePerInstance); why != "" {
		t.Skip(why)
	}
	// Watch the mounts while the experiment runs: data directory -> type.
	seen := map[string]string{}
	_, out, root := experiment(t, `name: storage-runs
sut: {storage: {kind: [tmpfs, disk], volume: [per-instance, shared]}}
tenancy: {model: instance, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 1s}
`, func(root string) func() {
		return poll(20*time.Millisecond, func() {
			for dir, fs := range mountsBelow(root) {
				seen[dir] = fs
			}
		})
	})
	if left := mountsBelow(root); len(left) > 0 {
		t.Errorf("still mounted after the experiment: %v", left)
	}
	// Each run's data directories were mounted as its storage says.
	types := map[string]bool{}
	data := 0
	for dir, fs := range seen {
		if filepath.Base(dir) == "data" {
			data++
			types[fs] = true
		}
	}
	// 3 variants mount: 2 servers each (and a clone's data directory
	// each: the instance model clones its template's).
	if data < 6 || !types["tmpfs"] || !types["ext4"] {
		t.Errorf("data directories seen mounted: %v", seen)
	}
	rows, err := out.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Storage+"/"+r.Volume)
	}
	if want := "tmpfs/per-instance tmpfs/shared disk/per-instance disk/shared"; strings.Join(got, " ") != want {
		t.Errorf("results.csv storage: %v, want %s", got, want)
	}
}
