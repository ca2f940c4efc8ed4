package eventloop

// recvSizer picks the size of the next read buffer as Netty's
// AdaptiveRecvByteBufAllocator does: a read that fills its buffer jumps
// four steps up the size table (one doubling) before the next read, and two
// reads in a row that would not have filled the size one step down move one
// step down. The table has four sizes per doubling from minRecv to maxRecv
// — the buf allocator's classes, so a buffer is not rounded up to a bigger
// class.
//
// A read that fills its buffer proves nothing about what is left in the
// socket, so the connection reads again, and a read that does not fill it
// proves the socket empty. The sizer therefore never shrinks to a size the
// recent reads would fill: messages of 64 bytes settle at 80-byte buffers
// and cost one read each, not a second read that returns EAGAIN.
type recvSizer struct {
	i        uint8
	decrease bool
}

const (
	minRecv     = 64
	maxRecv     = 64 << 10
	initialRecv = 2048
	recvUp      = 4 // steps up after a full read
)

// recvSizes is the size table: 64, 80, 96, 112, 128, 160, … 65536.
var recvSizes = func() []int {
	var s []int
	for p := minRecv; p < maxRecv; p *= 2 {
		for q := range 4 {
			s = append(s, p+q*p/4)
		}
	}
	return append(s, maxRecv)
}()

func (r *recvSizer) init() {
	for i, n := range recvSizes {
		if n == initialRecv {
			r.i = uint8(i)
		}
	}
}

// next returns the size of the next read buffer.
func (r *recvSizer) next() int { return recvSizes[r.i] }

// record adapts the size to a read of n bytes into a buffer of size bytes.
func (r *recvSizer) record(n, size int) {
	switch {
	case r.i > 0 && n < recvSizes[r.i-1]:
		if r.decrease {
			r.i--
			r.decrease = false
		} else {
			r.decrease = true
		}
	case n >= size:
		r.i = uint8(min(int(r.i)+recvUp, len(recvSizes)-1))
		r.decrease = false
	default:
		r.decrease = false
	}
}
