package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// parsed returns the request in, parsed; it aliases a copy of in.
func parsed(t *testing.T, in string) *Request {
	t.Helper()
	req := new(Request)
	_, err := decodeBytes([]byte(in), req)
	require.NoError(t, err)
	return req
}

const (
	reqGet     = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
	reqHead    = "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"
	reqClose   = "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	reqGet10   = "GET / HTTP/1.0\r\n\r\n"
	reqKeep10  = "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
	reqHead10K = "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
)

// readAll reads the responses in msg in order, each as the answer to the
// method given, and requires that nothing is left.
func readAll(t *testing.T, msg []byte, methods ...string) []*http.Response {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(msg))
	var out []*http.Response
	for _, m := range methods {
		resp, err := http.ReadResponse(r, &http.Request{Method: m})
		require.NoError(t, err, "reading %q", msg)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		out = append(out, resp)
	}
	require.Zero(t, r.Buffered(), "bytes left after the responses in %q", msg)
	return out
}

func bodyOf(t *testing.T, resp *http.Response) string {
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestResponseWriterHead: the answer to HEAD has no body bytes whatever
// is written — Respond, WriteHeader with Write, WriteBuffer or a chunked
// body — and the response after it is read intact.
func TestResponseWriterHead(t *testing.T) {
	buftest.CheckLeaks(t)
	head, get := parsed(t, reqHead), parsed(t, reqGet)
	for _, tc := range []struct {
		name   string
		write  func(w *ResponseWriter)
		length int64 // the Content-Length announced; -1 none (a chunked GET)
	}{
		{"Respond", func(w *ResponseWriter) { require.NoError(t, w.Respond(&respPlaintext, respHello)) }, 13},
		{"WriteHeader", func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: 5}))
			_, err := w.Write([]byte("hel"))
			require.NoError(t, err)
			b := buf.Get(2)
			b.WriteString("lo")
			require.NoError(t, w.WriteBuffer(b))
			_, err = w.Write([]byte("!"))
			require.ErrorIs(t, err, ErrResponseBody, "past the Content-Length, even unsent")
			require.NoError(t, w.End(nil))
		}, 5},
		{"short", func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: 100}))
			require.NoError(t, w.End(nil), "no body is sent: none is short")
		}, 100},
		{"chunked", func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
			w.Write([]byte("abc"))
			b := buf.Get(3)
			b.WriteString("def")
			require.NoError(t, w.WriteBuffer(b))
			require.NoError(t, w.End(hdrs("X-T", "1")))
		}, -1},
		{"WriteHeaderOnly", func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeaderOnly(&ResponseHeader{ContentLength: 42}))
		}, 42},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &ResponseWriter{Dates: respDates()}
			w.Begin(head)
			tc.write(w)
			require.True(t, w.Answered())
			require.False(t, w.MustClose())
			w.Begin(get)
			require.NoError(t, w.Respond(&respPlaintext, respHello))
			out, _ := takeAll(w)
			rs := readAll(t, out, "HEAD", "GET")
			if tc.length >= 0 {
				require.Equal(t, tc.length, rs[0].ContentLength)
			} else {
				// A length only the body would tell: no framing field
				// in the answer to HEAD (as net/http).
				require.Nil(t, rs[0].TransferEncoding)
				require.Equal(t, int64(-1), rs[0].ContentLength)
			}
			require.Equal(t, "Hello, World!", bodyOf(t, rs[1]))
		})
	}
}

