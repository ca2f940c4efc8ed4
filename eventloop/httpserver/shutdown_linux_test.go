package httpserver_test

import (
	"bufio"
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// TestShutdownFromHandler calls Shutdown from inside a handler, on the
// loop: it returns at once (waiting there would deadlock the loop on its
// own connection), the answer still goes out, and Done closes once the
// connection has gone.
func TestShutdownFromHandler(t *testing.T) {
	var srvp atomic.Pointer[httpserver.Server]
	returned := make(chan error, 1)
	h := func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) == "/quit" {
			returned <- srvp.Load().Shutdown(context.Background())
		}
		plaintext(w, req)
	}
	srv, addr := start(t, h)
	srvp.Store(srv)
	c := dial(t, addr)
	io.WriteString(c, "GET /quit HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, body := readResponse(t, bufio.NewReader(c))
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "Hello, World!", body)
	select {
	case err := <-returned:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		require.FailNow(t, "Shutdown called from a handler did not return: deadlock")
	}
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		require.FailNow(t, "Done was not closed after Shutdown from a handler")
	}
}
