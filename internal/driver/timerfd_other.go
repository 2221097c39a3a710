//go:build !linux

package driver

import "time"

// timerfd is Linux only; elsewhere the open loop waits on Go timers.
type timerfd struct{}

func newTimerfd() *timerfd                                         { return nil }
func (t *timerfd) wait(time.Time, time.Duration) (time.Time, bool) { return time.Time{}, false }
func (t *timerfd) interrupt()                                      {}
func (t *timerfd) close()                                          {}
