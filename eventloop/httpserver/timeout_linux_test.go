package httpserver_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// The timeouts are on by default, each can be changed, and a negative
// value turns one off.
func TestTimeoutDefaults(t *testing.T) {
	srv, _ := start(t, plaintext)
	require.Equal(t, [4]time.Duration{
		httpserver.DefaultReadHeaderTimeout, httpserver.DefaultIdleTimeout,
		httpserver.DefaultBodyTimeout, httpserver.DefaultWriteTimeout,
	}, httpserver.Timeouts(srv))
	srv, _ = start(t, plaintext, httpserver.WithReadHeaderTimeout(time.Second), httpserver.WithIdleTimeout(-1),
		httpserver.WithBodyTimeout(2*time.Second), httpserver.WithWriteTimeout(-1))
	require.Equal(t, [4]time.Duration{time.Second, 0, 2 * time.Second, 0}, httpserver.Timeouts(srv))
}

// closedWithin reads c until EOF and requires it within [min, max) of
// from, returning what was read. The lower bound allows clockSkew: the
// server starts a connection's clock when it accepts it, which can come
// before the client's from (taken once dial returns), and its timers run
// on the loop's clock, read once per round. (CI once saw a connection cut
// at 299.9 ms of the client's clock under a 300 ms timeout.)
func closedWithin(t *testing.T, c io.Reader, from time.Time, min, max time.Duration) string {
	t.Helper()
	const clockSkew = 20 * time.Millisecond
	b, _ := io.ReadAll(c)
	took := time.Since(from)
	require.GreaterOrEqual(t, took, min-clockSkew, "closed too early; read %q", b)
	require.Less(t, took, max, "closed too late; read %q", b)
	return string(b)
}

// A head trickled a byte at a time (slowloris) is cut at the header
// timeout with a 408; so is a connection that sends nothing at all.
func TestTimeoutSlowloris(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, plaintext, httpserver.WithReadHeaderTimeout(300*time.Millisecond))
	c := dial(t, addr)
	from := time.Now()
	go func() {
		for _, b := range []byte("GET / HTTP/1.1\r\nHost: x\r\nX-A: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	got := closedWithin(t, c, from, 300*time.Millisecond, 3*time.Second)
	require.True(t, strings.HasPrefix(got, "HTTP/1.1 408 "), "got %q", got)

	idle := dial(t, addr)
	from = time.Now()
	got = closedWithin(t, idle, from, 300*time.Millisecond, 3*time.Second)
	require.True(t, strings.HasPrefix(got, "HTTP/1.1 408 "), "got %q", got)
}

// A slow upload that keeps sending outlives the body timeout many times
// over and is answered; one that stalls is cut with a 408.
func TestTimeoutSlowUpload(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, plaintext, httpserver.WithBodyTimeout(500*time.Millisecond))
	c := dial(t, addr)
	const n = 40
	_, err := fmt.Fprintf(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", n*10)
	require.NoError(t, err)
	for i := range n { // 40 pieces, 50 ms apart: 2 s, four body timeouts
		_, err := c.Write([]byte(strings.Repeat(string(rune('a'+i%26)), 10)))
		require.NoError(t, err)
		time.Sleep(50 * time.Millisecond)
	}
	br := bufio.NewReader(c)
	_, body := readResponse(t, br)
	require.Len(t, body, n*10)

	stalled := dial(t, addr)
	_, err = io.WriteString(stalled, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a part")
	require.NoError(t, err)
	from := time.Now()
	got := closedWithin(t, stalled, from, 500*time.Millisecond, 5*time.Second)
	require.True(t, strings.HasPrefix(got, "HTTP/1.1 408 "), "got %q", got)
}

// A keep-alive connection that waits for its next request longer than the
// idle timeout is closed; one that keeps asking is not.
func TestTimeoutIdle(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, plaintext, httpserver.WithIdleTimeout(600*time.Millisecond))
	c := dial(t, addr)
	br := bufio.NewReader(c)
	for range 8 { // 8 × 150 ms: past the timeout in all, never in one wait
		_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		requireAnswer(t, br, 200, "Hello, World!")
		time.Sleep(150 * time.Millisecond)
	}
	from := time.Now()
	got := closedWithin(t, br, from, 400*time.Millisecond, 5*time.Second)
	require.Empty(t, got, "an idle close answers nothing")
}

// A client that stops reading a large response is disconnected at the
// write timeout; one that reads slowly but steadily gets all of it.
func TestTimeoutWrite(t *testing.T) {
	buftest.CheckLeaks(t)
	const size = 8 << 20
	big := make([]byte, 64<<10)
	h := func(w *http1.ResponseWriter, req *http1.Request) {
		w.WriteHeader(&http1.ResponseHeader{ContentType: "application/octet-stream", ContentLength: size})
		for range size / len(big) {
			w.Write(big)
		}
		w.End(nil)
	}
	_, addr := start(t, h, httpserver.WithWriteTimeout(time.Second))

	stuck := dialSmall(t, addr)
	_, err := io.WriteString(stuck, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(3 * time.Second) // three write timeouts without reading
	stuck.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := io.Copy(io.Discard, stuck)
	require.Less(t, n, int64(size), "a client that did not read got the whole response")

	slow := dialSmall(t, addr)
	slow.SetDeadline(time.Now().Add(60 * time.Second))
	_, err = io.WriteString(slow, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReaderSize(slow, 4<<10), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	p := make([]byte, 512<<10)
	total := 0
	var rerr error
	for { // 512 KiB every 100 ms: 1.6 s in all
		k, err := io.ReadFull(resp.Body, p)
		total += k
		if err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				rerr = err
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, rerr)
	require.Equal(t, size, total, "the slow reader was cut")

}

// dialSmall dials addr with a 32 KiB receive buffer, so that a response
// of megabytes does not vanish into the kernel's buffers.
func dialSmall(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<10)
		}); err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	c.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}
