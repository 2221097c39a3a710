//go:build !linux

package mariadb

import "errors"

// rawSockets: elsewhere the driver reads and writes through Go's own
// socket calls.
const rawSockets = false

func rawWrite(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
func rawRead(uintptr, []byte) (int, error)  { return 0, errors.ErrUnsupported }
