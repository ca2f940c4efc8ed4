package httpserver

import (
	"sync/atomic"
	"time"
)

// Pauses counts the times a connection paused reading for backpressure.
var Pauses atomic.Int64

func init() { pauseHook = func() { Pauses.Add(1) } }

// Timeouts returns s's resolved timeouts: header, idle, body, write.
func Timeouts(s *Server) [4]time.Duration {
	t := s.timeouts
	return [4]time.Duration{t.header, t.idle, t.body, t.write}
}
