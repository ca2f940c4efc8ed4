package httpserver_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	case strings.HasPrefix(path, "/adapt/"):
		h2Adapt(w, req)
	case path == "/detach":
		d := httpserver.Detach(w)
		go func() {
			time.Sleep(time.Millisecond)
			d.Respond(&plainHeader, []byte("later"))
		}()
	case sscan(path, "/dstream/%d", &n):
		// Streamed from a goroutine, paced by the client's windows.
		d := httpserver.Detach(w)
		go func() {
			h := plainHeader
			h.ContentLength = -1
			d.Writer().WriteHeader(&h)
			chunk := bytes.Repeat([]byte("0123456789abcdef"), 1024)
			for n > 0 {
				k := min(n, len(chunk))
				if _, err := d.Write(chunk[:k]); err != nil {
					break
				}
				n -= k
			}
			d.Writer().End([]http1.Header{{Name: []byte("X-Sum"), Value: []byte("streamed")}})
			d.Done()
		}()
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

// h2Adapt serves net/http handlers through Adapt: they see HTTP/2.0.
var h2Adapt = httpserver.Adapt(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Proto", r.Proto)
	fmt.Fprintf(w, "%s %s %d", r.Method, r.URL.Path, len(body))
}))

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
	read := func(resp *http.Response, err error) (*http.Response, []byte) {
		t.Helper()
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, b
	}

	resp, body := read(c.Get(base + "/a"))
	assert.Equal(t, 2, resp.ProtoMajor)
	assert.Equal(t, "Hello, World!/a", string(body))
	assert.Equal(t, "text/plain", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("Date"))

	resp, body = read(c.Head(base + "/len/100"))
	assert.Empty(t, body)
	assert.Equal(t, int64(100), resp.ContentLength)

	for _, n := range []int{0, 1, 16384, 70000, 3 << 20} {
		up := bytes.Repeat([]byte{'u'}, n)
		_, body = read(c.Post(base+"/up", "application/octet-stream", bytes.NewReader(up)))
		sum := sha256.Sum256(up)
		assert.Equal(t, fmt.Sprintf("%d %x", n, sum[:8]), string(body), "upload of %d", n)
	}
	for _, n := range []int{1, 65535, 65536, 5 << 20} {
		resp, body = read(c.Get(fmt.Sprintf("%s/big/%d", base, n)))
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

	// Detached answers: a late one, a stream of 3 MB paced by the
	// windows, net/http handlers through Adapt (an upload too).
	_, body = read(c.Get(base + "/detach"))
	assert.Equal(t, "later", string(body))
	resp, body = read(c.Get(base + "/dstream/3000000"))
	assert.Len(t, body, 3000000)
	assert.Equal(t, "streamed", resp.Trailer.Get("X-Sum"))
	resp, body = read(c.Get(base + "/adapt/x"))
	assert.Equal(t, "GET /adapt/x 0", string(body))
	assert.Equal(t, "HTTP/2.0", resp.Header.Get("X-Proto"))
	_, body = read(c.Post(base+"/adapt/up", "text/plain", bytes.NewReader(make([]byte, 100000))))
	assert.Equal(t, "POST /adapt/up 100000", string(body))

	resp, body = read(http.Get(base + "/h1"))
	assert.Equal(t, 1, resp.ProtoMajor)
	assert.Equal(t, "Hello, World!/h1", string(body))
}

// TestH2CCurl: curl with --http2-prior-knowledge: a download of 5 MB
// across many windows, with its trailer, an upload of 3 MiB, HEAD; each
// over HTTP/2.
func TestH2CCurl(t *testing.T) {
	bin := requireTool(t, "curl")
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	base := "http://" + addr
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"-sS", "--http2-prior-knowledge"}, args...)...).Output()
		require.NoError(t, err, "curl %v", args)
		return string(out)
	}
	out := run("-o", "/dev/null", "-w", "%{http_version} %{size_download}", base+"/big/5000000")
	assert.Equal(t, "2 5000000", out)
	out = run("-D", "-", "-o", "/dev/null", base+"/big/10")
	assert.Contains(t, out, "x-sum: done", "the trailer")

	dir := t.TempDir()
	up := bytes.Repeat([]byte("netkit"), 3<<20/6)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "up"), up, 0o600))
	sum := sha256.Sum256(up)
	out = run("--data-binary", "@"+filepath.Join(dir, "up"), base+"/up")
	assert.Equal(t, fmt.Sprintf("%d %x", len(up), sum[:8]), out)

	out = run("-I", base+"/len/123")
	assert.Contains(t, out, "HTTP/2 200")
	assert.Contains(t, out, "content-length: 123")
}

