package eventloop

import _ "unsafe" // for go:linkname

// runtimeNano is the runtime's monotonic clock (what time.Now's monotonic
// reading and every runtime timer use), read without time.Now's wall-clock
// half: about half the cost, on the path of every Schedule.
//
//go:linkname runtimeNano runtime.nanotime
func runtimeNano() int64
