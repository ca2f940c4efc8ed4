package httpserver_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// h2Client is Go's own client speaking HTTP/2 without TLS (h2c, prior
// knowledge) and nothing else.
func h2Client() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}, Timeout: 30 * time.Second}
}

// h2Handler answers by path: /big/N streams N bytes chunked, /len/N
// answers N bytes with a length, POST echoes the body's length and hash,
// anything else "Hello, World!" and the path.
func h2Handler(w *http1.ResponseWriter, req *http1.Request) {
	path := string(req.Path)
	var n int
	switch {
	case req.Method == http1.MethodPost:
		sum := sha256.Sum256(req.Body)
		w.Respond(&plainHeader, fmt.Appendf(nil, "%d %x", len(req.Body), sum[:8]))
	case sscan(path, "/big/%d", &n):
		h := plainHeader
		h.ContentLength = -1
		w.WriteHeader(&h)
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 1024)
		for n > 0 {
			k := min(n, len(chunk))
			w.Write(chunk[:k])
			n -= k
		}
		w.End([]http1.Header{{Name: []byte("X-Sum"), Value: []byte("done")}})
	case sscan(path, "/len/%d", &n):
		w.Respond(&plainHeader, bytes.Repeat([]byte("x"), n))
	default:
		w.Respond(&plainHeader, append(append([]byte(nil), hello...), req.Path...))
	}
}

func sscan(s, format string, n *int) bool {
	_, err := fmt.Sscanf(s, format, n)
	return err == nil
}

// TestH2CGoClient: Go's client over h2c prior knowledge: a GET, a HEAD,
// uploads and downloads across many windows, 200 requests on 50 streams
// at once; HTTP/1.1 still served on the same port.
func TestH2CGoClient(t *testing.T) {
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	c := h2Client()
	base := "http://" + addr

	resp, err := c.Get(base + "/a")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 2, resp.ProtoMajor)
	assert.Equal(t, "Hello, World!/a", string(body))
	assert.Equal(t, "text/plain", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("Date"))

	resp, err = c.Head(base + "/len/100")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Empty(t, body)
	assert.Equal(t, int64(100), resp.ContentLength)

	for _, n := range []int{0, 1, 16384, 70000, 3 << 20} {
		up := bytes.Repeat([]byte{'u'}, n)
		resp, err = c.Post(base+"/up", "application/octet-stream", bytes.NewReader(up))
		require.NoError(t, err)
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		sum := sha256.Sum256(up)
		assert.Equal(t, fmt.Sprintf("%d %x", n, sum[:8]), string(body), "upload of %d", n)
	}
	for _, n := range []int{1, 65535, 65536, 5 << 20} {
		resp, err = c.Get(fmt.Sprintf("%s/big/%d", base, n))
		require.NoError(t, err)
		body, err = io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Len(t, body, n)
		assert.Equal(t, "done", resp.Trailer.Get("X-Sum"), "trailers of %d", n)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(fmt.Sprintf("%s/n/%d", base, i))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if string(b) != fmt.Sprintf("Hello, World!/n/%d", i) || resp.ProtoMajor != 2 {
				errs <- fmt.Errorf("request %d: %q", i, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	resp, err = http.Get(base + "/h1")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 1, resp.ProtoMajor)
	assert.Equal(t, "Hello, World!/h1", string(body))
}
