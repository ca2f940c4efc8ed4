package httpserver_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoAllocs checks that a request answered over a loopback connection
// allocates nothing in steady state, server and client together: one
// request per write, and 16 pipelined.
func TestNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	_, addr := start(t, plaintext)
	for _, depth := range []int{1, 16} {
		c := dial(t, addr)
		req := []byte(strings.Repeat("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n", depth))
		// Learn the answers' length from a first round.
		_, err := c.Write(req)
		require.NoError(t, err)
		br := bufio.NewReader(c)
		var total int
		for range depth {
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			var head bytes.Buffer
			resp.Header.Write(&head)
			io.Copy(io.Discard, resp.Body)
			// Status line, fields, empty line, body.
			total += len("HTTP/1.1 200 OK\r\n") + head.Len() + 2 + 13
		}
		require.Equal(t, 0, br.Buffered(), "%d bytes more than the responses", br.Buffered())
		got := make([]byte, total)
		round := func() {
			if _, err := c.Write(req); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
		}
		round()
		if !bytes.HasSuffix(got, []byte("Hello, World!")) {
			t.Fatalf("answers end %q", got[max(0, len(got)-40):])
		}
		n := testing.AllocsPerRun(500, round)
		assert.Equal(t, float64(0), n, "depth %d: %v allocations per round trip, want 0", depth, n)
	}
}
