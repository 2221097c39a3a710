package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestLedger: live.json and its registry copy follow the servers as they
// come and go, and vanish when nothing is left.
func TestLedger(t *testing.T) {
	l, res, tmp := testLedger(t)
	wd := filepath.Join(tmp, "tenantbench-001-x")
	l.AddWorkDir(wd)
	a := provider.Record{Name: "a", DataDir: filepath.Join(wd, "a", "data")}
	b := provider.Record{Name: "b", DataDir: filepath.Join(wd, "b", "data")}
	l.Live(a)
	l.Live(b)
	a.Pid = 42
	l.Live(a) // the same server, now with its process
	l.Gone(b)
	got, err := ReadLive(res)
	if err != nil || got == nil || len(got.Instances) != 1 || got.Instances[0].Pid != 42 || len(got.WorkDirs) != 1 {
		t.Fatalf("live.json = %+v, %v; want a with pid 42 and the work dir", got, err)
	}
	if !got.Owner.Alive() || got.Owner.Pid != os.Getpid() {
		t.Errorf("owner %+v: want this process, alive", got.Owner)
	}
	if left, _ := Leftovers(); len(left) != 0 {
		t.Errorf("a live owner's servers are leftovers: %+v", left)
	}
	copies, _ := filepath.Glob(filepath.Join(tmp, "registry", "*.json"))
	if len(copies) != 1 {
		t.Fatalf("registry copies %v, want 1", copies)
	}
	l.DoneWith(wd)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadLive(res); got != nil {
		t.Errorf("live.json left with nothing in it: %+v", got)
	}
	if copies, _ := filepath.Glob(filepath.Join(tmp, "registry", "*")); len(copies) != 0 {
		t.Errorf("registry copies left: %v", copies)
	}
}

// TestCleanUp: a ledger whose owner has ended is a leftover; CleanUp
// stops each server, removes the work directories that are tenantbench's
// and only those, and forgets the ledger.
func TestCleanUp(t *testing.T) {
	l, res, tmp := testLedger(t)
	wd := filepath.Join(tmp, "tenantbench-001-x")
	other := filepath.Join(tmp, "precious")
	os.MkdirAll(filepath.Join(wd, "a", "data"), 0o755)
	os.Mkdir(other, 0o755)
	l.AddWorkDir(wd)
	l.AddWorkDir(other)
	l.Live(provider.Record{Name: "a", DataDir: filepath.Join(wd, "a", "data")})
	// As if written by a tenantbench that has ended: pid 1 did not start
	// at tick 1.
	l.book.Owner = Owner{Pid: 1, Start: 1}
	l.mu.Lock()
	l.save()
	l.mu.Unlock()

	left, err := Leftovers()
	if err != nil || len(left) != 1 || left[0].Results != res {
		t.Fatalf("leftovers %+v, %v; want the ledger of %s", left, err, res)
	}
	var stopped []string
	stop := func(_ context.Context, r provider.Record) error {
		stopped = append(stopped, r.Name)
		return nil
	}
	err = CleanUp(context.Background(), left[0], stop, func(string) {})
	if err == nil {
		t.Error("CleanUp removed or accepted a directory that is not a run work directory")
	}
	if _, serr := os.Stat(other); serr != nil {
		t.Errorf("%s was removed: %v", other, serr)
	}
	if _, serr := os.Stat(wd); !os.IsNotExist(serr) {
		t.Errorf("the work directory is still there: %v", serr)
	}
	if len(stopped) != 1 || stopped[0] != "a" {
		t.Errorf("stopped %v, want [a]", stopped)
	}
	if got, _ := ReadLive(res); got == nil {
		t.Error("a ledger whose clean-up failed was forgotten")
	}
	// Without the foreign directory it goes through and forgets the ledger.
	left[0].WorkDirs = []string{wd}
	if err := CleanUp(context.Background(), left[0], stop, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadLive(res); got != nil {
		t.Error("live.json is still there")
	}
	if left, _ := Leftovers(); len(left) != 0 {
		t.Errorf("still leftovers: %+v", left)
	}
}