// TestResponseWriterOneFinal: after the final response to the request
// given to Begin, every write is refused with ErrResponseAnswered and
// writes nothing; a 1xx is not the final response; without Begin (or
// after Begin(nil)) responses follow each other as before.
func TestResponseWriterOneFinal(t *testing.T) {
	buftest.CheckLeaks(t)
	get := parsed(t, reqGet)
	w := &ResponseWriter{}
	defer w.Abort()

	w.Begin(get)
	require.False(t, w.Answered())
	require.NoError(t, w.WriteHeader(&ResponseHeader{Status: 103}))
	require.False(t, w.Answered(), "a 1xx is not the final response")
	require.NoError(t, w.Respond(&respPlaintext, respHello))
	require.True(t, w.Answered())
	n := w.Len()
	refused := map[string]error{
		"Respond":         w.Respond(&respPlaintext, respHello),
		"WriteHeader":     w.WriteHeader(&ResponseHeader{ContentLength: 1}),
		"WriteHeader 1xx": w.WriteHeader(&ResponseHeader{Status: 100}),
		"WriteHeaderOnly": w.WriteHeaderOnly(&ResponseHeader{}),
		"End":             w.End(nil),
		"WriteBuffer":     w.WriteBuffer(buf.Get(1)),
	}
	_, refused["Write"] = w.Write([]byte("x"))
	for name, err := range refused {
		require.ErrorIs(t, err, ErrResponseAnswered, name)
		require.Equal(t, 500, StatusOf(err), name)
	}
	require.Equal(t, n, w.Len(), "a refused write wrote something")

	// Streamed: the same once End has run.
	w.Begin(get)
	require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: 2}))
	require.False(t, w.Answered(), "open")
	w.Write([]byte("ab"))
	require.NoError(t, w.End(nil))
	require.True(t, w.Answered())
	require.ErrorIs(t, w.Respond(&respPlaintext, nil), ErrResponseAnswered)

	// WriteHeaderOnly announces no body to GET.
	w.Begin(get)
	require.ErrorIs(t, w.WriteHeaderOnly(&ResponseHeader{ContentLength: 5}), ErrResponseBody)
	require.ErrorIs(t, w.WriteHeaderOnly(&ResponseHeader{ContentLength: -1}), ErrResponseBody)
	require.NoError(t, w.WriteHeaderOnly(&ResponseHeader{Status: 304, ContentLength: 5}))

	out, _ := takeAll(w)
	rs := readAll(t, out, "GET", "GET", "GET", "GET")
	require.Equal(t, 103, rs[0].StatusCode)
	require.Equal(t, "Hello, World!", bodyOf(t, rs[1]))
	require.Equal(t, "ab", bodyOf(t, rs[2]))
	require.Equal(t, 304, rs[3].StatusCode)

	// No request: any number of responses, as before.
	w.Begin(nil)
	require.NoError(t, w.Respond(&respPlaintext, respHello))
	require.NoError(t, w.Respond(&respPlaintext, respHello))
	require.False(t, w.Answered())
}

// TestResponseWriterHTTP10: no chunks and no 1xx to HTTP/1.0; the
// Connection field says what happens to the connection.
func TestResponseWriterHTTP10(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, tc := range []struct {
		name, req string
		write     func(w *ResponseWriter)
		conn      string // the Connection field
		close     bool   // MustClose
		body      string
	}{
		{"1.0 chunked", reqKeep10, func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{Status: 100}), "a 1xx to HTTP/1.0 is skipped")
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
			w.Write([]byte("abc"))
			b := buf.Get(3)
			b.WriteString("def")
			require.NoError(t, w.WriteBuffer(b))
			require.NoError(t, w.End(hdrs("X-T", "1")), "trailers are dropped")
		}, "close", true, "abcdef"},
		{"1.0 bad trailer", reqKeep10, func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
			require.ErrorIs(t, w.End(hdrs("Content-Length", "1")), ErrResponseFraming)
			require.NoError(t, w.End(nil))
		}, "close", true, ""},
		{"1.0 keep-alive", reqKeep10, func(w *ResponseWriter) {
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}, "keep-alive", false, "Hello, World!"},
		{"1.0 Close set", reqKeep10, func(w *ResponseWriter) {
			h := respPlaintext
			h.Close = true
			require.NoError(t, w.Respond(&h, respHello))
		}, "close", true, "Hello, World!"},
		{"1.0", reqGet10, func(w *ResponseWriter) {
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}, "close", true, "Hello, World!"},
		{"1.0 HEAD chunked", reqHead10K, func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
			w.Write([]byte("abc"))
			require.NoError(t, w.End(nil))
		}, "keep-alive", false, ""},
		{"1.0 HEAD WriteHeaderOnly chunked", reqHead10K, func(w *ResponseWriter) {
			require.NoError(t, w.WriteHeaderOnly(&ResponseHeader{ContentLength: -1}))
		}, "keep-alive", false, ""},
		{"1.1 close", reqClose, func(w *ResponseWriter) {
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}, "close", true, "Hello, World!"},
		{"1.1", reqGet, func(w *ResponseWriter) {
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}, "", false, "Hello, World!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &ResponseWriter{}
			req := parsed(t, tc.req)
			w.Begin(req)
			tc.write(w)
			require.Equal(t, tc.close, w.MustClose())
			require.True(t, w.Answered())
			out, _ := takeAll(w)
			head, body, ok := strings.Cut(string(out), "\r\n\r\n")
			require.True(t, ok)
			head += "\r\n"
			require.True(t, strings.HasPrefix(head, "HTTP/1.1 200 OK\r\n"), "%q", head)
			require.Equal(t, tc.body, body)
			if tc.conn == "" {
				require.NotContains(t, head, "Connection")
			} else {
				require.Equal(t, 1, strings.Count(head, "\r\nConnection: "), "%q", head)
				require.Contains(t, head, "\r\nConnection: "+tc.conn+"\r\n")
			}
			if req.Minor == 0 {
				require.NotContains(t, head, "Transfer-Encoding")
			}
		})
	}
}

