package monitor

import (
	"errors"
	"os"
	"time"
)

// hostSampler reads the machine's CPU and memory and tenantbench's own
// process. Only the monitor's host goroutine (and Start/Stop, when it is
// not running) uses it.
type hostSampler struct {
	origin time.Time
	page   int64
	r      reader

	prev     cpuTimes
	havePrev bool
	selfBase [2]float64
	haveBase bool
	series   []HostSample
	errs     errorLog
}

func newHostSampler(origin time.Time) (*hostSampler, error) {
	h := &hostSampler{origin: origin, page: int64(os.Getpagesize())}
	h.r.keep = true
	if _, err := h.r.read("/proc/self/stat"); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *hostSampler) sample(now time.Time) {
	t := now.Sub(h.origin)
	smp := HostSample{T: t, BusyPct: -1, IdlePct: -1, IowaitPct: -1, StealPct: -1, MemTotal: -1, MemAvailable: -1, SelfRSS: -1}
	var cur cpuTimes
	if b, err := h.r.read("/proc/stat"); err != nil {
		h.errs.add(t, "/proc/stat: %v", err)
	} else if !parseCPULine(b, &cur) {
		h.errs.add(t, "/proc/stat: no cpu line")
	} else {
		if h.havePrev {
			smp.BusyPct, smp.IdlePct, smp.IowaitPct, smp.StealPct = cpuShares(h.prev, cur)
		}
		h.prev, h.havePrev = cur, true
	}
	if b, err := h.r.read("/proc/meminfo"); err != nil {
		h.errs.add(t, "/proc/meminfo: %v", err)
	} else {
		if v, ok := kBField(b, "MemTotal"); ok {
			smp.MemTotal = int64(v)
		}
		if v, ok := kBField(b, "MemAvailable"); ok {
			smp.MemAvailable = int64(v)
		}
	}
	var st procStat
	b, err := h.r.read("/proc/self/stat")
	if err == nil && !parseStat(b, &st) {
		err = errors.New("unexpected content")
	}
	if err != nil {
		h.errs.add(t, "own /proc/self/stat: %v", err)
	} else {
		u, s := float64(st.utime)/userHZ, float64(st.stime)/userHZ
		if !h.haveBase {
			h.selfBase, h.haveBase = [2]float64{u, s}, true
		}
		smp.SelfCPUUser, smp.SelfCPUSys = u-h.selfBase[0], s-h.selfBase[1]
		smp.SelfRSS = st.rss * h.page
	}
	h.series = append(h.series, smp)
}

// cpuShares splits the CPU time between two readings of /proc/stat's cpu
// line into busy, idle (iowait included), iowait and steal percentages.
// Guest time is already inside user and nice.
func cpuShares(a, b cpuTimes) (busy, idle, iowait, steal float64) {
	d := func(x, y float64) float64 { return max(y-x, 0) }
	user := d(a.User, b.User) + d(a.Nice, b.Nice)
	sys := d(a.System, b.System) + d(a.IRQ, b.IRQ) + d(a.SoftIRQ, b.SoftIRQ)
	idl := d(a.Idle, b.Idle)
	iow := d(a.Iowait, b.Iowait)
	st := d(a.Steal, b.Steal)
	total := user + sys + idl + iow + st
	if total == 0 {
		return 0, 100, 0, 0
	}
	return 100 * (user + sys) / total, 100 * (idl + iow) / total, 100 * iow / total, 100 * st / total
}
