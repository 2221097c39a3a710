package monitor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// The activity query (engine.Statistics.ActivityQuery) reads what the
// monitor needs of every server process; roles and databases come as
// oids, named from a cache (oidNames). The monitor's own row is skipped
// in Go.

// activityStmt names the prepared activity query on the monitor's
// connection.
const activityStmt = "tenantbench_monitor_activity"

// activityTypes are the types of the activity query's columns, received in
// binary: the integers as 4 big-endian bytes, the texts as their bytes.
var activityTypes = [...]uint32{pgtype.Int4OID, pgtype.TextOID, pgtype.OIDOID, pgtype.OIDOID, pgtype.TextOID, pgtype.TextOID, pgtype.TextOID}

// binaryResults asks for every result column in binary.
var binaryResults = []int16{pgtype.BinaryFormatCode}

// prepareActivity prepares the activity query on a new connection. Executing the
// statement by its description (pgconn's ExecStatement) spares the
// Describe a prepared statement's execution otherwise sends.
func (s *sampler) prepareActivity(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	sd, err := s.conn.PgConn().Prepare(ctx, activityStmt, s.sql.ActivityQuery(), nil)
	if err != nil {
		return fmt.Errorf("prepare the pg_stat_activity query: %w", err)
	}
	if len(sd.Fields) != len(activityTypes) {
		return fmt.Errorf("pg_stat_get_activity: %d columns, want %d", len(sd.Fields), len(activityTypes))
	}
	for i, f := range sd.Fields {
		if f.DataTypeOID != activityTypes[i] {
			return fmt.Errorf("pg_stat_get_activity: column %s has type oid %d, want %d", f.Name, f.DataTypeOID, activityTypes[i])
		}
	}
	s.act = sd
	return nil
}

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

// activity reads pg_stat_activity once: it names the class and tenant of
// every server process not named yet, and with countWaits adds every
// session to the wait histogram. The row values reference the connection's
// read buffer: nothing is allocated per row but for processes and
// histogram keys seen for the first time. A known process's class and
// category are not computed again: only its state and wait event are new.
func (s *sampler) activity(ctx context.Context, countWaits bool) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rr := s.conn.PgConn().ExecStatement(ctx, s.act, nil, nil, binaryResults)
	counted := false
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != len(activityTypes) || len(v[0]) != 4 {
			continue
		}
		pid := int(int32(binary.BigEndian.Uint32(v[0])))
		if pid == s.monitorPid {
			continue
		}
		p := s.procs[pid]
		if p == nil {
			p = &proc{cat: noTenant}
			s.procs[pid] = p
		}
		if p.cat == noTenant || p.titled {
			if c := classOf(v[1]); c != classUnknown && (p.class == classUnknown || p.titled) {
				if c != p.class {
					p.cat = noTenant
				}
				p.class, p.titled = c, false
			}
			session := p.class == classClient || p.class == classParallel // the others' category needs no name
			// PostgreSQL 18 lists a backend while it authenticates,
			// before it has a role: it is named at a later query, not
			// for good as no tenant's.
			if p.cat == noTenant && p.class != classUnknown && !(session && oidOf(v[2]) == 0) {
				var user, db []byte
				ok := true
				if session {
					user, db, ok = s.names.lookup(oidOf(v[2]), oidOf(v[3]))
				}
				if !ok {
					// A role or database the cache does not know yet:
					// named once the result is read.
					s.pending = append(s.pending, pendingRow{p: p, user: oidOf(v[2]), db: oidOf(v[3]), count: countWaits,
						state: clone(v[4]), wtype: clone(v[5]), wname: clone(v[6])})
					continue
				}
				p.cat = s.tenants.category(p.class, user, db)
			}
		}
		if countWaits {
			s.waits.add(waitCat(p.cat), v[4], v[5], v[6])
			counted = true
		}
	}
	_, err := rr.Close()
	if err == nil {
		s.queries++
	}
	if len(s.pending) > 0 {
		counted = s.namePending(ctx, err == nil) || counted
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

// pendingRow is a session whose role or database oid was not in the cache
// when its row was read.
type pendingRow struct {
	p                   *proc
	user, db            uint32
	count               bool
	state, wtype, wname []byte
}

// namePending reads the roles' and databases' names again (when the
// connection still works) and names the pending sessions; those it cannot
// name stay unnamed until a later query, their waits counted as "(other)".
// It reports whether it counted waits.
func (s *sampler) namePending(ctx context.Context, connOK bool) bool {
	err := errConnBroken
	if connOK {
		if err = s.names.refresh(ctx, s.conn, s.sql.NamesQuery()); err != nil {
			s.errs.add(time.Since(s.origin), "read role and database names: %v", err)
		}
	}
	counted := false
	for i, r := range s.pending {
		if err == nil {
			user, db, _ := s.names.lookup(r.user, r.db) // not found: dropped, as a NULL usename or datname
			r.p.cat = s.tenants.category(r.p.class, user, db)
		}
		if r.count {
			s.waits.add(waitCat(r.p.cat), r.state, r.wtype, r.wname)
			counted = true
		}
		s.pending[i] = pendingRow{}
	}
	s.pending = s.pending[:0]
	return counted
}

var errConnBroken = errors.New("connection broken")

// oidOf decodes a binary oid; NULL is 0 (no role, no database).
func oidOf(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// oidNames names roles and databases by oid for the sessions'
// attribution. It is read when a session to name has an oid it lacks: a
// role or database made since (a tenant's), so at most a few times a run.
type oidNames struct {
	roles, dbs map[uint32][]byte
}

// lookup names a role and a database; oid 0 has no name. ok is false when
// an oid is not in the cache.
func (n *oidNames) lookup(role, db uint32) (user, dbName []byte, ok bool) {
	if role != 0 {
		if user, ok = n.roles[role]; !ok {
			return nil, nil, false
		}
	}
	if db != 0 {
		if dbName, ok = n.dbs[db]; !ok {
			return nil, nil, false
		}
	}
	return user, dbName, true
}

func (n *oidNames) refresh(ctx context.Context, conn *pgx.Conn, query string) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return err
	}
	roles, dbs := map[uint32][]byte{}, map[uint32][]byte{}
	var (
		isRole bool
		oid    uint32
		name   string
	)
	_, err = pgx.ForEachRow(rows, []any{&isRole, &oid, &name}, func() error {
		if isRole {
			roles[oid] = []byte(name)
		} else {
			dbs[oid] = []byte(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	n.roles, n.dbs = roles, dbs
	return nil
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
		return
	}
	if h.index == nil {
		h.index = map[string]int{}
	}
	k := string(b)
	h.index[k] = len(h.keys)
	sep := 2 + len(state)
	h.keys = append(h.keys, waitKey{cat: cat, state: k[2:sep], event: k[sep+1:]})
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
