package eventloop

// recvSizer picks the size of the next read buffer as Netty's
// AdaptiveRecvByteBufAllocator does: a read that fills its buffer jumps
// four steps up the size table (one doubling), and two reads in a row that
// would have fit one step down move one step down. The table has four
// sizes per doubling from minRecv to maxRecv — the buf allocator's classes,
// so a buffer is not rounded up to a bigger class.
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
	case r.i > 0 && n <= recvSizes[r.i-1]:
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
