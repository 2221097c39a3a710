package tpcc

import "github.com/tenantbench/tenantbench/internal/workload"

// textRow turns one binary COPY row of columns of the given kinds
// (fieldKinds: workload's column kinds) into a line of LOAD DATA: the
// encoder every workload's MariaDB form shares (workload.AppendLoadText).
func textRow(out, row []byte, kinds string) ([]byte, error) {
	return workload.AppendLoadText(out, row, kinds)
}

// appendNumericText appends numeric's binary form as decimal text.
func appendNumericText(out, v []byte) ([]byte, error) { return workload.AppendNumericText(out, v) }
