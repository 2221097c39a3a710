package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ServerLogCap bounds the copy of a server's log kept with a run: a
// server that logged for hours must not fill the results directory.
const ServerLogCap = 1 << 20

// KeepServerLog copies a server's log, src, into the run's directory as
// runs/<id>/server-<name>.log, so that the evidence of a server that exited
// or was killed outlives the work directory that teardown removes: all of
// it up to ServerLogCap, else its last ServerLogCap bytes from a line
// start, after a line saying how much was left out. It returns the copy's
// path.
func (d *Dir) KeepServerLog(id, name, src string) (string, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	var head []byte
	if skip := st.Size() - ServerLogCap; skip > 0 {
		if _, err := f.Seek(skip, io.SeekStart); err != nil {
			return "", err
		}
		head = fmt.Appendf(nil, "[tenantbench: the first %d bytes of %s are not kept]\n", skip, src)
	}
	b, err := io.ReadAll(io.LimitReader(f, ServerLogCap))
	if err != nil {
		return "", err
	}
	if head != nil {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:] // from a whole line
		}
	}
	rel := filepath.Join("runs", id, "server-"+strings.ReplaceAll(name, string(filepath.Separator), "_")+".log")
	if err := d.WriteFile(rel, append(head, b...), 0o644); err != nil {
		return "", err
	}
	return filepath.Join(d.Path, rel), nil
}
