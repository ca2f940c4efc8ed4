package httpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNetHTTPClient(t *testing.T) {
	_, addr := start(t, plaintext)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for i := range 20 {
		resp, err := client.Get("http://" + addr + "/plaintext")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, "request %d", i)
		require.Equal(t, "Hello, World!", string(body), "request %d", i)
		require.Equal(t, int64(13), resp.ContentLength, "request %d", i)
		require.Equal(t, "text/plain", resp.Header.Get("Content-Type"), "request %d", i)
		require.Equal(t, "netkit", resp.Header.Get("Server"), "request %d", i)
		_, err = http.ParseTime(resp.Header.Get("Date"))
		require.NoError(t, err, "request %d: Date", i)
	}
	resp, err := client.Post("http://"+addr+"/", "text/plain", strings.NewReader("a body"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "a body", string(body), "POST answered %q", body)
}

// TestPipelined sends 16 requests in one write and checks that the
// answers come back in order.
func TestPipelined(t *testing.T) {
	_, addr := start(t, plaintext)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	for round := range 3 {
		var b strings.Builder
		for i := range 16 {
			fmt.Fprintf(&b, "GET /echo/%d/%d HTTP/1.1\r\nHost: x\r\n\r\n", round, i)
		}
		_, err := io.WriteString(c, b.String())
		require.NoError(t, err)
		for i := range 16 {
			requireAnswer(t, br, 200, fmt.Sprintf("/echo/%d/%d", round, i), "round %d, response %d", round, i)
		}
	}
}

// TestByteByByte sends requests a byte per write: every one straddles
// reads.
func TestByteByByte(t *testing.T) {
	_, addr := start(t, plaintext)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	reqs := "GET /echo/a HTTP/1.1\r\nHost: x\r\nX-Long: " + strings.Repeat("v", 40) + "\r\n\r\n" +
		"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
		"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
	for i := range len(reqs) {
		_, err := c.Write([]byte{reqs[i]})
		require.NoError(t, err)
		if i%4 == 0 {
			time.Sleep(200 * time.Microsecond) // let some bytes arrive alone
		}
	}
	for _, want := range []string{"/echo/a", "hello", "abcde"} {
		requireAnswer(t, br, 200, want)
	}
}

