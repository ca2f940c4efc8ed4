package httpserver_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
)

// envRequireClients, set to 1 (as CI sets it), turns a missing curl or
// python3 from a skipped test into a failed one.
const envRequireClients = "NETKIT_REQUIRE_CLIENTS"

// requireTool returns the path of the command name, or skips the test
// loudly (fails it under $NETKIT_REQUIRE_CLIENTS=1).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv(envRequireClients) == "1" {
		t.Fatalf("client test cannot run and $%s=1: %v (apt-get install curl python3 nghttp2-client)", envRequireClients, err)
	}
	t.Skipf("CLIENT TEST SKIPPED: %v; install it (apt-get install curl python3 nghttp2-client)", err)
	return ""
}

// resource returns the body of the page's i-th subresource: a script
// that records its number and its own length, of a size that varies from
// a few bytes to some 40 KiB.
func resource(i int) []byte {
	pad := strings.Repeat("x", (i*i*17)%40000)
	body := fmt.Sprintf("window.loaded.push([%d, %%d, %q.length]);\n", i, pad)
	return []byte(fmt.Sprintf(body, len(pad)))
}

const subresources = 50

// page is the HTML page that loads the 50 subresources.
func page() []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>netkit</title><script>window.loaded = [];</script>\n")
	for i := range subresources {
		fmt.Fprintf(&b, "<script src=\"/r/%d.js\"></script>\n", i)
	}
	b.WriteString("</head><body>page</body></html>\n")
	return []byte(b.String())
}

// clientsServer answers the real clients: the page and its resources
// (every third answered from a goroutine, every fifth streamed in
// pieces), POST /echo with the request body's length and SHA-256,
// /download (1 MiB streamed), and /api/… through Adapt and a ServeMux.
// It counts the connections it saw.
func clientsServer(t *testing.T) (string, *atomic.Int32) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": r.PathValue("id"), "proto": r.Proto})
	})
	api := httpserver.Adapt(mux)
	var conns atomic.Int32
	seen := sync.Map{}
	js := http1.ResponseHeader{ContentType: "text/javascript"}
	html := http1.ResponseHeader{ContentType: "text/html; charset=utf-8"}
	h := func(w *http1.ResponseWriter, req *http1.Request) {
		cn := httpserver.ConnOf(w)
		if _, loaded := seen.LoadOrStore(cn, true); !loaded {
			conns.Add(1)
		}
		path := string(req.Path)
		switch {
		case path == "/":
			w.Respond(&html, page())
		case strings.HasPrefix(path, "/r/") && strings.HasSuffix(path, ".js"):
			i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/r/"), ".js"))
			if err != nil || i < 0 || i >= subresources {
				w.Respond(&http1.ResponseHeader{Status: 404}, nil)
				return
			}
			body := resource(i)
			switch {
			case i%5 == 0:
				d := httpserver.Detach(w)
				go func() {
					hh := js
					hh.ContentLength = -1
					d.Writer().WriteHeader(&hh)
					for p := body; len(p) > 0; p = p[min(len(p), 1000):] {
						d.Write(p[:min(len(p), 1000)])
						d.Flush()
					}
					d.Writer().End(nil)
					d.Done()
				}()
			case i%3 == 0:
				d := httpserver.Detach(w)
				go func() {
					time.Sleep(time.Duration(i%7) * time.Millisecond)
					d.Respond(&js, body)
				}()
			default:
				w.Respond(&js, body)
			}
		case path == "/echo" && req.Method == http1.MethodPost:
			sum := sha256.Sum256(req.Body)
			w.Respond(&plainHeader, []byte(fmt.Sprintf("%d %s", len(req.Body), hex.EncodeToString(sum[:]))))
		case path == "/download":
			d := httpserver.Detach(w)
			go func() {
				d.Writer().WriteHeader(&http1.ResponseHeader{ContentType: "application/octet-stream", ContentLength: 1 << 20})
				p := make([]byte, 64<<10)
				for off := 0; off < 1<<20; off += len(p) {
					pattern(p, off)
					if _, err := d.Write(p); err != nil {
						break
					}
				}
				d.Writer().End(nil)
				d.Done()
			}()
		case strings.HasPrefix(path, "/api/"):
			api(w, req)
		default:
			plaintext(w, req)
		}
	}
	_, addr := start(t, h)
	return addr, &conns
}

