package httpserver_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// hasher answers a streamed upload with its length and SHA-256, read by a
// goroutine that is slow for the first 8 MiB; a body that came whole is
// hashed on the loop; the reader's error, if any, is the answer.
func hasher(w *http1.ResponseWriter, req *http1.Request) {
	if !req.BodyFollows {
		sum := sha256.Sum256(req.Body)
		w.Respond(&plainHeader, []byte(fmt.Sprintf("whole %d %s", len(req.Body), hex.EncodeToString(sum[:]))))
		return
	}
	d := httpserver.Detach(w)
	body := d.Body()
	go func() {
		h := sha256.New()
		n, p := 0, make([]byte, 32<<10)
		var err error
		for {
			var k int
			k, err = body.Read(p)
			h.Write(p[:k])
			n += k
			if err != nil {
				break
			}
			if n < 8<<20 {
				time.Sleep(time.Millisecond)
			}
		}
		if err != io.EOF {
			d.Respond(&http1.ResponseHeader{Status: 400}, []byte(err.Error()))
			return
		}
		d.Respond(&plainHeader, []byte(fmt.Sprintf("streamed %d %s", n, hex.EncodeToString(h.Sum(nil)))))
	}()
}

// uploadBody is a reader of n bytes of the pattern.
type uploadBody struct{ off, n int }

func (u *uploadBody) Read(p []byte) (int, error) {
	if u.off == u.n {
		return 0, io.EOF
	}
	p = p[:min(len(p), u.n-u.off)]
	pattern(p, u.off)
	u.off += len(p)
	return len(p), nil
}

func patternSum(n int) string {
	h := sha256.New()
	io.Copy(h, &uploadBody{n: n})
	return hex.EncodeToString(h.Sum(nil))
}

// A 256 MiB upload (1 GiB with NETKIT_LONG=1), with a length and
// chunked, reaches the Handler's
// goroutine whole while the server's heap stays small: the connection
// stops reading while the reader lags. A small body that came with its
// head is still whole in req.Body.
func TestStreamedBodyUpload(t *testing.T) {
	buftest.CheckLeaks(t)
	size := streamSize()
	// MaxBodySize counts a chunked body's framing too: room for both.
	_, addr := start(t, hasher, httpserver.WithStreamedBodies(),
		httpserver.WithDecoder(func(d *http1.Decoder) { d.MaxBodySize = int64(2 * size) }))
	want := patternSum(size)
	client := &http.Client{Timeout: 2 * time.Minute}
	for _, chunked := range []bool{false, true} {
		var base runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		peak := uint64(0)
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}()
		req, err := http.NewRequest("POST", "http://"+addr+"/up", &uploadBody{n: size})
		require.NoError(t, err)
		if !chunked {
			req.ContentLength = int64(size)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		close(stop)
		<-sampled
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("streamed %d %s", size, want), string(b), "chunked %v", chunked)
		grew := int64(peak) - int64(base.HeapInuse)
		t.Logf("chunked %v: heap in use grew by at most %d KiB over a %d MiB upload", chunked, grew>>10, size>>20)
		require.Less(t, grew, int64(32<<20), "the upload was buffered")
	}
	c := dial(t, addr)
	_, err := io.WriteString(c, "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("hello"))
	requireAnswer(t, bufio.NewReader(c), 200, "whole 5 "+hex.EncodeToString(sum[:]))
}

// The 100 Continue goes out when the Handler asks for the body; a body the
// Handler leaves is read and dropped, and the request pipelined after it
// is answered in its place.
func TestStreamedBodyContinueAndIgnored(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/ignore" {
			w.Respond(&plainHeader, []byte("ignored"))
			return
		}
		if req.Method == http1.MethodPost {
			hasher(w, req)
			return
		}
		plaintext(w, req)
	}, httpserver.WithStreamedBodies())
	c := dial(t, addr)
	br := bufio.NewReader(c)
	_, err := io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
	require.NoError(t, err)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	_, err = br.ReadString('\n')
	require.NoError(t, err)
	_, err = io.WriteString(c, "0123456789")
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("0123456789"))
	requireAnswer(t, br, 200, "streamed 10 "+hex.EncodeToString(sum[:]))

	_, err = io.WriteString(c, "POST /ignore HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
	require.NoError(t, err)
	requireAnswer(t, br, 200, "ignored")
	_, err = io.WriteString(c, "5\r\nhello\r\n0\r\n\r\nGET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	requireAnswer(t, br, 200, "/echo/after")
}

// A chunked body whose framing breaks mid-way reaches the reader as an
// error, its answer goes out, and the connection closes; a client that
// leaves mid-body ends the reader with ErrBodyGone.
func TestStreamedBodyErrors(t *testing.T) {
	buftest.CheckLeaks(t)
	gone := make(chan error, 1)
	_, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/leave" {
			d := httpserver.Detach(w)
			body := d.Body()
			go func() {
				_, err := io.Copy(io.Discard, body)
				gone <- err
				d.Done()
			}()
			return
		}
		hasher(w, req)
	}, httpserver.WithStreamedBodies())
	c := dial(t, addr)
	_, err := io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	_, err = io.WriteString(c, "5\r\nhello\r\nzz\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, body := readResponse(t, br)
	require.Equal(t, 400, resp.StatusCode)
	require.True(t, strings.Contains(body, "chunk"), "the reader's error: %q", body)
	expectEOF(t, br)

	c = dial(t, addr)
	_, err = io.WriteString(c, "POST /leave HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart")
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.(*net.TCPConn).SetLinger(0)) // a reset: gone (a FIN is TestDetachHalfClose's)
	c.Close()
	require.ErrorIs(t, recvErr(t, gone, 5*time.Second, "the body's reader was not told the client left"), httpserver.ErrBodyGone)
}

// Through Adapt, a net/http handler reads a streamed upload as it comes.
func TestStreamedBodyAdapt(t *testing.T) {
	buftest.CheckLeaks(t)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /up", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		fmt.Fprintf(w, "%d %d %s", r.ContentLength, n, hex.EncodeToString(h.Sum(nil)))
	})
	_, addr := start(t, httpserver.Adapt(mux), httpserver.WithStreamedBodies(),
		httpserver.WithDecoder(func(d *http1.Decoder) { d.MaxBodySize = 1 << 30 }))
	const size = 64 << 20
	req, err := http.NewRequest("POST", "http://"+addr+"/up", &uploadBody{n: size})
	require.NoError(t, err)
	req.ContentLength = size
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("%d %d %s", size, size, patternSum(size)), string(b))
}
