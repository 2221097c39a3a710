//go:build !linux

package workload

import "errors"

// rawSockets: elsewhere Wire goes through pgproto3 (wire.go).
const rawSockets = false

func rawWrite(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
func rawRead(uintptr, []byte) (int, error)  { return 0, errors.ErrUnsupported }
