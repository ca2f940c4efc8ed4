package httpserver_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/stretchr/testify/require"
)

var (
	plainHeader = http1.ResponseHeader{ContentType: "text/plain", Server: "netkit"}
	hello       = []byte("Hello, World!")
)

// plaintext answers "Hello, World!", and the path for /echo/… requests
// (so that tests can tell pipelined answers apart), and the body for
// POST.
func plaintext(w *http1.ResponseWriter, req *http1.Request) {
	h := plainHeader
	h.Close = !req.KeepAlive
	switch {
	case req.Method == http1.MethodPost:
		w.Respond(&h, req.Body)
	case strings.HasPrefix(string(req.Path), "/echo/"):
		w.Respond(&h, req.Path)
	default:
		w.Respond(&h, hello)
	}
}

// panics counts the panics the loops of start's groups recovered.
var panics atomic.Int64

// start runs a server of h on a new one-loop group, both stopped when the
// test ends; the panics its loop recovers are counted in panics.
func start(t *testing.T, h httpserver.Handler, opts ...httpserver.Option) (*httpserver.Server, string) {
	t.Helper()
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1, OnPanic: func(any, []byte) { panics.Add(1) }})
	require.NoError(t, err)
	srv, err := httpserver.Listen(g, "127.0.0.1:0", h, opts...)
	if err != nil {
		g.Close()
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		srv.Close()
		g.Close()
	})
	return srv, srv.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// readResponse reads one response and its body.
func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	return resp, string(b)
}

// expectEOF checks that the server closed the connection (EOF, or a reset
// after it).
func expectEOF(t *testing.T, br *bufio.Reader) {
	t.Helper()
	b, err := br.ReadByte()
	require.Error(t, err, "read %q after the last response, want the connection closed", b)
}

func shutdown(t *testing.T, srv *httpserver.Server, d time.Duration) chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		done <- srv.Shutdown(ctx)
	}()
	return done
}

// requireAnswer reads the next response from br and requires its status
// and body.
func requireAnswer(t *testing.T, br *bufio.Reader, status int, body string, msgAndArgs ...any) *http.Response {
	t.Helper()
	resp, got := readResponse(t, br)
	require.Equal(t, status, resp.StatusCode, msgAndArgs...)
	require.Equal(t, body, got, msgAndArgs...)
	return resp
}

// recvErr returns the error ch delivers, failing the test with msg when
// none comes within d.
func recvErr(t *testing.T, ch <-chan error, d time.Duration, msg string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		t.Fatal(msg)
		return nil
	}
}

// waitDone waits for ctx to end, failing the test with msg when it has
// not within d.
func waitDone(t *testing.T, ctx context.Context, d time.Duration, msg string) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(d):
		t.Fatal(msg)
	}
}

// detachOn answers requests for path by detaching them and handing the
// Detached to got, and the others with h.
// detachOne starts a server that detaches every request, sends it one
// GET on a new connection and returns the server, the connection and the
// detached request.
func detachOne(t *testing.T) (*httpserver.Server, net.Conn, *httpserver.Detached) {
	got := make(chan *httpserver.Detached, 1)
	srv, addr := start(t, func(w *http1.ResponseWriter, req *http1.Request) {
		got <- httpserver.Detach(w)
	})
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	return srv, c, <-got
}

func detachOn(path string, got chan<- *httpserver.Detached, h httpserver.Handler) httpserver.Handler {
	return func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == path {
			got <- httpserver.Detach(w)
			return
		}
		h(w, req)
	}
}

// streamSize is how much the streaming tests send each way: 256 MiB, or
// the 1 GiB the server is specified for with NETKIT_LONG=1 (outside CI:
// about four times as long).
func streamSize() int {
	if os.Getenv("NETKIT_LONG") == "1" {
		return 1 << 30
	}
	return 256 << 20
}