// A headless Chromium loads a page with 50 scripts over keep-alive
// connections (some answered later from goroutines, some streamed in
// pieces): every script arrives whole and runs, in order, with no error,
// and the browser used far fewer connections than requests.
func TestChromiumPage(t *testing.T) {
	path := browsertest.Require(t)
	buftest.CheckLeaks(t)
	addr, conns := clientsServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := browser.Start(ctx, path)
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Open(ctx, "http://"+addr+"/", 800, 600)
	require.NoError(t, err)
	defer p.Close()
	var loaded [][3]int
	require.NoError(t, p.Eval(ctx, "window.loaded", &loaded))
	require.Empty(t, p.Errors())
	require.Len(t, loaded, subresources, "scripts run")
	for i, l := range loaded {
		require.Equal(t, i, l[0], "scripts run in document order")
		require.Equal(t, l[1], l[2], "script %d arrived whole", i)
	}
	var reqs []string
	for _, r := range p.Requests() {
		if !strings.HasSuffix(r, "/favicon.ico") { // asked for or not, as Chromium sees fit
			reqs = append(reqs, r)
		}
	}
	require.Len(t, reqs, subresources+1)
	n := conns.Load()
	t.Logf("Chromium fetched the page and %d scripts over %d connections", subresources, n)
	require.Less(t, int(n), subresources/2, "keep-alive connections were not reused")
}

