package httpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// later answers every request from another goroutine after a random
// delay of up to max: the path for /echo/… requests, the body for POST,
// else "Hello, World!", as plaintext does on the loop.
func later(max time.Duration) httpserver.Handler {
	return func(w *http1.ResponseWriter, req *http1.Request) {
		body := []byte("Hello, World!")
		switch {
		case req.Method == http1.MethodPost:
			body = append([]byte(nil), req.Body...)
		case strings.HasPrefix(string(req.Path), "/echo/"):
			body = append([]byte(nil), req.Path...)
		}
		d := httpserver.Detach(w)
		go func() {
			time.Sleep(time.Duration(rand.Int64N(int64(max) + 1)))
			h := plainHeader
			d.Respond(&h, body)
		}()
	}
}

// A detached request is answered from a goroutine, over keep-alive
// connections of Go's client, many at once.
func TestDetachAnswersLater(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, later(2*time.Millisecond))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				path := fmt.Sprintf("/echo/%d/%d", g, i)
				resp, err := client.Get("http://" + addr + path)
				if !assertNoError(t, err) {
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !assertNoError(t, err) {
					return
				}
				require.Equal(t, 200, resp.StatusCode)
				require.Equal(t, path, string(b))
			}
		})
	}
	wg.Wait()
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

// Pipelined requests, some detached and answered out of order, some
// answered on the loop: the responses come back in request order.
func TestDetachKeepsPipelinedOrder(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		var n int
		fmt.Sscanf(string(req.Path), "/echo/%d", &n)
		if n%3 == 0 {
			plaintext(w, req) // on the loop
			return
		}
		later(3*time.Millisecond)(w, req)
	})
	c := dial(t, addr)
	const n = 60
	var reqs strings.Builder
	for i := range n {
		fmt.Fprintf(&reqs, "GET /echo/%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
	}
	_, err := io.WriteString(c, reqs.String())
	require.NoError(t, err)
	br := bufio.NewReader(c)
	for i := range n {
		requireAnswer(t, br, 200, fmt.Sprintf("/echo/%d", i), "response %d", i)
	}
}

// At WithMaxDetached's bound the server reads no further request until a
// detached one is done.
func TestDetachBound(t *testing.T) {
	buftest.CheckLeaks(t)
	var mu sync.Mutex
	var open []*httpserver.Detached
	var calls atomic.Int32
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		calls.Add(1)
		d := httpserver.Detach(w)
		mu.Lock()
		open = append(open, d)
		mu.Unlock()
	}, httpserver.WithMaxDetached(2))
	c := dial(t, addr)
	var reqs strings.Builder
	for i := range 5 {
		fmt.Fprintf(&reqs, "GET /echo/%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
	}
	_, err := io.WriteString(c, reqs.String())
	require.NoError(t, err)
	br := bufio.NewReader(c)
	answered := 0
	for answered < 5 {
		// The handler runs for at most two requests beyond those answered.
		time.Sleep(20 * time.Millisecond)
		require.LessOrEqual(t, int(calls.Load()), answered+2)
		mu.Lock()
		require.NotEmpty(t, open, "no detached request after %d answers", answered)
		d := open[0]
		open = open[1:]
		mu.Unlock()
		h := plainHeader
		require.NoError(t, d.Respond(&h, []byte(fmt.Sprint("answer ", answered))))
		requireAnswer(t, br, 200, fmt.Sprint("answer ", answered))
		answered++
	}
	require.Equal(t, int32(5), calls.Load())
}

// When the client goes away, the detached work's context is cancelled and
// Done reports ErrConnClosed; nothing leaks.
func TestDetachConnClosed(t *testing.T) {
	buftest.CheckLeaks(t)
	_, c, d := detachOne(t)
	d.Writer().WriteHeader(&http1.ResponseHeader{ContentType: "text/plain"})
	d.Writer().Write([]byte("partial"))
	// A reset, so that the server knows the connection is gone (a FIN
	// alone may be a half-close, after which answers are still sent:
	// TestDetachHalfClose).
	require.NoError(t, c.(*net.TCPConn).SetLinger(0))
	c.Close()
	waitDone(t, d.Context(), 5*time.Second, "the context was not cancelled when the connection closed")
	require.ErrorIs(t, d.Done(), httpserver.ErrConnClosed)
}

