package mariadb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
)

// readerSeq names each LOAD DATA's reader: the driver's registry of
// readers is process-wide, and tenants load at once.
var readerSeq atomic.Int64

// LoadData loads rows into table with one LOAD DATA LOCAL INFILE whose
// "file" is a stream (go-sql-driver/mysql's reader handlers): write
// writes the rows, as LOAD DATA's default text (tab-separated fields, \N
// for NULL, backslash escapes; workload.AppendLoadText), while the server
// reads them. The statement is the caller's transaction, or its own in
// autocommit. An error of write is returned before the statement's: the
// driver ends a stream that failed as if it had ended, so the server may
// have taken the rows written until then.
func (c *Conn) LoadData(ctx context.Context, table string, write func(w io.Writer) error) error {
	name := fmt.Sprintf("tenantbench_%d", readerSeq.Add(1))
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err)
		written <- err
	}()
	mysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	_, err := c.c.ExecContext(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+name+"' INTO TABLE "+table+
		" FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n'")
	mysql.DeregisterReaderHandler(name)
	pr.CloseWithError(io.ErrClosedPipe) // ends the writer if the server stopped reading
	if werr := <-written; werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
		return fmt.Errorf("load data %s: %w", table, werr)
	}
	if err != nil {
		return fmt.Errorf("load data %s: %w", table, c.note(err))
	}
	return nil
}
