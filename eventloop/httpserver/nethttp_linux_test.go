package httpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// differentialMux is the handler both servers run: each route exercises
// a rule of net/http's ResponseWriter that handlers rely on.
func differentialMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "Hello, World!")
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"message": "Hello, World!", "n": 42})
	})
	mux.HandleFunc("GET /sniff", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!DOCTYPE html><html><body>sniffed</body></html>")
	})
	mux.HandleFunc("GET /nosniff", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		io.WriteString(w, "<html>no type</html>")
	})
	mux.HandleFunc("GET /empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /nocontent", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Kind", "none")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /notmodified", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", `"v1"`)
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("GET /length", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "12345")
	})
	mux.HandleFunc("GET /big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := range 1000 {
			fmt.Fprintf(w, "line %d\n", i)
		}
	})
	mux.HandleFunc("GET /flushed", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first;")
		w.(http.Flusher).Flush()
		io.WriteString(w, "second")
	})
	mux.HandleFunc("GET /late-header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Early", "1")
		w.WriteHeader(http.StatusAccepted)
		w.Header().Set("X-Late", "ignored")
		w.WriteHeader(http.StatusTeapot) // superfluous: ignored
		io.WriteString(w, "accepted")
	})
	mux.HandleFunc("GET /multi", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, "multi")
	})
	mux.HandleFunc("GET /error", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "teapot here", http.StatusTeapot)
	})
	mux.HandleFunc("GET /redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/plain", http.StatusFound)
	})
	mux.HandleFunc("GET /date", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
		io.WriteString(w, "dated")
	})
	mux.HandleFunc("GET /close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "closing")
	})
	mux.HandleFunc("GET /users/{id}/files/{path...}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "user %s file %s query %q", r.PathValue("id"), r.PathValue("path"), r.URL.Query().Get("q"))
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		r.Body.Close()
		_, err = r.Body.Read(make([]byte, 1))
		fmt.Fprintf(w, "%d %v %q %q after close: %v", r.ContentLength, r.TransferEncoding, r.Header.Get("X-Req"), b, err)
	})
	mux.HandleFunc("GET /headers", func(w http.ResponseWriter, r *http.Request) {
		// Appending to one value's slice must not touch another's.
		r.Header.Add("X-A", "added")
		keys := slices.Sorted(maps.Keys(r.Header))
		for _, k := range keys {
			fmt.Fprintf(w, "%s=%q\n", k, r.Header[k])
		}
		for i := range 12 { // more response fields than the snapshot's stack array
			w.Header().Set(fmt.Sprintf("X-Out-%02d", i), strings.Repeat("v", i))
		}
	})
	mux.HandleFunc("GET /request", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s %s %d.%d host=%s uri=%s close=%v", r.Method, r.URL.Path, r.Proto, r.ProtoMajor, r.ProtoMinor, r.Host, r.RequestURI, r.Close)
	})
	return mux
}

// differentialRequests are raw requests, each sent on a new connection to
// both servers.
var differentialRequests = []string{
	"GET /plain HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /json HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /sniff HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /nosniff HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /empty HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /nocontent HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /notmodified HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /length HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /big HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /flushed HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /late-header HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /multi HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /error HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /redirect HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /date HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /close HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /users/7/files/a/b.txt?q=x%20y HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
	"DELETE /plain HTTP/1.1\r\nHost: x\r\n\r\n",
	"HEAD /plain HTTP/1.1\r\nHost: x\r\n\r\n",
	"HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n",
	"HEAD /empty HTTP/1.1\r\nHost: x\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\nX-Req: yes\r\nContent-Length: 11\r\n\r\nhello world",
	"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
	"POST /echo HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /headers HTTP/1.1\r\nHost: x\r\nx-a: 1\r\nX-B: 2\r\nx-A: 3\r\nACCEPT: */*\r\nX-Empty:\r\n\r\n",
	"GET /request HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
	"GET /request HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	"GET /request HTTP/1.0\r\nHost: x\r\n\r\n",
	"GET /plain HTTP/1.0\r\n\r\n",
	"GET /big HTTP/1.0\r\n\r\n",
	"GET http://other.example/request HTTP/1.1\r\nHost: x\r\n\r\n",
}

// exchangeRaw sends req on a new connection to addr and reads the
// response: status, headers without Date, body, and whether the server
// closed the connection after it.
func exchangeRaw(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	br := bufio.NewReader(c)
	method := strings.SplitN(req, " ", 2)[0]
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	require.NoError(t, err, "request %q", req)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	var lines []string
	for k, vs := range resp.Header {
		if k == "Date" && len(vs) == 1 && vs[0] != "Mon, 02 Jan 2006 15:04:05 GMT" {
			continue // the server's own date
		}
		lines = append(lines, fmt.Sprintf("%s: %q", k, vs))
	}
	sort.Strings(lines)
	// The status code, not the reason phrase: netkit's writer names the
	// codes of RFC 9110 and leaves the others' phrase empty (418's
	// "I'm a teapot" is net/http's), which RFC 9112 §4 allows. Nor the
	// version: to an HTTP/1.0 client net/http answers "HTTP/1.0", netkit
	// "HTTP/1.1", its own version, as RFC 9110 §6.2 asks.
	return fmt.Sprintf("%d\nlength %d chunked %v close %v\n%s\nbody %q",
		resp.StatusCode, resp.ContentLength, resp.TransferEncoding, resp.Close, strings.Join(lines, "\n"), b)
}

// The same requests to the same net/http Handler under net/http's server
// and under Adapt on the loop give the same responses: status, headers
// but Date, framing, close, and body.
func TestAdaptDifferential(t *testing.T) {
	buftest.CheckLeaks(t)
	ref := httptest.NewServer(differentialMux())
	defer ref.Close()
	ref.Config.ErrorLog = log.New(io.Discard, "", 0)
	_, addr := start(t, httpserver.Adapt(differentialMux(), httpserver.WithErrorLog(log.New(io.Discard, "", 0))))
	refAddr := strings.TrimPrefix(ref.URL, "http://")
	for _, req := range differentialRequests {
		want := exchangeRaw(t, refAddr, req)
		got := exchangeRaw(t, addr, req)
		require.Equal(t, want, got, "request %q", req)
	}
	t.Logf("%d requests answered alike", len(differentialRequests))
}

// Request.Context is cancelled when the client goes away; a handler's
// panic closes the connection after the responses before it, as in
// net/http.
func TestAdaptContextAndPanic(t *testing.T) {
	buftest.CheckLeaks(t)
	cancelled := make(chan error, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/wait", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			cancelled <- r.Context().Err()
		case <-time.After(10 * time.Second):
			cancelled <- nil
		}
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/panic", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	_, addr := start(t, httpserver.Adapt(mux, httpserver.WithErrorLog(log.New(io.Discard, "", 0))))

	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	c.Close()
	require.ErrorIs(t, recvErr(t, cancelled, 5*time.Second, "the request's context was not cancelled when the client left"), context.Canceled)

	c = dial(t, addr)
	_, err = io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /panic HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "ok")
	expectEOF(t, br)
}
