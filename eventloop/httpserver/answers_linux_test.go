package httpserver_test

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec"
	"github.com/netkit/netkit/codec/http1"
)

// The tests of this file check that every request gets exactly one
// answer, framed so that a real client parser (net/http's ReadResponse,
// told the request's method) reads each response whole and the next one
// after it intact, whatever the handler writes.

// streamer answers /stream with a 5-byte body of known length, /chunked
// with a chunked body "abc" "def", and everything else as plaintext.
func streamer(w *http1.ResponseWriter, req *http1.Request) {
	switch string(req.Path) {
	case "/stream":
		h := plainHeader
		h.ContentLength = 5
		w.WriteHeader(&h)
		w.Write([]byte("hello"))
		w.End(nil)
	case "/chunked":
		h := plainHeader
		h.ContentLength = -1
		w.WriteHeader(&h)
		w.Write([]byte("abc"))
		w.Write([]byte("def"))
		w.End(nil)
	default:
		plaintext(w, req)
	}
}

// readAs reads one response to a request of the given method, body
// included.
func readAs(t *testing.T, br *bufio.Reader, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	return resp, string(b)
}

// TestHeadNoBody pipelines HEAD then GET on one connection: the answer to
// HEAD carries no body bytes, whatever the handler writes (RFC 9110
// §9.3.2), so the answer to GET is read intact after it.
func TestHeadNoBody(t *testing.T) {
	_, addr := start(t, streamer)
	for _, tc := range []struct {
		path   string
		length int64 // the Content-Length the HEAD answer announces; -1: none (the GET is chunked)
	}{
		{"/root", 13}, // the README's handler: Respond(&h, hello)
		{"/stream", 5},
		{"/chunked", -1},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			_, err := io.WriteString(c, "HEAD "+tc.path+" HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			resp, body := readAs(t, br, "HEAD")
			require.Equal(t, 200, resp.StatusCode)
			require.Empty(t, body)
			if tc.length >= 0 {
				require.Equal(t, tc.length, resp.ContentLength)
			} else {
				require.Nil(t, resp.TransferEncoding, "a chunked GET's HEAD answer has no framing field")
				require.Equal(t, int64(-1), resp.ContentLength)
			}
			resp, body = readAs(t, br, "GET")
			require.Equal(t, 200, resp.StatusCode)
			require.Equal(t, "/echo/after", body)
		})
	}
}

// TestOneFinalResponse: a second final response is refused with an error
// and writes nothing; a 1xx alone is no answer (the server answers 500);
// the next pipelined request's answer is in its place.
func TestOneFinalResponse(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	note := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		switch string(req.Path) {
		case "/twice":
			w.Respond(&plainHeader, []byte("first"))
			note(w.Respond(&plainHeader, []byte("second")))
			_, err := w.Write([]byte("more"))
			note(err)
		case "/twice-streamed":
			h := plainHeader
			h.ContentLength = 2
			w.WriteHeader(&h)
			w.Write([]byte("ab"))
			w.End(nil)
			note(w.WriteHeader(&h))
			note(w.WriteHeaderOnly(&plainHeader))
		case "/interim":
			w.WriteHeader(&http1.ResponseHeader{Status: 103, Headers: []http1.Header{{Name: []byte("Link"), Value: []byte("</a.css>; rel=preload")}}})
		default:
			plaintext(w, req)
		}
	})
	c := dial(t, addr)
	br := bufio.NewReader(c)
	_, err := io.WriteString(c, "GET /twice HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /echo/1 HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /twice-streamed HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /interim HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /echo/3 HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)

	resp, body := readAs(t, br, "GET")
	require.Equal(t, "first", body)
	require.Equal(t, 200, resp.StatusCode)
	resp, body = readAs(t, br, "GET")
	require.Equal(t, "/echo/1", body)
	require.Equal(t, 200, resp.StatusCode)
	resp, body = readAs(t, br, "GET")
	require.Equal(t, "ab", body)
	require.Equal(t, 200, resp.StatusCode)
	resp, body = readAs(t, br, "GET")
	require.Equal(t, "/echo/2", body)
	require.Equal(t, 200, resp.StatusCode)
	resp, _ = readAs(t, br, "GET")
	require.Equal(t, 103, resp.StatusCode, "the interim response")
	resp, _ = readAs(t, br, "GET")
	require.Equal(t, 500, resp.StatusCode, "a 1xx alone is not an answer: the server's 500 follows it")
	resp, body = readAs(t, br, "GET")
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "/echo/3", body)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, errs, 4)
	for i, err := range errs {
		require.Error(t, err, "write %d after the final response", i)
		var re *codec.FieldError
		require.True(t, errors.As(err, &re), "write %d: %v is not a *codec.FieldError", i, err)
	}
}

