//go:build !linux

package eventloop

import "net"

type listener struct{}

func (ln *listener) close() {}

func removeSocketFile(string) {}

// Listen returns ErrUnsupported: connections need epoll (Linux).
func Listen(g *Group, network, addr string, h Handler, opts ...Option) (*Server, error) {
	return nil, &net.OpError{Op: "listen", Net: network, Err: ErrUnsupported}
}

// Dial returns ErrUnsupported: connections need epoll (Linux).
func Dial(g *Group, network, addr string, h Handler, opts ...Option) (*Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: ErrUnsupported}
}

// DialOn calls done with ErrUnsupported: connections need epoll (Linux).
func DialOn(l *Loop, network, addr string, h Handler, done func(*Conn, error), opts ...Option) {
	done(nil, &net.OpError{Op: "dial", Net: network, Err: ErrUnsupported})
}
