package rawsock

import (
	"errors"
	"syscall"
)

// ErrShortWrite: the socket's send buffer took only part of a request
// (never, for requests as small as a workload's); the caller writes the
// rest the ordinary way, then reads.
var ErrShortWrite = errors.New("short write")

// SendRest writes what of out is not sent yet (*sent bytes are) on the
// non-blocking socket fd. It is meant for a syscall.RawConn.Read callback,
// which forgets any earlier readiness before it runs, so that the reply's
// readiness cannot be missed. nil: all is sent, wait for the reply.
func SendRest(fd uintptr, out []byte, sent *int) error {
	n, err := Write(fd, out[*sent:])
	if n > 0 {
		*sent += n
	}
	switch {
	case err != nil && err != syscall.EAGAIN && err != syscall.EINTR:
		return err
	case *sent < len(out):
		return ErrShortWrite
	}
	return nil
}
