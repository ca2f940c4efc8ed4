package eventloop_test

import (
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/rt/iovec"
)

// smallWriter writes n buffers of size bytes, byte i of the stream being
// byte(i), and flushes once, as soon as the connection is active.
type smallWriter struct{ n, size int }

func (w smallWriter) OnActive(x *eventloop.Context) {
	p := make([]byte, w.size)
	off := 0
	for range w.n {
		for j := range p {
			p[j] = byte(off + j)
		}
		off += len(p)
		if err := x.Write(p); err != nil {
			panic(err)
		}
	}
	x.Flush()
}

// TestWritevViewsBounded: a queue of many small buffers is written with at
// most iovec.Max (IOV_MAX) views per writev, so that a flush does work in
// proportion to what one call can take, not to the whole queue (which made
// writing 64 MiB as 64-byte buffers quadratic). All bytes arrive in order.
func TestWritevViewsBounded(t *testing.T) {
	clean(t)
	const n, size = 40000, 64 // 2.5 MiB in 40000 components
	var calls, views, most atomic.Int64
	defer eventloop.CountWritevViews(func(k int) {
		calls.Add(1)
		views.Add(int64(k))
		for m := most.Load(); int64(k) > m && !most.CompareAndSwap(m, int64(k)); m = most.Load() {
		}
	})()
	g := newGroup(t, eventloop.Config{Loops: 1})
	srv := listen(t, g, "tcp", "127.0.0.1:0", smallWriter{n: n, size: size})
	readSmallWriter(t, srv, n*size, 20*time.Second)
	t.Logf("%d writev calls, %d views in all, at most %d in one", calls.Load(), views.Load(), most.Load())
	require.LessOrEqual(t, most.Load(), int64(iovec.Max), "views handed to one writev")
	// Each call takes a bounded slice of the queue: the views built over
	// the whole transfer are O(components), not O(components × calls).
	require.LessOrEqual(t, views.Load(), int64(n)+calls.Load()*iovec.Max)
}

// BenchmarkWriteSmallBuffers writes total bytes as 64-byte buffers through
// one connection (Write of each, one Flush) to a reader draining it with
// 1 MiB reads; one op is the whole transfer. A flush that does work in
// proportion to the whole queue per writev makes ns/op grow with the square
// of total; linear, the time per MiB is the same at every size.
func BenchmarkWriteSmallBuffers(b *testing.B) {
	for _, mib := range []int{16, 32, 64} {
		b.Run("total="+strconv.Itoa(mib)+"MiB", func(b *testing.B) {
			total := mib << 20
			g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
			require.NoError(b, err)
			defer g.Close()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			defer ln.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := ln.Accept()
				if err == nil {
					accepted <- c
				}
			}()
			c, err := eventloop.Dial(g, "tcp", ln.Addr().String(), nil)
			require.NoError(b, err)
			defer c.Close()
			peer := <-accepted
			defer peer.Close()
			p := make([]byte, 64)
			write := func() {
				for range total / len(p) {
					if err := c.Write(p); err != nil {
						panic(err)
					}
				}
				c.Flush()
			}
			r := make([]byte, 1<<20)
			b.SetBytes(int64(total))
			for b.Loop() {
				require.NoError(b, c.Loop().Execute(write))
				for n := 0; n < total; {
					m, err := peer.Read(r)
					require.NoError(b, err)
					n += m
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(mib), "ns/MiB")
		})
	}
}

// readSmallWriter dials srv, a smallWriter's server, reads its total
// bytes within d and checks that byte i is byte(i): every component
// arrived, in order.
func readSmallWriter(t *testing.T, srv *eventloop.Server, total int, d time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(d)))
	got := make([]byte, total)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	for i, b := range got {
		if b != byte(i) {
			require.Failf(t, "wrong byte", "byte %d is %d, want %d", i, b, byte(i))
		}
	}
}
