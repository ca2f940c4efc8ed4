//go:build !linux

package eventloop

import "github.com/netkit/netkit/buf"

// Connections need epoll: on other systems Listen and Dial return
// ErrUnsupported, and none of these runs.

var errAgain = ErrUnsupported

type loopConns struct{ list []*Conn }

func (lc *loopConns) composite() *buf.Composite               { return buf.NewComposite() }
func (lc *loopConns) putComposite(c *buf.Composite)           { c.Release() }
func (lc *loopConns) writev(int, *buf.Composite) (int, error) { return 0, ErrUnsupported }
func sysRead(int, []byte) (int, error)                        { return 0, ErrUnsupported }
func sysShutdownWrite(int) error                              { return ErrUnsupported }
func sysClose(int)                                            {}
func sysSocketError(int) error                                { return ErrUnsupported }
func sysUnread(int) int                                       { return 0 }
func (l *Loop) registerConn(*Conn) error                      { return ErrUnsupported }
func (l *Loop) unregisterConn(*Conn)                          {}
func (l *Loop) modify(int, Events) error                      { return ErrUnsupported }
func (l *Loop) closeConns()                                   {}