// TestHTTP10 checks the answers to HTTP/1.0 clients: no chunked body (a
// streamed body of unknown length is delimited by the close), "Connection:
// keep-alive" when the connection stays open, and "Connection: close"
// echoed to a client that sent it, also when the handler did not ask.
func TestHTTP10(t *testing.T) {
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/chunked" {
			streamer(w, req)
			return
		}
		// Unlike plaintext, this handler does not set Close itself.
		if string(req.Path) == "/handler-closes" {
			req.KeepAlive = false
		}
		w.Respond(&plainHeader, req.Path)
	})

	t.Run("chunked", func(t *testing.T) {
		c := dial(t, addr)
		_, err := io.WriteString(c, "GET /chunked HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		require.NoError(t, err)
		all, err := io.ReadAll(c)
		require.NoError(t, err)
		head, body, ok := strings.Cut(string(all), "\r\n\r\n")
		require.True(t, ok, "no head in %q", all)
		require.NotContains(t, strings.ToLower(head), "transfer-encoding", "a chunked answer to HTTP/1.0")
		require.Contains(t, head, "\r\nConnection: close")
		require.Equal(t, "abcdef", body)
	})

	t.Run("keep-alive", func(t *testing.T) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		_, err := io.WriteString(c, "GET /one HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		require.NoError(t, err)
		resp, body := readAs(t, br, "GET")
		require.Equal(t, "/one", body)
		require.Equal(t, "keep-alive", resp.Header.Get("Connection"))
		require.False(t, resp.Close)
		_, err = io.WriteString(c, "GET /two HTTP/1.0\r\n\r\n")
		require.NoError(t, err)
		resp, body = readAs(t, br, "GET")
		require.Equal(t, "/two", body)
		require.True(t, resp.Close, "an HTTP/1.0 answer without keep-alive says Connection: close")
		expectEOF(t, br)
	})

	t.Run("handler closes", func(t *testing.T) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		_, err := io.WriteString(c, "GET /handler-closes HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/x HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		resp, body := readAs(t, br, "GET")
		require.Equal(t, "/handler-closes", body)
		require.True(t, resp.Close, "the handler cleared KeepAlive before it responded")
		expectEOF(t, br)
	})

	t.Run("close echoed", func(t *testing.T) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		_, err := io.WriteString(c, "GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		require.NoError(t, err)
		resp, body := readAs(t, br, "GET")
		require.Equal(t, "/bye", body)
		require.True(t, resp.Close, "Connection: close echoed")
		expectEOF(t, br)
	})
}

// TestHandlerPanicKeepsEarlier pipelines three requests, the second of
// which panics: the answer to the first still arrives whole, nothing of
// the panicking handler's, and the connection closes.
func TestHandlerPanicKeepsEarlier(t *testing.T) {
	before := panics.Load()
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/panic" {
			w.Respond(&plainHeader, []byte("half")) // dropped
			panic("handler")
		}
		plaintext(w, req)
	})
	c := dial(t, addr)
	br := bufio.NewReader(c)
	_, err := io.WriteString(c, "GET /echo/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /panic HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/3 HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, body := readAs(t, br, "GET")
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "/echo/1", body)
	rest, _ := io.ReadAll(br)
	require.Empty(t, string(rest), "after the answer before the panic")
	require.Eventually(t, func() bool { return panics.Load() > before }, 5e9, 1e6, "the panic reaches OnPanic")
}

// TestShortBodyEnded: a handler that ends a body short of its
// Content-Length itself (End's error ignored) has the connection closed
// after what it wrote — the client waits for the rest, and would read the
// next response as part of it.
func TestShortBodyEnded(t *testing.T) {
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/short" {
			h := plainHeader
			h.ContentLength = 10
			w.WriteHeader(&h)
			w.Write([]byte("12345"))
			w.End(nil) // ErrResponseBody, ignored
			return
		}
		plaintext(w, req)
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /short HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	all, err := io.ReadAll(c)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(all), "\r\n\r\n12345"), "read %q, want the 5 bytes, then the close", all)
}
