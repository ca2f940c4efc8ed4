package httpserver_test

import (
	"bufio"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGarbage sends mutated requests, each on its own connection, in
// random pieces: the server must never panic, must answer or close every
// one, and must go on serving.
func TestGarbage(t *testing.T) {
	_, addr := start(t, plaintext)
	before := panics.Load()
	seeds := []string{
		"GET /echo/a HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: v\r\n\r\n",
		"POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
		"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		p := []byte(seeds[rng.IntN(len(seeds))])
		p = append(p, seeds[rng.IntN(len(seeds))]...) // pipelined
		for range 1 + rng.IntN(4) {
			switch j := rng.IntN(len(p)); rng.IntN(4) {
			case 0:
				p[j] = byte(rng.IntN(256))
			case 1:
				p = append(p[:j], p[j+1:]...)
			case 2:
				p = splice(p, j, []byte{"\r\n :\x00"[rng.IntN(5)]})
			case 3: // a piece repeated
				p = splice(p, j, p[j:j+1+rng.IntN(len(p)-j)])
			}
		}
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		c.SetDeadline(time.Now().Add(5 * time.Second))
		for len(p) > 0 {
			k := 1 + rng.IntN(len(p))
			if _, err := c.Write(p[:k]); err != nil {
				break // the server closed after refusing
			}
			p = p[k:]
		}
		c.(*net.TCPConn).CloseWrite()
		if _, err := io.Copy(io.Discard, c); err != nil {
			ne, ok := err.(net.Error)
			require.False(t, ok && ne.Timeout(), "input %d: the server neither answered nor closed", i)
		}
		c.Close()
	}
	require.Zero(t, panics.Load()-before, "panics")
	c := dial(t, addr)
	io.WriteString(c, "GET /echo/still HTTP/1.1\r\nHost: x\r\n\r\n")
	requireAnswer(t, bufio.NewReader(c), 200, "/echo/still")
}

// splice returns a new slice: p with q inserted at i.
func splice(p []byte, i int, q []byte) []byte {
	out := make([]byte, 0, len(p)+len(q))
	out = append(out, p[:i]...)
	out = append(out, q...)
	return append(out, p[i:]...)
}