// TestRefused checks that requests the parser refuses are answered with
// its status and "Connection: close", and the connection closes, also
// when the client goes on sending.
func TestRefused(t *testing.T) {
	_, addr := start(t, plaintext)
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"malformed", "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400},
		{"smuggling", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"bare LF", "GET / HTTP/1.1\nHost: x\n\n", 400},
		{"oversize header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 20<<10) + "\r\n\r\n", 431},
		{"long line", "GET /" + strings.Repeat("a", 9<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414},
		{"expectation", "GET / HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n", 417},
		{"version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			// A good request first: the bad one comes pipelined after it.
			_, err := io.WriteString(c, "GET /echo/ok HTTP/1.1\r\nHost: x\r\n\r\n"+tc.req)
			require.NoError(t, err)
			// The client goes on writing before it reads: a server that
			// closed at once would answer that with a reset, which
			// destroys the unread answers.
			time.Sleep(20 * time.Millisecond)
			c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			time.Sleep(20 * time.Millisecond)
			requireAnswer(t, br, 200, "/echo/ok", "first answer")
			resp, body := readResponse(t, br)
			require.Equal(t, tc.status, resp.StatusCode)
			require.True(t, resp.Close, "want Connection: close")
			require.NotEmpty(t, body)
			// The server half-closed: the client reads EOF, then closes.
			_, err = br.ReadByte()
			require.Equal(t, io.EOF, err, "after the answer")
			// It lingers, dropping what the client still sends, rather
			// than resetting the connection (a reset fails the second
			// write) — until the client closes too.
			for i := range 2 {
				_, err := c.Write([]byte("more"))
				require.NoError(t, err, "write %d after the answer", i)
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestConnectionClose(t *testing.T) {
	_, addr := start(t, plaintext)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	io.WriteString(c, "GET /echo/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	resp := requireAnswer(t, br, 200, "/echo/1")
	require.True(t, resp.Close, "Connection: close")
	expectEOF(t, br)

	c = dial(t, addr)
	br = bufio.NewReader(c)
	io.WriteString(c, "GET /echo/10 HTTP/1.0\r\n\r\n")
	requireAnswer(t, br, 200, "/echo/10", "HTTP/1.0")
	expectEOF(t, br)
}

func TestContinue(t *testing.T) {
	_, addr := start(t, plaintext)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line, "first line %q, want 100 Continue", line)
	end, err := br.ReadString('\n')
	require.NoError(t, err, "after the 100")
	require.Equal(t, "\r\n", end, "after the 100")
	io.WriteString(c, "hello")
	requireAnswer(t, br, 200, "hello")
	// With the body in the same write: no 100.
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi")
	requireAnswer(t, br, 200, "hi")
}

// TestShutdownInFlight starts Shutdown while a request is half received:
// the request is still answered, then the connection closes; an idle
// connection closes at once.
func TestShutdownInFlight(t *testing.T) {
	srv, addr := start(t, plaintext)
	busy, idle := dial(t, addr), dial(t, addr)
	bbr, ibr := bufio.NewReader(busy), bufio.NewReader(idle)
	io.WriteString(idle, "GET /echo/idle HTTP/1.1\r\nHost: x\r\n\r\n")
	readResponse(t, ibr)
	io.WriteString(busy, "GET /echo/busy HTTP/1.1\r\nHo")
	time.Sleep(20 * time.Millisecond)
	done := shutdown(t, srv, 5*time.Second)
	expectEOF(t, ibr)
	select {
	case err := <-done:
		require.FailNowf(t, "Shutdown returned with a request in flight", "Shutdown returned %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(busy, "st: x\r\n\r\n")
	requireAnswer(t, bbr, 200, "/echo/busy", "in-flight request answered")
	expectEOF(t, bbr)
	require.NoError(t, <-done, "Shutdown")
	_, err := net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err, "the server still accepts after Shutdown")
}

// TestClientReset resets connections in the middle of requests: the
// server drops them and goes on serving.
func TestClientReset(t *testing.T) {
	srv, addr := start(t, plaintext)
	for _, partial := range []string{
		"GET /echo/x HTTP/1.1\r\nHo",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc",
		"GET /echo/a HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/b HTTP/1.1\r\nHost: x\r\n\r\n", // answers unread
	} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		io.WriteString(c, partial)
		time.Sleep(10 * time.Millisecond)
		c.(*net.TCPConn).SetLinger(0) // close sends a reset
		c.Close()
	}
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n")
	requireAnswer(t, bufio.NewReader(c), 200, "/echo/after")
	deadline := time.Now().Add(5 * time.Second)
	for srv.Conns() != 1 {
		require.False(t, time.Now().After(deadline), "%d connections open, want 1", srv.Conns())
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHandlerPanic checks that a panicking handler closes its connection
// only, after the answers to the requests before it; nothing it wrote is
// sent.
func TestHandlerPanic(t *testing.T) {
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/panic" {
			w.Respond(&plainHeader, []byte("half")) // dropped
			panic("handler")
		}
		plaintext(w, req)
	})
	other := dial(t, addr)
	obr := bufio.NewReader(other)
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /panic HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "/echo/1", "the answer before the panic")
	b, err := io.ReadAll(br)
	require.Empty(t, b, "the panicking connection got %q (%v) after the answer before the panic, want nothing", b, err)
	io.WriteString(other, "GET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	requireAnswer(t, obr, 200, "/echo/2")
}

// TestHandlerMisbehaves: no response is answered 500; a response left
// open is ended, or, when its body is short, the connection closes.
func TestHandlerMisbehaves(t *testing.T) {
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		switch string(req.Path) {
		case "/nothing":
		case "/short":
			h := plainHeader
			h.ContentLength = 10
			w.WriteHeader(&h)
			w.Write([]byte("12345"))
		case "/open":
			h := plainHeader
			h.ContentLength = -1
			w.WriteHeader(&h)
			w.Write([]byte("chunk"))
		default:
			plaintext(w, req)
		}
	})
	c := dial(t, addr)
	br := bufio.NewReader(c)
	io.WriteString(c, "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\nGET /open HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/1 HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, _ := readResponse(t, br)
	require.Equal(t, 500, resp.StatusCode, "no response: %d, want 500", resp.StatusCode)
	requireAnswer(t, br, 200, "chunk", "open chunked response")
	requireAnswer(t, br, 200, "/echo/1")
	io.WriteString(c, "GET /short HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	all, err := io.ReadAll(c)
	require.NoError(t, err, "short response: read %q (%v), want it to end with the 5 bytes and the connection closed", all, err)
	require.True(t, strings.HasSuffix(string(all), "\r\n\r\n12345"), "short response: read %q (%v), want it to end with the 5 bytes and the connection closed", all, err)
}

// TestBackpressure pipelines many requests for large responses without
// reading: the server must stop reading (the client's writes block) and
// answer everything, in order, once the client reads.
func TestBackpressure(t *testing.T) {
	big := []byte(strings.Repeat("z", 8<<10))
	pauses0 := httpserver.Pauses.Load()
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		h := plainHeader
		h.Headers = []http1.Header{{Name: []byte("X-Path"), Value: req.Path}}
		w.Respond(&h, big)
	})
	c := dial(t, addr)
	const n = 2000 // 16 MiB of answers
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
		}
		io.WriteString(c, b.String())
	}()
	time.Sleep(100 * time.Millisecond)
	require.NotEqual(t, pauses0, httpserver.Pauses.Load(), "the server did not pause reading while its answers were not read")
	br := bufio.NewReader(c)
	for i := range n {
		resp, body := readResponse(t, br)
		require.Equal(t, 200, resp.StatusCode, "response %d", i)
		require.Len(t, body, len(big), "response %d", i)
		require.Equal(t, fmt.Sprintf("/%d", i), resp.Header.Get("X-Path"), "response %d", i)
	}
	wg.Wait()
}

func TestListenErrors(t *testing.T) {
	_, err := httpserver.Listen(nil, "127.0.0.1:0", plaintext)
	assert.Error(t, err, "Listen without a group succeeded")
}

// TestShutdownDeadline: a request that never completes holds Shutdown
// until its context ends; then the connection is closed.
func TestShutdownDeadline(t *testing.T) {
	srv, addr := start(t, plaintext)
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/stuck HTTP/1.1\r\nHost: x\r\n")
	time.Sleep(20 * time.Millisecond)
	require.Equal(t, context.DeadlineExceeded, <-shutdown(t, srv, 100*time.Millisecond), "Shutdown")
	expectEOF(t, bufio.NewReader(c))
}
