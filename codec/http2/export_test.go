package http2

// Windows returns a stream's send and receive windows (or the
// connection's, for stream 0) and whether the Conn holds the stream.
func (c *Conn) Windows(id uint32) (send, recv int64, ok bool) {
	if id == 0 {
		return c.sendWin, c.recvWin, true
	}
	s := c.streams[id]
	if s == nil {
		return 0, 0, false
	}
	return s.sendWin, s.recvWin, true
}
