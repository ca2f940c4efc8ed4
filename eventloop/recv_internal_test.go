package eventloop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecvSizerSettles: a stream of messages of one size settles at the
// smallest table size they do not fill, so each costs one read (a read
// that fills its buffer needs another to learn the socket is empty); a
// full read at any size grows the next one.
func TestRecvSizerSettles(t *testing.T) {
	for _, msg := range []int{1, 63, 64, 65, 80, 100, 512, 4096, 60000} {
		var r recvSizer
		r.init()
		for range 200 {
			size := r.next()
			r.record(min(msg, size), size)
		}
		size := r.next()
		assert.Greater(t, size, msg, "message of %d bytes: settled at %d, which it fills", msg, size)
		i := 0
		for recvSizes[i] != size {
			i++
		}
		if i > 0 {
			assert.LessOrEqual(t, recvSizes[i-1], msg, "message of %d bytes: settled at %d, but %d would do", msg, size, recvSizes[i-1])
		}
	}
}

func TestRecvSizerGrowsAfterFullRead(t *testing.T) {
	var r recvSizer
	r.init()
	for range 200 {
		r.record(10, r.next())
	}
	require.Equal(t, minRecv, r.next())
	r.record(minRecv, minRecv)
	assert.Equal(t, 2*minRecv, r.next(), "a full read at the smallest size did not double the next")
	for range 20 {
		r.record(r.next(), r.next())
	}
	assert.Equal(t, maxRecv, r.next())
	r.record(maxRecv, maxRecv)
	assert.Equal(t, maxRecv, r.next())
}
