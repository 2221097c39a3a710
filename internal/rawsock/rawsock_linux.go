package rawsock

import (
	"syscall"
	"unsafe"
)

// Supported: on Linux a client may read and write its socket itself.
const Supported = true

// Write and Read are write(2) and read(2) on a non-blocking socket, which
// never sleep: made as raw system calls they skip the scheduler's
// bookkeeping for calls that may block (and its handing the thread's P to
// another thread when one takes long).
func Write(fd uintptr, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func Read(fd uintptr, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
