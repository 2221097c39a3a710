//go:build !linux

package rawsock

import "errors"

// Supported: elsewhere clients go through Go's own socket calls.
const Supported = false

func Write(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
func Read(uintptr, []byte) (int, error)  { return 0, errors.ErrUnsupported }
