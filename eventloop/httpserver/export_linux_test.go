package httpserver

import "sync/atomic"

// Pauses counts the times a connection paused reading for backpressure.
var Pauses atomic.Int64

func init() { pauseHook = func() { Pauses.Add(1) } }
