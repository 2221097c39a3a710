//go:build !linux

package rawsock

import (
	"errors"
	"time"
)

// Loop needs epoll: elsewhere clients run on goroutines.
type Loop struct{}

// Task is a client on a Loop, which this system has not.
type Task struct{}

var ErrStopped = errors.New("stopped")

func NewLoop() (*Loop, error)                      { return nil, errors.ErrUnsupported }
func (*Loop) Add(func()) *Task                     { return nil }
func (*Loop) Run()                                 {}
func (*Loop) Stop()                                {}
func (*Task) Sleep(at time.Time) (time.Time, bool) { return time.Now(), false }
func (*Task) Await(f func())                       { f() }
func Beside(f func())                              { f() }
func (*Task) readable(*Socket, uintptr) error      { return errors.ErrUnsupported }

// HasLoops is false where there are no Loops.
func HasLoops() bool { return false }

// OwnP does nothing where there are no Loops.
func (*Loop) OwnP() {}

// OwnsP is false where there are no Loops.
func (*Loop) OwnsP() bool { return false }

// Pin does nothing where there are no Loops.
func (*Loop) Pin(int, struct{}) {}

// Pinned is false where there are no Loops.
func (*Loop) Pinned() bool { return false }

// CPUs is none where there are no Loops.
func CPUs() ([]int, struct{}) { return nil, struct{}{} }
