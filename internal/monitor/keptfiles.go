package monitor

import "sync/atomic"

// keptFiles bounds the files the samplers of one monitor keep open
// between rounds (a schedstat per server process, a few cgroup files per
// server): each is a file descriptor of tenantbench's, and the run's
// client sockets share the same limit. A client that cannot connect fails
// the run; a file the monitor cannot keep is only opened again at the next
// round. So the monitor keeps at most Config.KeepFiles, what the plan
// leaves spare (plan.SpareFiles).
type keptFiles struct {
	bounded bool
	left    atomic.Int64
}

func newKeptFiles(n int) *keptFiles {
	k := &keptFiles{bounded: n != 0}
	k.left.Store(int64(max(n, 0)))
	return k
}

// take says whether one more file may be kept, and counts it if so.
func (k *keptFiles) take() bool {
	if k == nil || !k.bounded {
		return true
	}
	if k.left.Add(-1) >= 0 {
		return true
	}
	k.left.Add(1)
	return false
}

// give counts a kept file closed.
func (k *keptFiles) give() {
	if k != nil && k.bounded {
		k.left.Add(1)
	}
}