// TestH2CNghttp: nghttp2's client (prior knowledge for http:// URLs): a
// 5 MB download and a 3 MiB upload across many windows, and 20 requests
// on one connection.
func TestH2CNghttp(t *testing.T) {
	bin := requireTool(t, "nghttp")
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	base := "http://" + addr
	out, err := exec.Command(bin, base+"/big/5000000").Output()
	require.NoError(t, err)
	assert.Len(t, out, 5000000)
	assert.Equal(t, bytes.Repeat([]byte("0123456789abcdef"), 16)[:100], out[:100])

	dir := t.TempDir()
	up := bytes.Repeat([]byte("h2"), 3<<20/2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "up"), up, 0o600))
	sum := sha256.Sum256(up)
	out, err = exec.Command(bin, "-d", filepath.Join(dir, "up"), base+"/up").Output()
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%d %x", len(up), sum[:8]), string(out))

	var urls []string
	want := ""
	for i := range 20 {
		urls = append(urls, fmt.Sprintf("%s/n/%d", base, i))
		want += fmt.Sprintf("Hello, World!/n/%d", i)
	}
	out, err = exec.Command(bin, urls...).Output()
	require.NoError(t, err)
	assert.Len(t, string(out), len(want), "20 answers on one connection")
}

// TestH2UpgradeRefused: Upgrade on an HTTP/2 stream is an error, not a
// panic; the Handler answers instead.
func TestH2UpgradeRefused(t *testing.T) {
	handler := func(w *http1.ResponseWriter, req *http1.Request) {
		err := httpserver.Upgrade(w, &http1.ResponseHeader{}, nil)
		w.Respond(&plainHeader, []byte(fmt.Sprint(err)))
	}
	_, addr := start(t, handler, httpserver.WithH2C())
	resp, err := h2Client().Get("http://" + addr + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "Upgrade of an HTTP/2 request")
}

// TestH2CUpgrade: clients that ask for h2c with "Upgrade: h2c" (curl
// --http2, nghttp -u): a 101, then HTTP/2, the request that asked
// answered as stream 1; a request without HTTP2-Settings stays HTTP/1.1.
func TestH2CUpgrade(t *testing.T) {
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	base := "http://" + addr
	curlBin := requireTool(t, "curl")
	out, err := exec.Command(curlBin, "-sS", "--http2", "-w", " %{http_version}", base+"/up1").Output()
	require.NoError(t, err)
	assert.Equal(t, "Hello, World!/up1 2", string(out))
	up := bytes.Repeat([]byte("u"), 100000)
	sum := sha256.Sum256(up)
	cmd := exec.Command(curlBin, "-sS", "--http2", "--data-binary", "@-", "-w", " %{http_version}", base+"/post")
	cmd.Stdin = bytes.NewReader(up)
	out, err = cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%d %x 2", len(up), sum[:8]), string(out), "answered over HTTP/2")

	nghttp := requireTool(t, "nghttp")
	out, err = exec.Command(nghttp, "-u", base+"/big/200000").Output()
	require.NoError(t, err)
	assert.Len(t, out, 200000)
	out, err = exec.Command(nghttp, "-u", "-v", base+"/a").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "HTTP Upgrade response")
	assert.Contains(t, string(out), "HTTP Upgrade success")

	// No HTTP2-Settings: no upgrade.
	c := dial(t, addr)
	fmt.Fprintf(c, "GET /plain HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
	resp, body := readResponse(t, bufio.NewReader(c))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "Hello, World!/plain", body)
}
