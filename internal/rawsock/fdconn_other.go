//go:build !linux

package rawsock

import "net"

// Unpoll: elsewhere a socket stays on Go's netpoller.
func (c *Conn) Unpoll() bool { return false }

// Unpolled: elsewhere a socket stays on Go's netpoller.
func Unpolled(c net.Conn, s *Socket) (net.Conn, bool) { return c, false }

// Detached: elsewhere no socket is out of Go's netpoller.
func Detached(c net.Conn) bool { return false }
