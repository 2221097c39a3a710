//go:build !linux

package rawsock

import "net"

// Detach: elsewhere a socket stays on Go's netpoller.
func Detach(c net.Conn) (net.Conn, error) { return c, nil }
