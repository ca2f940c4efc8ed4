package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"runtime/debug"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	respHello     = []byte("Hello, World!")
	respPlaintext = ResponseHeader{ContentType: "text/plain", Server: "netkit"}
)

// respDates returns a DateCache holding respDate.
func respDates() *DateCache {
	var c DateCache
	c.Update(time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC))
	return &c
}

// takeAll concatenates and releases the buffers w hands over, and returns
// how many there were.
func takeAll(w *ResponseWriter) ([]byte, int) {
	var out []byte
	n := 0
	for b := w.Take(); b != nil; b = w.Take() {
		out = append(out, b.Bytes()...)
		b.Release()
		n++
	}
	return out, n
}

func TestResponseWriterPlaintext(t *testing.T) {
	buftest.CheckLeaks(t)
	w := &ResponseWriter{Dates: respDates()}
	require.NoError(t, w.Respond(&respPlaintext, respHello))
	out, n := takeAll(w)
	want := "HTTP/1.1 200 OK\r\nDate: " + respDate + "\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
	assert.Equal(t, want, string(out))
	assert.Equal(t, 1, n, "buffers")
	assert.Nil(t, w.Take(), "Take after the last buffer")
	assert.Zero(t, w.Len(), "Len after the last buffer")
}

// TestResponseWriterPipelined writes 16 responses, as to 16 pipelined
// requests: one buffer by default; with small buffers, several, none
// grown. net/http reads them back one after the other.
func TestResponseWriterPipelined(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, size := range []int{0, 256} {
		w := &ResponseWriter{Dates: respDates(), BufferSize: size}
		for i := range 16 {
			h := respPlaintext
			h.Close = i == 15
			require.NoError(t, w.Respond(&h, respHello))
		}
		total := w.Len()
		var out []byte
		n := 0
		for b := w.Take(); b != nil; b = w.Take() {
			if size > 0 {
				assert.Equal(t, size, b.Cap(), "size %d: buffer capacity", size)
			}
			out = append(out, b.Bytes()...)
			b.Release()
			n++
		}
		assert.Equal(t, total, len(out), "size %d: bytes taken and Len", size)
		assert.Equal(t, size == 0, n == 1, "size %d: %d buffers", size, n)
		r := bufio.NewReader(bytes.NewReader(out))
		for i := range 16 {
			resp, err := http.ReadResponse(r, nil)
			require.NoError(t, err, "size %d: response %d", size, i)
			body, err := io.ReadAll(resp.Body)
			assert.NoError(t, err, "size %d: response %d", size, i)
			assert.Equal(t, "Hello, World!", string(body), "size %d: response %d", size, i)
			assert.Equal(t, i == 15, resp.Close, "size %d: response %d: close", size, i)
		}
		assert.Equal(t, 0, r.Buffered(), "size %d: %d bytes after the responses", size, r.Buffered())
	}
}

