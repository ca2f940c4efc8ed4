package httpserver_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
)

// TestNoAllocs checks that a request answered over a loopback connection
// allocates nothing in steady state, server and client together: one
// request per write, and 16 pipelined.
func TestNoAllocs(t *testing.T) {
	if race.Enabled || invariants.Enabled {
		t.Skip("allocation counts differ under -race and the invariants build")
	}
	_, addr := start(t, plaintext)
	for _, depth := range []int{1, 16} {
		c := dial(t, addr)
		req := []byte(strings.Repeat("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n", depth))
		// Learn the answers' length from a first round.
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		var total int
		for range depth {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			var head bytes.Buffer
			resp.Header.Write(&head)
			io.Copy(io.Discard, resp.Body)
			// Status line, fields, empty line, body.
			total += len("HTTP/1.1 200 OK\r\n") + head.Len() + 2 + 13
		}
		if br.Buffered() != 0 {
			t.Fatalf("%d bytes more than the responses", br.Buffered())
		}
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
		if n != 0 {
			t.Errorf("depth %d: %v allocations per round trip, want 0", depth, n)
		}
	}
}
