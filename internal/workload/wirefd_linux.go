package workload

import (
	"syscall"
	"unsafe"
)

// rawSockets: Wire reads and writes its socket itself (wirefd.go).
const rawSockets = true

// rawWrite and rawRead are write(2) and read(2) on a non-blocking socket,
// which never sleep: made as raw system calls they skip the scheduler's
// bookkeeping for calls that may block (and its handing the thread's P to
// another thread when one takes long).
func rawWrite(fd uintptr, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawRead(fd uintptr, b []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