// Shutdown waits for a detached request, which is answered; then the
// connection closes.
func TestDetachShutdownWaits(t *testing.T) {
	buftest.CheckLeaks(t)
	srv, c, d := detachOne(t)
	done := shutdown(t, srv, 10*time.Second)
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while a detached request was open", err)
	case <-time.After(100 * time.Millisecond):
	}
	h := plainHeader
	require.NoError(t, d.Respond(&h, []byte("late")))
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "late")
	require.NoError(t, <-done)
	expectEOF(t, br)
}

// A detached answer to HEAD carries no body, and the pipelined request
// after it is answered in its place; an HTTP/1.0 request without
// keep-alive gets its detached answer, then the close.
func TestDetachFraming(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, later(time.Millisecond))
	c := dial(t, addr)
	_, err := io.WriteString(c, "HEAD /echo/a HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/b HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/c HTTP/1.0\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "HEAD"})
	require.NoError(t, err)
	require.Equal(t, int64(len("/echo/a")), resp.ContentLength)
	resp.Body.Close()
	requireAnswer(t, br, 200, "/echo/b")
	resp = requireAnswer(t, br, 200, "/echo/c")
	require.True(t, resp.Close, "the HTTP/1.0 answer does not say the connection closes")
	expectEOF(t, br)
}

// A detached request that Done answers with nothing gets a 500; Done
// twice panics; Detach outside a Handler panics.
func TestDetachMisuse(t *testing.T) {
	buftest.CheckLeaks(t)
	got := make(chan *httpserver.Detached, 1)
	var w0 *http1.ResponseWriter
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		w0 = w
		got <- httpserver.Detach(w)
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	d := <-got
	require.PanicsWithValue(t, "httpserver: Detach called outside a Handler", func() { httpserver.Detach(w0) })
	require.NoError(t, d.Done())
	require.PanicsWithValue(t, "httpserver: Detached.Done called twice", func() { d.Done() })
	requireAnswer(t, bufio.NewReader(c), 500, "the handler wrote no response\n")
}

// A detached answer that closes the connection (its header's Close) goes
// out, and the requests pipelined after it are dropped: their detached
// work learns it from Done, and the client reads the close.
func TestDetachCloseDropsLater(t *testing.T) {
	buftest.CheckLeaks(t)
	got := make(chan *httpserver.Detached, 4)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/inline" {
			plaintext(w, req)
			return
		}
		got <- httpserver.Detach(w)
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /inline HTTP/1.1\r\nHost: x\r\n\r\nGET /third HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	first, third := <-got, <-got
	h := plainHeader
	h.Close = true
	require.NoError(t, first.Respond(&h, []byte("bye")))
	br := bufio.NewReader(c)
	resp := requireAnswer(t, br, 200, "bye")
	require.True(t, resp.Close)
	expectEOF(t, br)
	waitDone(t, third.Context(), 5*time.Second, "the context was not cancelled when the connection closed")
	h = plainHeader
	require.ErrorIs(t, third.Respond(&h, []byte("never")), httpserver.ErrConnClosed)
}

// A response written on the loop that closes the connection, behind a
// detached one: both go out, in order, then the close.
func TestDetachThenInlineClose(t *testing.T) {
	buftest.CheckLeaks(t)
	got := make(chan *httpserver.Detached, 1)
	_, addr := start(t, detachOn("/later", got, plaintext))
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /later HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	d := <-got
	time.Sleep(20 * time.Millisecond) // the inline answer waits behind d
	h := plainHeader
	require.NoError(t, d.Respond(&h, []byte("later")))
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "later")
	resp := requireAnswer(t, br, 200, "/echo/now")
	require.True(t, resp.Close)
	expectEOF(t, br)
}

