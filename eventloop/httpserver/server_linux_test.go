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
)

func TestNetHTTPClient(t *testing.T) {
	_, addr := start(t, plaintext)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for i := range 20 {
		resp, err := client.Get("http://" + addr + "/plaintext")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || string(body) != "Hello, World!" || resp.ContentLength != 13 {
			t.Fatalf("request %d: %s %q (length %d)", i, resp.Status, body, resp.ContentLength)
		}
		if resp.Header.Get("Content-Type") != "text/plain" || resp.Header.Get("Server") != "netkit" {
			t.Fatalf("request %d: header %v", i, resp.Header)
		}
		if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
			t.Fatalf("request %d: Date: %v", i, err)
		}
	}
	resp, err := client.Post("http://"+addr+"/", "text/plain", strings.NewReader("a body"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "a body" {
		t.Fatalf("POST answered %q", body)
	}
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
		if _, err := io.WriteString(c, b.String()); err != nil {
			t.Fatal(err)
		}
		for i := range 16 {
			resp, body := readResponse(t, br)
			if want := fmt.Sprintf("/echo/%d/%d", round, i); resp.StatusCode != 200 || body != want {
				t.Fatalf("round %d, response %d: %d %q, want 200 %q", round, i, resp.StatusCode, body, want)
			}
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
		if _, err := c.Write([]byte{reqs[i]}); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			time.Sleep(200 * time.Microsecond) // let some bytes arrive alone
		}
	}
	for _, want := range []string{"/echo/a", "hello", "abcde"} {
		if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != want {
			t.Fatalf("%d %q, want 200 %q", resp.StatusCode, body, want)
		}
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
			if _, err := io.WriteString(c, "GET /echo/ok HTTP/1.1\r\nHost: x\r\n\r\n"+tc.req); err != nil {
				t.Fatal(err)
			}
			// The client goes on writing before it reads: a server that
			// closed at once would answer that with a reset, which
			// destroys the unread answers.
			time.Sleep(20 * time.Millisecond)
			c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			time.Sleep(20 * time.Millisecond)
			if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "/echo/ok" {
				t.Fatalf("first answer %d %q", resp.StatusCode, body)
			}
			resp, body := readResponse(t, br)
			if resp.StatusCode != tc.status || !resp.Close || body == "" {
				t.Fatalf("answer %d (close %v) %q, want %d with Connection: close", resp.StatusCode, resp.Close, body, tc.status)
			}
			// The server half-closed: the client reads EOF, then closes.
			if _, err := br.ReadByte(); err != io.EOF {
				t.Fatalf("after the answer: %v, want EOF", err)
			}
			// It lingers, dropping what the client still sends, rather
			// than resetting the connection (a reset fails the second
			// write) — until the client closes too.
			for i := range 2 {
				if _, err := c.Write([]byte("more")); err != nil {
					t.Fatalf("write %d after the answer: %v", i, err)
				}
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
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "/echo/1" || !resp.Close {
		t.Fatalf("%d %q close %v", resp.StatusCode, body, resp.Close)
	}
	expectEOF(t, br)

	c = dial(t, addr)
	br = bufio.NewReader(c)
	io.WriteString(c, "GET /echo/10 HTTP/1.0\r\n\r\n")
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "/echo/10" {
		t.Fatalf("HTTP/1.0: %d %q", resp.StatusCode, body)
	}
	expectEOF(t, br)
}

func TestContinue(t *testing.T) {
	_, addr := start(t, plaintext)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("first line %q, want 100 Continue", line)
	}
	if end, err := br.ReadString('\n'); err != nil || end != "\r\n" {
		t.Fatalf("after the 100: %q %v", end, err)
	}
	io.WriteString(c, "hello")
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "hello" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	// With the body in the same write: no 100.
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi")
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "hi" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
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
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(busy, "st: x\r\n\r\n")
	if resp, body := readResponse(t, bbr); resp.StatusCode != 200 || body != "/echo/busy" {
		t.Fatalf("in-flight request answered %d %q", resp.StatusCode, body)
	}
	expectEOF(t, bbr)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("the server still accepts after Shutdown")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, partial)
		time.Sleep(10 * time.Millisecond)
		c.(*net.TCPConn).SetLinger(0) // close sends a reset
		c.Close()
	}
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := readResponse(t, bufio.NewReader(c)); resp.StatusCode != 200 || body != "/echo/after" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Conns() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want 1", srv.Conns())
		}
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
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "/echo/1" {
		t.Fatalf("the answer before the panic: %d %q", resp.StatusCode, body)
	}
	if b, err := io.ReadAll(br); len(b) != 0 {
		t.Fatalf("the panicking connection got %q (%v) after the answer before the panic, want nothing", b, err)
	}
	io.WriteString(other, "GET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := readResponse(t, obr); resp.StatusCode != 200 || body != "/echo/2" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
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
	if resp, _ := readResponse(t, br); resp.StatusCode != 500 {
		t.Fatalf("no response: %d, want 500", resp.StatusCode)
	}
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "chunk" {
		t.Fatalf("open chunked response: %d %q", resp.StatusCode, body)
	}
	if resp, body := readResponse(t, br); resp.StatusCode != 200 || body != "/echo/1" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	io.WriteString(c, "GET /short HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	all, err := io.ReadAll(c)
	if err != nil || !strings.HasSuffix(string(all), "\r\n\r\n12345") {
		t.Fatalf("short response: read %q (%v), want it to end with the 5 bytes and the connection closed", all, err)
	}
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
	if httpserver.Pauses.Load() == pauses0 {
		t.Fatal("the server did not pause reading while its answers were not read")
	}
	br := bufio.NewReader(c)
	for i := range n {
		resp, body := readResponse(t, br)
		if resp.StatusCode != 200 || len(body) != len(big) || resp.Header.Get("X-Path") != fmt.Sprintf("/%d", i) {
			t.Fatalf("response %d: %d, %d bytes, X-Path %q", i, resp.StatusCode, len(body), resp.Header.Get("X-Path"))
		}
	}
	wg.Wait()
}

func TestListenErrors(t *testing.T) {
	if _, err := httpserver.Listen(nil, "127.0.0.1:0", plaintext); err == nil {
		t.Error("Listen without a group succeeded")
	}
}

// TestShutdownDeadline: a request that never completes holds Shutdown
// until its context ends; then the connection is closed.
func TestShutdownDeadline(t *testing.T) {
	srv, addr := start(t, plaintext)
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/stuck HTTP/1.1\r\nHost: x\r\n")
	time.Sleep(20 * time.Millisecond)
	if err := <-shutdown(t, srv, 100*time.Millisecond); err != context.DeadlineExceeded {
		t.Fatalf("Shutdown = %v, want the context's deadline", err)
	}
	expectEOF(t, bufio.NewReader(c))
}