// TestResponseWriterAbortResponse drops the response being written and
// keeps the ones before it, across buffer boundaries.
func TestResponseWriterAbortResponse(t *testing.T) {
	buftest.CheckLeaks(t)
	get := parsed(t, reqGet)
	for _, size := range []int{0, 64, 200} {
		for _, tc := range []struct {
			name  string
			write func(w *ResponseWriter)
		}{
			{"nothing", func(w *ResponseWriter) {}},
			{"Respond", func(w *ResponseWriter) { w.Respond(&respPlaintext, bytes.Repeat([]byte("r"), 300)) }},
			{"1xx", func(w *ResponseWriter) { w.WriteHeader(&ResponseHeader{Status: 103}) }},
			{"streamed", func(w *ResponseWriter) {
				w.WriteHeader(&ResponseHeader{ContentLength: -1})
				w.Write([]byte("abc"))
				b := buf.Get(100)
				b.Write(bytes.Repeat([]byte("b"), 100))
				w.WriteBuffer(b)
				w.Write(bytes.Repeat([]byte("c"), 100))
			}},
		} {
			w := &ResponseWriter{BufferSize: size}
			var want []byte
			for range 3 {
				w.Begin(get)
				require.NoError(t, w.Respond(&respPlaintext, respHello))
			}
			// What the three responses are, written alone.
			{
				v := &ResponseWriter{}
				for range 3 {
					v.Respond(&respPlaintext, respHello)
				}
				want, _ = takeAll(v)
			}
			w.Begin(get)
			tc.write(w)
			require.True(t, w.AbortResponse(), "size %d %s", size, tc.name)
			require.False(t, w.Open())
			require.Equal(t, len(want), w.Len(), "size %d %s", size, tc.name)
			// The writer goes on: a response after the abort follows.
			require.NoError(t, w.Respond(&respPlaintext, respHello))
			out, _ := takeAll(w)
			require.Equal(t, string(want), string(out[:len(want)]), "size %d %s", size, tc.name)
			readAll(t, out, "GET", "GET", "GET", "GET")
		}
	}

	// A response partly taken already: the rest is dropped, and
	// AbortResponse says the response was not whole in the writer.
	w := &ResponseWriter{}
	w.Begin(get)
	w.WriteHeader(&ResponseHeader{ContentLength: -1})
	w.Write([]byte("abc"))
	takeAll(w)
	w.Write([]byte("def"))
	require.False(t, w.AbortResponse())
	require.Zero(t, w.Len())
	require.Nil(t, w.Take())
}