// curl run with args; its standard output, and its standard error (the
// -v trace).
func curl(t *testing.T, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(requireTool(t, "curl"), append([]string{"-sS", "--max-time", "20"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "curl %v: %s", args, errb.String())
	return out.String(), errb.String()
}

// curl: keep-alive across URLs of one invocation, HTTP/1.0, Expect:
// 100-continue with a large upload, a chunked upload, HEAD, a net/http
// handler through Adapt, a streamed download.
func TestCurl(t *testing.T) {
	requireTool(t, "curl")
	buftest.CheckLeaks(t)
	addr, _ := clientsServer(t)
	u := "http://" + addr

	out, trace := curl(t, "-v", u+"/echo/one", u+"/r/3.js", u+"/echo/two")
	require.Equal(t, "/echo/one"+string(resource(3))+"/echo/two", out)
	require.Equal(t, 2, strings.Count(strings.ToLower(trace), "re-using existing connection"), "curl did not keep the connection: %s", trace)

	out, trace = curl(t, "-v", "--http1.0", u+"/echo/old")
	require.Equal(t, "/echo/old", out)
	require.Contains(t, trace, "Connection: close")

	upload := make([]byte, 3<<20)
	pattern(upload, 7)
	file := filepath.Join(t.TempDir(), "upload")
	require.NoError(t, os.WriteFile(file, upload, 0o600))
	sum := sha256.Sum256(upload)
	want := fmt.Sprintf("%d %s", len(upload), hex.EncodeToString(sum[:]))

	out, trace = curl(t, "-v", "-H", "Expect: 100-continue", "--data-binary", "@"+file, u+"/echo")
	require.Equal(t, want, out)
	require.Contains(t, trace, "HTTP/1.1 100 Continue")

	out, trace = curl(t, "-v", "-H", "Transfer-Encoding: chunked", "--data-binary", "@"+file, u+"/echo")
	require.Equal(t, want, out)
	require.Contains(t, trace, "Transfer-Encoding: chunked")

	out, _ = curl(t, "-I", u+"/echo/head")
	require.Contains(t, out, "Content-Length: 10")
	require.True(t, strings.HasSuffix(out, "\r\n\r\n"), "HEAD answered with a body: %q", out)

	out, _ = curl(t, u+"/api/users/42")
	require.JSONEq(t, `{"id":"42","proto":"HTTP/1.1"}`, out)

	out, _ = curl(t, u+"/download")
	require.Len(t, out, 1<<20)
	want2 := make([]byte, 1<<20)
	pattern(want2, 0)
	require.Equal(t, string(want2), out)
}

// Python's http.client: several requests on one keep-alive connection,
// a POST with a length, a chunked POST, HEAD, then a net/http handler.
func TestPythonClient(t *testing.T) {
	py := requireTool(t, "python3")
	buftest.CheckLeaks(t)
	addr, conns := clientsServer(t)
	host, port, _ := strings.Cut(addr, ":")
	script := `
import http.client, hashlib, json, sys
c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=20)
out = []
for p in ["/echo/a", "/r/6.js", "/echo/b"]:
    c.request("GET", p)
    r = c.getresponse()
    out.append([r.status, r.read().decode()])
body = bytes(range(256)) * 4000
c.request("POST", "/echo", body=body)
r = c.getresponse(); out.append([r.status, r.read().decode()])
c.request("POST", "/echo", body=iter([body[:100000], body[100000:]]), encode_chunked=True)
r = c.getresponse(); out.append([r.status, r.read().decode()])
c.request("HEAD", "/echo/head")
r = c.getresponse(); out.append([r.status, r.getheader("Content-Length"), r.read().decode()])
c.request("GET", "/api/users/py")
r = c.getresponse(); out.append([r.status, json.loads(r.read())])
out.append(hashlib.sha256(body).hexdigest())
print(json.dumps(out))
`
	cmd := exec.Command(py, "-c", script, host, port)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	b, err := cmd.Output()
	require.NoError(t, err, "python: %s", errb.String())
	var got []any
	require.NoError(t, json.Unmarshal(b, &got))
	sum := got[len(got)-1].(string)
	want := []any{
		[]any{200.0, "/echo/a"},
		[]any{200.0, string(resource(6))},
		[]any{200.0, "/echo/b"},
		[]any{200.0, fmt.Sprintf("%d %s", 256*4000, sum)},
		[]any{200.0, fmt.Sprintf("%d %s", 256*4000, sum)},
		[]any{200.0, "10", ""},
		[]any{200.0, map[string]any{"id": "py", "proto": "HTTP/1.1"}},
		sum,
	}
	require.Equal(t, want, got)
	require.Equal(t, int32(1), conns.Load(), "python's requests did not share one connection")
}

// Go's client over 64 keep-alive connections: every answer checked,
// native, detached, streamed and adapted ones mixed.
func TestGoClientManyConns(t *testing.T) {
	buftest.CheckLeaks(t)
	addr, conns := clientsServer(t)
	tr := &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for g := range 64 {
		wg.Go(func() {
			for i := range 40 {
				var path, want string
				switch k := (g + i) % 4; k {
				case 0:
					path = fmt.Sprintf("/echo/%d/%d", g, i)
					want = path
				case 1, 2:
					n := (g*40 + i) % subresources
					path = fmt.Sprintf("/r/%d.js", n)
					want = string(resource(n))
				case 3:
					path = fmt.Sprintf("/api/users/%d", g)
					want = fmt.Sprintf("{\"id\":\"%d\",\"proto\":\"HTTP/1.1\"}\n", g)
				}
				resp, err := client.Get("http://" + addr + path)
				if err != nil {
					t.Error(err)
					failed.Add(1)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != want {
					t.Errorf("%s: %v, got %d bytes, want %d", path, err, len(b), len(want))
					failed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, failed.Load())
	t.Logf("2560 requests over %d connections", conns.Load())
	require.LessOrEqual(t, int(conns.Load()), 64)
}
