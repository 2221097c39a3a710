//go:build linux

package tpch

import "golang.org/x/sys/unix"

// poolMemory is n bytes for the text pool, mapped outside Go's heap and
// backed by transparent huge pages where the kernel allows it (madvise
// mode): comments are read at random offsets all over the 300 MiB, and
// with 4 KiB pages nearly every one misses the TLB. The pool lives as long
// as the process.
func poolMemory(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // a hint; without it the pool works the same
	return b
}