// Behind a detached request that is slow to answer, a client pipelining
// thousands of requests does not grow the server's held output past its
// bound: the server stops reading, and goes on once the answer comes.
func TestDetachHeldOutputBounded(t *testing.T) {
	buftest.CheckLeaks(t)
	got := make(chan *httpserver.Detached, 1)
	var calls atomic.Int32
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		calls.Add(1)
		if string(req.Path) == "/slow" {
			got <- httpserver.Detach(w)
			return
		}
		plaintext(w, req)
	})
	c := dial(t, addr)
	const n = 5000 // about 600 KiB of answers
	go func() {
		var reqs strings.Builder
		reqs.WriteString("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
		for range n {
			reqs.WriteString("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		io.WriteString(c, reqs.String())
	}()
	d := <-got
	time.Sleep(200 * time.Millisecond)
	// Each answer is about 120 bytes: 64 KiB held is some 550 of them,
	// plus what the last read and the writer held.
	held := calls.Load()
	require.Less(t, held, int32(1500), "requests answered behind the detached one")
	h := plainHeader
	require.NoError(t, d.Respond(&h, []byte("slow")))
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "slow")
	for i := range n {
		requireAnswer(t, br, 200, "Hello, World!", "response %d", i)
	}
	t.Logf("answered behind the detached request before it was done: %d", held-1)
}

// ConnOf gives the handler the client's address and the loop; Context is
// cancelled when the client goes away.
func TestConnOfAndContext(t *testing.T) {
	buftest.CheckLeaks(t)
	ctxs := make(chan context.Context, 1)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		cn := httpserver.ConnOf(w)
		ctx := httpserver.Context(w)
		require.Same(t, ctx, httpserver.Context(w), "one context per connection")
		ctxs <- ctx
		h := plainHeader
		w.Respond(&h, []byte(cn.RemoteAddr().String()+" "+cn.LocalAddr().String()+" "+fmt.Sprint(cn.Loop() != nil)))
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	requireAnswer(t, bufio.NewReader(c), 200, c.LocalAddr().String()+" "+c.RemoteAddr().String()+" true")
	ctx := <-ctxs
	require.NoError(t, ctx.Err(), "cancelled while the connection is open")
	c.Close()
	waitDone(t, ctx, 5*time.Second, "the context was not cancelled when the connection closed")
	require.Panics(t, func() { httpserver.ConnOf(new(http1.ResponseWriter)) })
}

// pattern fills p with the bytes of the stream at offset off.
func pattern(p []byte, off int) {
	for i := range p {
		p[i] = byte((off + i) % 251)
	}
}

// A 256 MiB response (1 GiB with NETKIT_LONG=1) streamed from a
// goroutine to a client that reads slowly at first goes out whole, in
// order, with the server's memory bounded by the water marks: Flush waits
// for the client.
func TestDetachStreamBounded(t *testing.T) {
	buftest.CheckLeaks(t)
	size := streamSize()
	streamed := make(chan error, 1)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		d := httpserver.Detach(w)
		go func() {
			d.Writer().WriteHeader(&http1.ResponseHeader{ContentType: "application/octet-stream", ContentLength: int64(size)})
			p := make([]byte, 16<<10)
			for off := 0; off < size; off += len(p) {
				pattern(p, off)
				if _, err := d.Write(p); err != nil {
					streamed <- err
					d.Done()
					return
				}
			}
			d.Writer().End(nil)
			streamed <- d.Done()
		}()
	})
	c := dialSmall(t, addr)
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	_, err := io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()

	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	peak := uint64(0)
	p := make([]byte, 64<<10)
	want := make([]byte, len(p))
	off := 0
	for off < size {
		if off < 4<<20 {
			time.Sleep(2 * time.Millisecond) // slow for the first 4 MiB: 64 KiB per 2 ms
		}
		n, err := io.ReadFull(resp.Body, p[:min(len(p), size-off)])
		pattern(want[:n], off)
		require.Equal(t, want[:n], p[:n], "bytes at %d", off)
		off += n
		if err != nil {
			break
		}
		if off%(16<<20) == 0 {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}
	require.Equal(t, size, off)
	require.NoError(t, <-streamed)
	grew := int64(peak) - int64(base.HeapInuse)
	t.Logf("heap in use grew by at most %d KiB while streaming %d MiB", grew>>10, size>>20)
	require.Less(t, grew, int64(32<<20), "the stream was buffered")
}

