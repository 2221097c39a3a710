//go:build !linux

package tpch

// poolMemory is n bytes for the text pool.
func poolMemory(n int) []byte { return make([]byte, n) }
