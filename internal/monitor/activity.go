package monitor

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// The engine's statistics session reads every server process
// (server.Activity), its role and database named; the monitor gives each
// its class and tenant.

// tenantMap maps a session's role, or else its database, to a tenant.
type tenantMap struct {
	names  []string       // pseudo tenants, then tenants
	byRole map[string]int // index into names
	byDB   map[string]int // databases of exactly one tenant of this instance
}

// set adds the tenants placed on instance. Indexes already given stay:
// samples taken before hold them.
func (m *tenantMap) set(instance string, ps []tenancy.Placement) {
	if m.byRole == nil {
		m.byRole, m.byDB = map[string]int{}, map[string]int{}
	}
	dbTenants := map[string]int{}
	for _, p := range ps {
		if p.Instance == nil || p.Instance.Name != instance {
			continue
		}
		i := -1
		for j, n := range m.names[firstTenant:] {
			if n == p.Tenant {
				i = firstTenant + j
			}
		}
		if i < 0 {
			i = len(m.names)
			m.names = append(m.names, p.Tenant)
		}
		if p.Role != "" {
			m.byRole[p.Role] = i
		}
		if p.Database != "" {
			dbTenants[p.Database]++
			m.byDB[p.Database] = i
		}
	}
	// A database several tenants share (the schema model's) tells no
	// tenant apart.
	for db, n := range dbTenants {
		if n > 1 {
			delete(m.byDB, db)
		}
	}
}

// category is the CPU category of a session.
func (m *tenantMap) category(c class, user, db []byte) int {
	switch c {
	case classClient, classParallel:
		if i, ok := m.byRole[string(user)]; ok {
			return i
		}
		if i, ok := m.byDB[string(db)]; ok {
			return i
		}
		return catOther
	case classBackground:
		return catBackground
	case classMonitor:
		return catMonitor
	}
	return noTenant
}

// activity reads the server's sessions once: it names the class and tenant
// of every server process not named yet, and with countWaits adds every
// session to the wait histogram. A known process's class and category are
// not computed again: only its state and wait event are new.
func (s *sampler) activity(ctx context.Context, countWaits bool) error {
	if countWaits {
		s.waits.begin()
	}
	counted := false
	rows := 0
	defer func() { s.waitRows = rows }()
	err := s.conn.Activity(ctx, func(a *server.Activity) {
		rows++
		if s.threaded {
			if a.Pid > 0 { // 0: a session without its thread yet
				p := s.nameThread(a)
				if countWaits {
					s.waits.add(waitCat(p.cat), a.State, a.WaitType, a.WaitName)
					counted = true
				}
			}
			return
		}
		p := s.procs[a.Pid]
		if p == nil {
			p = &proc{cat: noTenant}
			s.procs[a.Pid] = p
		} else if p.exited { // its pid taken by a new session already
			s.retire(p)
			*p = proc{cat: noTenant}
		}
		if p.cat == noTenant || p.titled {
			if c := classOf(a.Type); c != classUnknown && (p.class == classUnknown || p.titled) {
				if c != p.class {
					p.cat = noTenant
				}
				p.class, p.titled = c, false
			}
			session := p.class == classClient || p.class == classParallel // the others' category needs no name
			// PostgreSQL 18 lists a backend while it authenticates,
			// before it has a role: it is named at a later query, not
			// for good as no tenant's. A session whose names could not
			// be read is named at a later query too.
			if p.cat == noTenant && p.class != classUnknown && !(session && (!a.HasRole || !a.Named)) {
				p.cat = s.tenants.category(p.class, a.User, a.Database)
			}
		}
		if countWaits {
			s.waits.add(waitCat(p.cat), a.State, a.WaitType, a.WaitName)
			counted = true
		}
	})
	if err == nil {
		s.queries++
	}
	if countWaits && (err == nil || counted) {
		s.waits.ticks++
	}
	return err
}

