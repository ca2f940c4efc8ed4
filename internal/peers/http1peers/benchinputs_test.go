package http1peers

import (
	"bufio"
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestBenchInputs checks that every impl of BenchmarkParse reads both
// inputs whole, as the same method, target, fields and body, and the way
// the benchmark drives it reads them too.
func TestBenchInputs(t *testing.T) {
	bodies := map[string]string{
		"get10":       "",
		"chunkedpost": `{"event":"click","id":123456789}{"event":"view","id":1234567890}{"event":"buy","id":12345678901}`,
	}
	for _, in := range benchInputs {
		t.Run(in.name, func(t *testing.T) {
			p := []byte(in.in)
			nk, err := NetkitParse(p)
			require.NoError(t, err, "netkit")
			require.Equal(t, bodies[in.name], nk.Body, "netkit: body")
			require.Equal(t, len(p), nk.N, "netkit: bytes read")
			for _, peer := range []struct {
				name string
				read func([]byte) (*Parsed, error)
			}{{"nethttp", NetHTTPRead}, {"fasthttp", FastHTTPRead}} {
				got, err := peer.read(p)
				require.NoError(t, err, "%s", peer.name)
				assert.Empty(t, Diff(nk, got), "netkit vs %s", peer.name)
			}

			// fasthttp-header, as the benchmark drives it: the head only.
			var h fasthttp.RequestHeader
			br := bufio.NewReader(bytes.NewReader(p))
			require.NoError(t, h.Read(br), "fasthttp-header")
			assert.Equal(t, nk.Method, string(h.Method()), "fasthttp-header: method")
			assert.Equal(t, nk.Target, string(h.RequestURI()), "fasthttp-header: target")
			var fields []Field
			for name, value := range h.AllInOrder() {
				if l := strings.ToLower(string(name)); !skipped(l) {
					fields = append(fields, Field{l, string(value)})
				}
			}
			assert.True(t, slices.Equal(sorted(fields), sorted(nk.Headers)), "fasthttp-header reads the fields %q, netkit %q", sorted(fields), sorted(nk.Headers))
			head := strings.Index(in.in, "\r\n\r\n") + 4
			assert.Equal(t, head, len(p)-br.Buffered(), "fasthttp-header reads %d bytes, the head is %d", len(p)-br.Buffered(), head)
		})
	}
}
