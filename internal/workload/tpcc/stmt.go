package tpcc

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// stmt is a prepared statement with its parameter buffers, allocated once
// and sized by the parameter's type: the hot path only overwrites them.
type stmt struct {
	name, sql string
	params    [][]byte
	// parse is the statement sent unnamed before each execution, on a
	// connection whose statements must not be named (workload.Unnamed:
	// behind a pooler that moves the client between server connections);
	// nil for a named statement. sd is its description, for the wire
	// (workload.Wire.Unnamed), and wired says the wire has it.
	parse *pgproto3.Parse
	sd    *pgconn.StatementDescription
	wired bool
}

// Parameter type OIDs the statements use.
const (
	oidInt4      = 23
	oidInt8      = 20
	oidText      = 25
	oidVarchar   = 1043
	oidInt4Array = 1007
	oidTextArray = 1009
)

// Room reserved per parameter: a text parameter is a last name (at most
// 15 bytes, clause 4.3.2.3); an int4[] holds at most one element per order
// line, and so does a text[] (of S_DIST_xx values, 24 characters each).
const (
	textRoom      = 32
	arrayRoom     = 20 + maxOrderLines*8
	textArrayRoom = 20 + maxOrderLines*(4+distLen)
	distLen       = 24
)

// prepare prepares s on conn and sizes its buffers from the parameter
// types the server inferred.
func (s *stmt) prepare(ctx context.Context, conn *pgx.Conn, name, sql string) error {
	s.name, s.sql = "tpcc_"+name, sql
	sd, err := workload.Prepare(ctx, conn, s.name, sql)
	if err != nil {
		return fmt.Errorf("tpcc: prepare %s: %w", name, err)
	}
	if workload.Unnamed(conn) {
		s.parse = &pgproto3.Parse{Query: sql, ParameterOIDs: sd.ParamOIDs}
		s.sd = sd
	}
	size := 0
	for _, oid := range sd.ParamOIDs {
		n, ok := paramRoom(oid)
		if !ok {
			return fmt.Errorf("tpcc: prepare %s: parameter of type oid %d", name, oid)
		}
		size += n
	}
	buf := make([]byte, size)
	s.params = make([][]byte, len(sd.ParamOIDs))
	for i, oid := range sd.ParamOIDs {
		n, _ := paramRoom(oid)
		s.params[i], buf = buf[:n:n], buf[n:]
		switch oid {
		case oidText, oidVarchar, oidInt4Array, oidTextArray:
			s.params[i] = s.params[i][:0]
		}
	}
	return nil
}

func paramRoom(oid uint32) (int, bool) {
	switch oid {
	case oidInt4:
		return 4, true
	case oidInt8:
		return 8, true
	case oidText, oidVarchar:
		return textRoom, true
	case oidInt4Array:
		return arrayRoom, true
	case oidTextArray:
		return textArrayRoom, true
	}
	return 0, false
}

// int4 sets parameter i, an int4.
func (s *stmt) int4(i int, v int) {
	binary.BigEndian.PutUint32(s.params[i], uint32(int32(v)))
}

// int8 sets parameter i, an int8.
func (s *stmt) int8(i int, v int64) {
	binary.BigEndian.PutUint64(s.params[i], uint64(v))
}

// text sets parameter i, a text.
func (s *stmt) text(i int, v string) {
	s.params[i] = append(s.params[i][:0], v...)
}

// int4s sets parameter i, an int4[] of the values of vs (binary array
// format: dimensions, null flag, element type, then per dimension its
// length and lower bound, then each element's length and value).
func (s *stmt) int4s(i int, vs []int32) {
	b := s.params[i][:0]
	if len(vs) == 0 {
		b = binary.BigEndian.AppendUint32(b, 0)
		b = binary.BigEndian.AppendUint32(b, 0)
		s.params[i] = binary.BigEndian.AppendUint32(b, oidInt4)
		return
	}
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, oidInt4)
	b = binary.BigEndian.AppendUint32(b, uint32(len(vs)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, v := range vs {
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	s.params[i] = b
}

// dists sets parameter i, a text[] of the first n values of vs, in the
// binary array format of int4s.
func (s *stmt) dists(i int, vs *[maxOrderLines][distLen]byte, n int) {
	b := s.params[i][:0]
	if n == 0 {
		b = binary.BigEndian.AppendUint32(b, 0)
		b = binary.BigEndian.AppendUint32(b, 0)
		s.params[i] = binary.BigEndian.AppendUint32(b, oidText)
		return
	}
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, oidText)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, 1)
	for k := range n {
		b = binary.BigEndian.AppendUint32(b, distLen)
		b = append(b, vs[k][:]...)
	}
	s.params[i] = b
}

// Result decoders for binary values.

func getInt4(v []byte) int {
	if len(v) != 4 {
		return 0
	}
	return int(int32(binary.BigEndian.Uint32(v)))
}

func getInt8(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// stmtSQL is a statement to prepare: where it goes, its name and its SQL.
type stmtSQL struct {
	st       *stmt
	name, sq string
}

// prepareAll prepares each of ss on conn.
func prepareAll(ctx context.Context, conn *pgx.Conn, ss []stmtSQL) error {
	for _, s := range ss {
		if err := s.st.prepare(ctx, conn, s.name, s.sq); err != nil {
			return err
		}
	}
	return nil
}