// TestResponseWriterStreaming streams bodies with Write and WriteBuffer,
// known-length and chunked with trailers, after a 100 Continue, and reads
// it all back with net/http.
func TestResponseWriterStreaming(t *testing.T) {
	buftest.CheckLeaks(t)
	w := &ResponseWriter{Dates: respDates(), BufferSize: 64}
	must := func(err error) {
		t.Helper()
		require.NoError(t, err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	var given []*buf.Buffer
	pooled := func(p []byte) *buf.Buffer {
		b := buf.Get(len(p))
		b.Write(p)
		given = append(given, b)
		return b
	}
	// 100 Continue, then a known length in three pieces.
	must(w.WriteHeader(&ResponseHeader{Status: 100}))
	must(w.WriteHeader(&ResponseHeader{ContentLength: int64(2*len(big) + 5), ContentType: "text/plain"}))
	_, err := w.Write(big)
	must(err)
	must(w.WriteBuffer(pooled(big)))
	must(w.WriteBuffer(buf.Get(0))) // empty: nothing
	_, err = w.Write([]byte("tail!"))
	must(err)
	must(w.End(nil))
	// Chunked, with trailers.
	must(w.WriteHeader(&ResponseHeader{ContentLength: -1, Headers: hdrs("Trailer", "X-Sum")}))
	_, err = w.Write([]byte("abc"))
	must(err)
	_, err = w.Write(nil) // no chunk
	must(err)
	must(w.WriteBuffer(pooled(big)))
	_, err = w.Write([]byte("def"))
	must(err)
	must(w.End(hdrs("X-Sum", "42")))
	// A HEAD answer.
	must(w.WriteHeaderOnly(&ResponseHeader{ContentLength: 1000}))
	// 204 and 304 take End and no body.
	must(w.WriteHeader(&ResponseHeader{Status: 204}))
	must(w.End(nil))

	// The buffers given to WriteBuffer go out themselves, not copied.
	var out []byte
	seen := 0
	for b := w.Take(); b != nil; b = w.Take() {
		for _, p := range given {
			if b == p {
				seen++
			}
		}
		out = append(out, b.Bytes()...)
		b.Release()
	}
	assert.Equal(t, len(given), seen, "%d of the %d buffers given to WriteBuffer were handed over", seen, len(given))
	r := bufio.NewReader(bytes.NewReader(out))
	read := func(method string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.ReadResponse(r, &http.Request{Method: method})
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, body
	}
	resp, _ := read("GET")
	assert.Equal(t, 100, resp.StatusCode, "first status")
	resp, body := read("GET")
	assert.Equal(t, 200, resp.StatusCode, "known length")
	assert.Equal(t, string(big)+string(big)+"tail!", string(body), "known length")
	resp, body = read("GET")
	assert.Equal(t, "abc"+string(big)+"def", string(body), "chunked")
	assert.Equal(t, "42", resp.Trailer.Get("X-Sum"), "chunked: trailer")
	resp, body = read("HEAD")
	assert.Equal(t, int64(1000), resp.ContentLength, "HEAD: length")
	assert.Empty(t, body, "HEAD: body")
	resp, _ = read("GET")
	assert.Equal(t, 204, resp.StatusCode, "last status %d, want 204", resp.StatusCode)
	assert.Equal(t, 0, r.Buffered(), "%d bytes after the responses", r.Buffered())
}

// TestResponseWriterRefused checks the framing and order rules; each
// refused call writes nothing.
func TestResponseWriterRefused(t *testing.T) {
	buftest.CheckLeaks(t)
	check := func(name string, err, kind error) {
		t.Helper()
		var re *codec.FieldError
		assert.ErrorIs(t, err, kind, name)
		assert.ErrorAs(t, err, &re, name)
	}
	w := &ResponseWriter{}
	_, err := w.Write([]byte("x"))
	check("Write before a header", err, ErrResponseState)
	check("WriteBuffer before a header", w.WriteBuffer(buf.Get(8)), ErrResponseState)
	check("End before a header", w.End(nil), ErrResponseState)
	check("bad header", w.WriteHeader(&ResponseHeader{Headers: hdrs("X", "a\r\nb")}), ErrResponseFieldValue)
	check("bad Respond", w.Respond(&ResponseHeader{Status: 7}, nil), ErrResponseStatus)
	assert.Equal(t, 0, w.Len(), "refused calls wrote %d bytes", w.Len())

	assert.False(t, w.Open(), "Open before a header")
	require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: 3}))
	assert.True(t, w.Open(), "not Open after a header with a body due")
	n0 := w.Len()
	check("header in a body", w.WriteHeader(&ResponseHeader{}), ErrResponseState)
	check("Respond in a body", w.Respond(&respPlaintext, respHello), ErrResponseState)
	_, err = w.Write([]byte("abcd"))
	check("Write past the length", err, ErrResponseBody)
	b := buf.Get(8)
	b.WriteString("abcd")
	check("WriteBuffer past the length", w.WriteBuffer(b), ErrResponseBody)
	check("trailers with a length", w.End(hdrs("X", "1")), ErrResponseFraming)
	assert.Equal(t, n0, w.Len(), "refused calls wrote %d bytes", w.Len()-n0)
	_, err = w.Write([]byte("ab"))
	require.NoError(t, err)
	check("End short", w.End(nil), ErrResponseBody)
	assert.False(t, w.Open(), "Open after End")
	check("End again", w.End(nil), ErrResponseState)

	for _, s := range []int{100, 101, 204, 304} {
		check("body in a bodiless response", w.Respond(&ResponseHeader{Status: s}, []byte("x")), ErrResponseBody)
	}
	require.NoError(t, w.WriteHeader(&ResponseHeader{Status: 304}))
	_, err = w.Write([]byte("x"))
	check("Write in a 304", err, ErrResponseBody)
	require.NoError(t, w.End(nil))

	require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
	check("bad trailer", w.End(hdrs("Content-Length", "1")), ErrResponseFraming)
	// the response stayed open
	require.NoError(t, w.End(nil))
	w.Abort()
	assert.Zero(t, w.Len(), "Abort left bytes")
	assert.Nil(t, w.Take(), "Abort left buffers")
	// Abort in the middle of a body, with queued buffers.
	require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
	b = buf.Get(8)
	b.WriteString("abcd")
	require.NoError(t, w.WriteBuffer(b))
	w.Abort()
	require.NoError(t, w.Respond(&respPlaintext, respHello), "after Abort")
	out, _ := takeAll(w)
	assert.True(t, bytes.HasPrefix(out, []byte("HTTP/1.1 200 OK\r\n")), "after Abort: %q", out)
}

// TestResponseWriterNoAllocs checks the plaintext response, 16 pipelined
// responses and a chunked response allocate nothing in steady state,
// buffers taken and released as the event loop would after writing them.
func TestResponseWriterNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a GC may empty the pools
	w := &ResponseWriter{Dates: respDates()}
	release := func() {
		for b := w.Take(); b != nil; b = w.Take() {
			b.Release()
		}
	}
	check := func(name string, f func()) {
		t.Helper()
		f() // warm the pools
		n := testing.AllocsPerRun(100, f)
		assert.Equal(t, float64(0), n, "%s: %v allocations, want 0", name, n)
	}
	check("plaintext", func() {
		h := respPlaintext
		h.Close = false
		require.NoError(t, w.Respond(&h, respHello))
		release()
	})
	check("pipelined", func() {
		for range 16 {
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}
		release()
	})
	// Answering requests (Begin): GET, HEAD, HTTP/1.0 keep-alive, and a
	// handler that panicked half-way (AbortResponse).
	var get, head, keep10 Request
	decodeBytes([]byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), &get)
	decodeBytes([]byte("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"), &head)
	decodeBytes([]byte("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), &keep10)
	check("answered", func() {
		for _, req := range []*Request{&get, &head, &keep10} {
			w.Begin(req)
			require.NoError(t, w.Respond(&respPlaintext, respHello))
		}
		w.Begin(&get)
		w.Respond(&respPlaintext, respHello)
		w.AbortResponse()
		release()
	})
	body := buf.Get(4096)
	body.Write(bytes.Repeat([]byte("x"), 4096))
	defer body.Release()
	check("chunked", func() {
		require.NoError(t, w.WriteHeader(&ResponseHeader{ContentLength: -1}))
		w.Write(respHello)
		w.WriteBuffer(body.Retain())
		require.NoError(t, w.End(nil))
		release()
	})
}
