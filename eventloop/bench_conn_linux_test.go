package eventloop_test

import (
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop"
)

// BenchmarkEchoRoundTrip: one client on blocking system calls ping-pongs
// size bytes with an echo server in the same process: netkit's (one loop)
// against the standard library's goroutine per connection with a 64 KiB
// buffer. ns/op is one round trip, both sides' system calls included; the
// standalone harness (make bench-echo) pins server and client to their own
// CPUs and measures the server's CPU alone.
func BenchmarkEchoRoundTrip(b *testing.B) {
	for _, size := range []int{64, 4096} {
		name := "size=" + strconv.Itoa(size)
		b.Run(name+"/impl=netkit", func(b *testing.B) {
			g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
			require.NoError(b, err)
			defer g.Close()
			s, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", echo{})
			require.NoError(b, err)
			defer s.Close()
			pingPong(b, s.Addr().(*net.TCPAddr), size)
		})
		b.Run(name+"/impl=net", func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			var wg sync.WaitGroup
			defer wg.Wait()
			defer ln.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				io.CopyBuffer(c, struct{ io.Reader }{c}, make([]byte, 64<<10))
			}()
			pingPong(b, ln.Addr().(*net.TCPAddr), size)
		})
	}
}

func pingPong(b *testing.B, a *net.TCPAddr, size int) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(b, err)
	defer unix.Close(fd)
	sa := &unix.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], a.IP.To4())
	require.NoError(b, unix.Connect(fd, sa))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	msg, got := make([]byte, size), make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		_, err := unix.Write(fd, msg)
		require.NoError(b, err)
		for n := 0; n < size; {
			m, err := unix.Read(fd, got[n:])
			if err != nil || m == 0 { // no assertion call per read: its arguments would allocate
				require.FailNowf(b, "read failed", "read: %d, %v", m, err)
			}
			n += m
		}
	}
}
