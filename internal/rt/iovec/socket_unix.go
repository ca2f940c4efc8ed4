//go:build linux || darwin || openbsd

package iovec

import "syscall"

// NotStream reports whether fd is a socket of a type other than
// SOCK_STREAM (datagram, raw or seqpacket), whose writes each become a
// message of their own, so that one stream of bytes written in several
// calls would arrive as several messages. Descriptors that are not sockets
// (files, pipes, terminals) are streams and report false, as does a
// descriptor whose type cannot be had (the write then reports the error).
func NotStream(fd uintptr) bool {
	typ, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TYPE)
	return err == nil && typ != syscall.SOCK_STREAM
}
