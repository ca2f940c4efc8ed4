package eventloop_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/eventloop"
)

// Helpers of the reliability tests over real loopback sockets
// (conn_*_linux_test.go).

// clean makes t fail if it leaks a file descriptor, a goroutine or a
// buffer. Call it first in the test, before making the group: its checks
// run after the cleanups registered later (which close the servers and the
// group). The accounting is process-wide, so tests using it must not run in
// parallel.
func clean(t *testing.T) {
	t.Helper()
	buftest.CheckLeaks(t) // registered first: runs last, after the group closed
	// The runtime's network poller keeps its descriptors once made: make
	// them before counting.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	fds := fdCount(t)
	gs := runtime.NumGoroutine()
	inUse := buf.Default.Stats().Total().InUse
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			nf, ng, nb := fdCount(t), runtime.NumGoroutine(), buf.Default.Stats().Total().InUse
			if nf <= fds && ng <= gs && nb <= inUse {
				return
			}
			if time.Now().After(deadline) {
				if nf > fds {
					t.Errorf("fd leak: %d open before, %d after:\n%s", fds, nf, fdList())
				}
				if ng > gs {
					b := make([]byte, 1<<20)
					b = b[:runtime.Stack(b, true)]
					t.Errorf("goroutine leak: %d before, %d after:\n%s", gs, ng, b)
				}
				assert.LessOrEqual(t, nb, inUse, "buffer leak: %d bytes of buf.Default in use before, %d after", inUse, nb)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func fdCount(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(es)
}

func fdList() string {
	es, _ := os.ReadDir("/proc/self/fd")
	var sb strings.Builder
	for _, e := range es {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		fmt.Fprintf(&sb, "  %s -> %s\n", e.Name(), l)
	}
	return sb.String()
}

// waitFor polls cond until it holds, failing t after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.False(t, time.Now().After(deadline), "timed out waiting for %s", what)
		time.Sleep(2 * time.Millisecond)
	}
}

// recvOrFail receives from ch, failing t after 10 s.
func recvOrFail[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// stream is a deterministic pseudo-random byte stream, a function of its
// seed and the offset: a writer and a reader made with the same seed
// produce the same bytes, so a reader checks every byte in place and in
// order.
type stream struct {
	seed uint64
	off  int64 // bytes produced
}

func newStream(seed uint64) *stream { return &stream{seed: seed*0x9e3779b97f4a7c15 + 1} }

// word is the stream's k-th 8-byte word (splitmix64).
func (s *stream) word(k int64) uint64 {
	z := s.seed + uint64(k)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *stream) fill(p []byte) {
	off := s.off
	for len(p) > 0 {
		if off%8 == 0 && len(p) >= 8 {
			binary.LittleEndian.PutUint64(p, s.word(off/8))
			p, off = p[8:], off+8
			continue
		}
		p[0] = byte(s.word(off/8) >> (8 * (off % 8)))
		p, off = p[1:], off+1
	}
	s.off = off
}

// check compares p with the stream's next len(p) bytes.
func (s *stream) check(p []byte) error {
	want := make([]byte, len(p))
	at := s.off
	s.fill(want)
	if !bytes.Equal(p, want) {
		i := 0
		for p[i] == want[i] {
			i++
		}
		return fmt.Errorf("byte %d of the stream is %#x, want %#x", at+int64(i), p[i], want[i])
	}
	return nil
}

// msgSize draws a message size from 1 B to 256 KiB, log-uniform so that
// small and large messages are both common.
func msgSize(r *rand.Rand) int {
	shift := r.IntN(19) // 1 .. 2^18
	return 1 + r.IntN(1<<shift)
}

// counter counts a server's connection events; its zero value is ready.
type counter struct {
	active, inactive, readClosed, errs atomic.Int64
	mu                                 sync.Mutex
	errList                            []error
}

func (n *counter) OnActive(*eventloop.Context)     { n.active.Add(1) }
func (n *counter) OnInactive(*eventloop.Context)   { n.inactive.Add(1) }
func (n *counter) OnReadClosed(*eventloop.Context) { n.readClosed.Add(1) }
func (n *counter) OnError(_ *eventloop.Context, err error) {
	n.errs.Add(1)
	n.mu.Lock()
	n.errList = append(n.errList, err)
	n.mu.Unlock()
}

func (n *counter) errors() []error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]error(nil), n.errList...)
}

// countingEcho echoes every byte and counts active and inactive events;
// it leaves the peer's half-close to the tail (which closes).
type countingEcho struct{ n *counter }

func (e countingEcho) OnActive(x *eventloop.Context)           { e.n.OnActive(x) }
func (e countingEcho) OnInactive(x *eventloop.Context)         { e.n.OnInactive(x) }
func (e countingEcho) OnError(x *eventloop.Context, err error) { e.n.OnError(x, err) }
func (countingEcho) OnRead(x *eventloop.Context, msg any)      { x.Write(msg) }
func (countingEcho) OnReadComplete(x *eventloop.Context)       { x.Flush() }

// relGroup makes a group of n loops whose panics go to onPanic (nil: the
// test fails on any panic).
func relGroup(t *testing.T, n int, onPanic func(v any, stack []byte)) *eventloop.Group {
	t.Helper()
	if onPanic == nil {
		onPanic = func(v any, stack []byte) { t.Errorf("unexpected panic on a loop: %v\n%s", v, stack) }
	}
	return newGroup(t, eventloop.Config{Loops: n, OnPanic: onPanic})
}
