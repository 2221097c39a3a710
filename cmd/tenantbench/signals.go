package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals cut an experiment short: it then stops every server and
// writes the cut run's row before tenantbench exits. SIGHUP is among
// them: a closed terminal or ssh session must not leave servers behind.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// interruptContext is cancelled by the first of stopSignals, with a cause
// naming it ("SIGHUP"), which the cut run's error carries. cancel cuts it
// the same way for other reasons (a closed output, outputLog). SIGPIPE is
// ignored from here on: a write to a closed pipe then fails with EPIPE
// instead of killing tenantbench before its teardown. (It is not caught
// like the others: the kernel also raises it for a write to a socket whose
// server died, which must fail that client only, not the experiment.)
func interruptContext(parent context.Context) (ctx context.Context, cancel context.CancelCauseFunc, stop func()) {
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel = context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	// A signal ignored when tenantbench started stays ignored: `nohup
	// tenantbench run` must survive the hangup it asked to survive
	// (Notify would undo the ignoring).
	var catch []os.Signal
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			catch = append(catch, s)
		}
	}
	signal.Notify(ch, catch...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(signalCause{sig: s.(syscall.Signal)})
		case <-done:
		}
	}()
	// Signals stay caught until stop: a second Ctrl-C does not kill
	// tenantbench in its teardown.
	return ctx, cancel, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// signalCause is why an experiment was cut: a signal, by name.
type signalCause struct {
	sig  syscall.Signal
	note string // what it stands for, when tenantbench raised it itself
}

func (c signalCause) Error() string {
	if c.note != "" {
		return unix.SignalName(c.sig) + ": " + c.note
	}
	return unix.SignalName(c.sig)
}

// outputLog is the log on stdout. When a write fails, logging stops, not
// tenantbench: later lines are dropped. A closed pipe (EPIPE: `run | head
// -3` after head exits) also cuts the experiment as SIGTERM would, as the
// default SIGPIPE would have, but with the teardown and the cut run's
// row.
type outputLog struct {
	mu     sync.Mutex
	w      io.Writer
	cancel context.CancelCauseFunc
	failed bool
}

func (l *outputLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed {
		return len(b), nil
	}
	if _, err := l.w.Write(b); err != nil {
		l.failed = true
		if errors.Is(err, syscall.EPIPE) {
			l.cancel(signalCause{sig: syscall.SIGPIPE, note: "the output was closed"})
		}
	}
	return len(b), nil
}