// waitCat is the histogram category of a session: one whose tenant is not
// known (a process pg_stat_activity lists before it has a class) is
// "(other)".
func waitCat(cat int) int {
	if cat == noTenant {
		return catOther
	}
	return cat
}

// queryTimeout bounds every monitoring query, so that a server that hangs
// does not hang the monitor.
const queryTimeout = 5 * time.Second

// waitHist counts sessions by category, state and wait event. Keys are
// looked up with a reused byte buffer, so a tick allocates only for keys
// never seen before.
type waitHist struct {
	ticks  int64
	index  map[string]int
	keys   []waitKey
	counts []int64
	buf    []byte
	// last holds the key of every session the last tick counted, by
	// index, so that a tick nothing can have changed counts them again
	// (repeat).
	last []int
}

// begin starts a tick's counts.
func (h *waitHist) begin() { h.last = h.last[:0] }

// repeat counts the last tick's sessions again, as a tick of its own.
func (h *waitHist) repeat() {
	for _, i := range h.last {
		h.counts[i]++
	}
	h.ticks++
}

type waitKey struct {
	cat          int
	state, event string
}

func (h *waitHist) add(cat int, state, wtype, wname []byte) {
	b := append(h.buf[:0], byte(cat>>8), byte(cat))
	b = append(b, state...)
	b = append(b, 0)
	switch {
	case wtype != nil:
		b = append(b, wtype...)
		b = append(b, ':')
		b = append(b, wname...)
	case string(state) == "active":
		b = append(b, "CPU"...)
	default:
		b = append(b, '-')
	}
	h.buf = b
	if i, ok := h.index[string(b)]; ok {
		h.counts[i]++
		h.last = append(h.last, i)
		return
	}
	if h.index == nil {
		h.index = map[string]int{}
	}
	k := string(b)
	h.index[k] = len(h.keys)
	sep := 2 + len(state)
	h.keys = append(h.keys, waitKey{cat: cat, state: k[2:sep], event: k[sep+1:]})
	h.last = append(h.last, len(h.counts))
	h.counts = append(h.counts, 1)
}

// waitMark is the histogram at a mark.
type waitMark struct {
	label  string
	ticks  int64
	counts []int64
}

func (h *waitHist) mark(label string) waitMark {
	return waitMark{label: label, ticks: h.ticks, counts: append([]int64(nil), h.counts...)}
}

// segment is the histogram between two marks.
func (h *waitHist) segment(from, to waitMark, names []string) WaitSegment {
	seg := WaitSegment{From: from.label, To: to.label, Ticks: to.ticks - from.ticks}
	for i, n := range to.counts {
		if i < len(from.counts) {
			n -= from.counts[i]
		}
		if n == 0 {
			continue
		}
		k := h.keys[i]
		seg.Counts = append(seg.Counts, WaitCount{Tenant: names[k.cat], State: k.state, Event: k.event, Samples: n})
	}
	return seg
}

// errorLog keeps the distinct problems of a sampler, with how often and
// when first, so that a dead instance fills no memory with repeats.
type errorLog struct {
	index map[string]int
	items []errorItem
	more  int
}

type errorItem struct {
	msg   string
	n     int
	first time.Duration
}

const maxErrors = 20

func (l *errorLog) add(t time.Duration, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if i, ok := l.index[msg]; ok {
		l.items[i].n++
		return
	}
	if len(l.items) == maxErrors {
		l.more++
		return
	}
	if l.index == nil {
		l.index = map[string]int{}
	}
	l.index[msg] = len(l.items)
	l.items = append(l.items, errorItem{msg: msg, n: 1, first: t})
}

func (l *errorLog) list(prefix string) []string {
	var out []string
	for _, it := range l.items {
		out = append(out, fmt.Sprintf("%s%s (%d times, first at %.1f s)", prefix, it.msg, it.n, it.first.Seconds()))
	}
	if l.more > 0 {
		out = append(out, fmt.Sprintf("%s%d more errors", prefix, l.more))
	}
	return out
}
