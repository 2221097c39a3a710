package run

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestStressorLedger: a noise's process is in live.json while it runs and
// gone from it when it ended; one a killed tenantbench left (a process
// still running) is ended by CleanUp, the down of a leftover ledger.
func TestStressorLedger(t *testing.T) {
	l, res, _ := testLedger(t)
	// A stand-in for a stressor left running: its own process group, as
	// stress-ng is started.
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	p := interfere.Process{Name: "cpu interference[0] #0", Pid: cmd.Process.Pid, Start: provider.StartTime(cmd.Process.Pid)}
	l.Started(p)
	other := interfere.Process{Name: "io interference[1] #0", Pid: 1 << 30, Start: 1}
	l.Started(other)
	l.Ended(other)
	book, err := ReadLive(res)
	if err != nil || len(book.Stressors) != 1 || book.Stressors[0] != p {
		t.Fatalf("live.json stressors %+v (%v), want %+v", book, err, p)
	}
	var said []string
	if err := CleanUp(context.Background(), book, func(context.Context, provider.Record) error { return nil },
		func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the stressor left running was not ended")
	}
	if len(said) != 1 {
		t.Errorf("CleanUp said %q", said)
	}
	l.Ended(p)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadLive(res); got != nil {
		t.Errorf("live.json left: %+v", got)
	}
}
