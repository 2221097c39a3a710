package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// serverSide is the server's own account of the work so far: its CPU
// seconds (its cgroup, else its processes) and, where its peer's table
// says how to read it, the bytes it has sent to clients. Both tools
// measured on one server thus compare in what each made the server do,
// not only in their own cost.
type serverSide struct {
	cpu, sent float64
	hasSent   bool
}

// serverNow reads the server's account; admin is a session on it.
func serverNow(ctx context.Context, t target, pr peer, admin dbserver.Conn) (serverSide, error) {
	cpu, err := benchutil.ServerCPUSeconds(t.inst)
	if err != nil {
		return serverSide{}, err
	}
	s := serverSide{cpu: cpu}
	if pr.bytesSent == "" {
		return s, nil
	}
	v, err := admin.QueryStrings(ctx, pr.bytesSent)
	if err != nil || len(v) != 1 {
		return s, fmt.Errorf("bytes sent: %v %v", v, err)
	}
	if s.sent, err = strconv.ParseFloat(v[0], 64); err != nil {
		return s, fmt.Errorf("bytes sent %q: %w", v[0], err)
	}
	s.hasSent = true
	return s, nil
}

// perTxn notes on m the server's work between a and b, per transaction
// of m.
func (m *measure) perTxn(a, b serverSide) {
	if m.txns == 0 {
		return
	}
	m.serverUs = (b.cpu - a.cpu) / m.txns * 1e6
	if a.hasSent && b.hasSent {
		m.sentBytes = (b.sent - a.sent) / m.txns
	}
}
