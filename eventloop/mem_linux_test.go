package eventloop_test

import (
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/testenv"
)

// TestIdleConnMemory: an idle connection, after a message each way, holds
// no buffer — only the Conn, with its handler's context inside it: one heap
// object, and at most 400 B per connection counting the loop's tables,
// measured on the live heap after a GC over 4,000 connections (the clients
// are raw descriptors, no Go objects).
func TestIdleConnMemory(t *testing.T) {
	testenv.SkipRace(t, "the race and invariants builds keep extra state per object")
	testenv.SkipInvariants(t, "the race and invariants builds keep extra state per object")
	g := newGroup(t, eventloop.Config{Loops: 1})
	s := listen(t, g, "tcp", "127.0.0.1:0", echo{})
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	const n = 4000
	fds := make([]int, 0, n)
	for range n {
		fd := rawDial(t, s.Addr().(*net.TCPAddr))
		unix.Write(fd, make([]byte, 64))
		fds = append(fds, fd)
	}
	got := make([]byte, 64)
	for _, fd := range fds {
		unix.Read(fd, got)
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	perConn := float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / n
	objects := float64(int64(m1.HeapObjects)-int64(m0.HeapObjects)) / n
	t.Logf("%d connections: %.0f B and %.2f objects of live heap each", s.Conns(), perConn, objects)
	require.Equal(t, n, s.Conns(), "%d connections open, want %d", s.Conns(), n)
	assert.False(t, perConn > 400 || objects > 1.2, "idle connection: %.0f B, %.2f objects, want ≤ 400 B and 1 object", perConn, objects)
	for _, fd := range fds {
		unix.Close(fd)
	}
}
