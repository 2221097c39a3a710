package mariadb

import (
	"syscall"
	"unsafe"
)

// rawSockets: sendOnRead reads and writes its socket itself (sock.go).
const rawSockets = true

// rawWrite and rawRead are write(2) and read(2) on a non-blocking socket,
// which never sleep: made as raw system calls they skip the scheduler's
// bookkeeping for calls that may block, as package workload's are (an
// engine package imports nothing of the workloads).
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
