// Package poll is the event loop's readiness poller: on Linux an epoll
// instance and an eventfd to wake it, with nanosecond timeouts through
// epoll_pwait2 where the kernel has it. It speaks netkit's event bits
// (Events), the same on every system, and translates them to and from
// epoll's. On other systems it does not build a Poller: the event loop
// returns ErrUnsupported there before it would need one.
package poll

// Events is a set of readiness events. The values are netkit's own (the
// event loop's public Events has the same ones); Linux's epoll values are
// translated at the system call.
type Events uint32

// The event bits.
const (
	In      Events = 1 << iota // readable
	Out                        // writable
	Err                        // an error is pending
	Hup                        // hang-up
	RdHup                      // the peer shut down its writing half
	ET                         // edge-triggered registration
	OneShot                    // disabled after its next event until modified
)

// An Event is a ready descriptor: its number, the tag of its registration
// and what it is ready for.
type Event struct {
	FD     int32
	Tag    uint32
	Events Events
}
