package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec"
	"github.com/stretchr/testify/require"
)

// FuzzAppendResponseHeader writes random response heads with
// AppendResponseHeader and with the slow model (response_slow_test.go):
// the same bytes or the same refusal. An accepted head, with a body when
// it has a short one, must read back with net/http.ReadResponse to the
// fields it was given (checkReadBack), the body whole and nothing after:
// no value can split the response or change its framing.
//
// Input: the struct's scalar fields, then the fields as a sequence of
// name length, name, value length, value.
func FuzzAppendResponseHeader(f *testing.F) {
	enc := func(kv ...string) []byte {
		var b []byte
		for _, s := range kv {
			b = append(b, byte(len(s)))
			b = append(b, s...)
		}
		return b
	}
	f.Add(200, int64(13), false, "text/plain", "netkit", respDate, enc())
	f.Add(201, int64(-1), true, "", "", "", enc("Location", "/a", "Trailer", "X"))
	f.Add(0, int64(0), false, "a/b", "s", respDate, enc("Set-Cookie", "a=1", "set-cookie", "b=2\r\nX: y"))
	f.Add(101, int64(5), false, "", "", respDate, enc("Connection", "Upgrade", "Upgrade", "h2c"))
	f.Add(304, int64(-1), false, "", "", "", enc("ETag", `"1"`, "content-length", "3"))
	f.Add(204, int64(7), true, "x", "y", "z", enc("Connection", "keep-alive, close"))
	f.Add(200, int64(5), false, "", "", "", enc("Trailer", "X-Sum", "Connection", "keep-alive"))
	f.Add(599, int64(-2), false, "", "", "", enc("X", " lead"))
	f.Add(404, int64(2), false, "", "\xff\xfe", "", enc("X-\x00", "v", "Date", "today"))
	f.Fuzz(func(t *testing.T, status int, cl int64, close bool, ctype, server, date string, fields []byte) {
		h := &ResponseHeader{Status: status, ContentLength: cl, Close: close, ContentType: ctype, Server: server}
		for len(fields) > 0 {
			n := min(int(fields[0]), len(fields)-1)
			name := fields[1 : 1+n]
			fields = fields[1+n:]
			if len(fields) == 0 {
				break
			}
			m := min(int(fields[0]), len(fields)-1)
			h.Headers = append(h.Headers, Header{Name: name, Value: fields[1 : 1+m]})
			fields = fields[1+m:]
		}
		got, err := AppendResponseHeader([]byte("x"), h, []byte(date))
		want, wantErr := appendResponseHeaderSlow(h, date)
		if wantErr != nil {
			var re *codec.FieldError
			require.Equal(t, "x", string(got), "nothing written for %v", wantErr)
			require.ErrorAs(t, err, &re)
			require.Equal(t, *wantErr, *re)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, string(got[1:]))
		msg := got[1:]
		bodyless := h.Status >= 100 && h.Status < 200 || h.Status == 204 || h.Status == 304
		var body string
		switch {
		case bodyless:
		case cl == -1:
			body = "chunk"
			msg = AppendChunk(msg, []byte(body))
			msg, _ = AppendLastChunk(msg, nil)
		case cl <= 1<<12:
			body = strings.Repeat("b", int(cl))
			msg = append(msg, body...)
		default:
			// Too long to send: read the head only.
		}
		r := bufio.NewReader(bytes.NewReader(msg))
		resp, err := http.ReadResponse(r, nil)
		require.NoError(t, err, "net/http cannot read %q", msg)
		checkReadBack(t, resp, h, date)
		if cl > 1<<12 && !bodyless {
			return
		}
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err, "body %q, %v; want %q", b, err, body)
		require.Equal(t, body, string(b), "body %q, %v; want %q", b, err, body)
		require.Equal(t, 0, r.Buffered(), "%d bytes after the response in %q", r.Buffered(), msg)
	})
}