// A streamed response behind a detached one that is slow to answer waits
// for its turn: its first Flush blocks until the first response is out;
// the client reads both in order. A client that goes away mid-stream
// makes Flush return ErrConnClosed.
func TestDetachStreamOrderAndClose(t *testing.T) {
	buftest.CheckLeaks(t)
	firstOut := make(chan struct{})
	flushedAt := make(chan time.Time, 1)
	gone := make(chan error, 1)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		d := httpserver.Detach(w)
		switch string(req.Path) {
		case "/slow":
			go func() {
				time.Sleep(200 * time.Millisecond)
				h := plainHeader
				close(firstOut)
				d.Respond(&h, []byte("slow"))
			}()
		case "/stream":
			go func() {
				d.Writer().WriteHeader(&http1.ResponseHeader{ContentType: "text/plain", ContentLength: -1}) // chunked
				d.Writer().Write([]byte("piece 1;"))
				d.Flush()
				flushedAt <- time.Now()
				d.Writer().Write([]byte("piece 2"))
				d.Writer().End(nil)
				d.Done()
			}()
		case "/forever":
			go func() {
				d.Writer().WriteHeader(&http1.ResponseHeader{ContentType: "text/plain", ContentLength: -1})
				p := make([]byte, 32<<10)
				for {
					if _, err := d.Write(p); err != nil {
						gone <- err
						d.Done()
						return
					}
				}
			}()
		}
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	at := <-flushedAt
	select {
	case <-firstOut:
	default:
		t.Fatalf("the stream's Flush returned at %v, before the response ahead of it was done", at)
	}
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "slow")
	requireAnswer(t, br, 200, "piece 1;piece 2")

	f := dialSmall(t, addr)
	_, err = io.WriteString(f, "GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	io.ReadFull(f, make([]byte, 1<<20))
	f.Close()
	require.ErrorIs(t, recvErr(t, gone, 10*time.Second, "the producer was not told that the client went away"), httpserver.ErrConnClosed)
}

// A client that sends its requests and half-closes gets every answer, a
// detached one included, before the connection closes; a streamed body
// cut by the half-close ends its reader with io.ErrUnexpectedEOF.
func TestDetachHalfClose(t *testing.T) {
	buftest.CheckLeaks(t)
	cut := make(chan error, 1)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		switch string(req.Path) {
		case "/slow":
			later(50*time.Millisecond)(w, req)
		case "/upload":
			d := httpserver.Detach(w)
			body := d.Body()
			go func() {
				_, err := io.Copy(io.Discard, body)
				cut <- err
				h := plainHeader
				d.Respond(&h, []byte("cut"))
			}()
		default:
			plaintext(w, req)
		}
	}, httpserver.WithStreamedBodies())
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/next HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "Hello, World!")
	requireAnswer(t, br, 200, "/echo/next")
	expectEOF(t, br)

	c = dial(t, addr)
	_, err = io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part")
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	require.ErrorIs(t, recvErr(t, cut, 5*time.Second, "the body's reader was not told of the half-close"), io.ErrUnexpectedEOF)
	br = bufio.NewReader(c)
	requireAnswer(t, br, 200, "cut")
	expectEOF(t, br)
}
