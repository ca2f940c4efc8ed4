package http1

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendStatusLine(t *testing.T) {
	for _, tc := range []struct {
		code int
		want string
	}{
		{100, "HTTP/1.1 100 Continue\r\n"},
		{101, "HTTP/1.1 101 Switching Protocols\r\n"},
		{200, "HTTP/1.1 200 OK\r\n"},
		{201, "HTTP/1.1 201 Created\r\n"},
		{202, "HTTP/1.1 202 Accepted\r\n"},
		{204, "HTTP/1.1 204 No Content\r\n"},
		{206, "HTTP/1.1 206 Partial Content\r\n"},
		{301, "HTTP/1.1 301 Moved Permanently\r\n"},
		{302, "HTTP/1.1 302 Found\r\n"},
		{303, "HTTP/1.1 303 See Other\r\n"},
		{304, "HTTP/1.1 304 Not Modified\r\n"},
		{307, "HTTP/1.1 307 Temporary Redirect\r\n"},
		{308, "HTTP/1.1 308 Permanent Redirect\r\n"},
		{400, "HTTP/1.1 400 Bad Request\r\n"},
		{401, "HTTP/1.1 401 Unauthorized\r\n"},
		{403, "HTTP/1.1 403 Forbidden\r\n"},
		{404, "HTTP/1.1 404 Not Found\r\n"},
		{405, "HTTP/1.1 405 Method Not Allowed\r\n"},
		{408, "HTTP/1.1 408 Request Timeout\r\n"},
		{409, "HTTP/1.1 409 Conflict\r\n"},
		{411, "HTTP/1.1 411 Length Required\r\n"},
		{412, "HTTP/1.1 412 Precondition Failed\r\n"},
		{413, "HTTP/1.1 413 Content Too Large\r\n"},
		{414, "HTTP/1.1 414 URI Too Long\r\n"},
		{415, "HTTP/1.1 415 Unsupported Media Type\r\n"},
		{416, "HTTP/1.1 416 Range Not Satisfiable\r\n"},
		{417, "HTTP/1.1 417 Expectation Failed\r\n"},
		{421, "HTTP/1.1 421 Misdirected Request\r\n"},
		{422, "HTTP/1.1 422 Unprocessable Content\r\n"},
		{426, "HTTP/1.1 426 Upgrade Required\r\n"},
		{429, "HTTP/1.1 429 Too Many Requests\r\n"},
		{431, "HTTP/1.1 431 Request Header Fields Too Large\r\n"},
		{500, "HTTP/1.1 500 Internal Server Error\r\n"},
		{501, "HTTP/1.1 501 Not Implemented\r\n"},
		{502, "HTTP/1.1 502 Bad Gateway\r\n"},
		{503, "HTTP/1.1 503 Service Unavailable\r\n"},
		{504, "HTTP/1.1 504 Gateway Timeout\r\n"},
		{505, "HTTP/1.1 505 HTTP Version Not Supported\r\n"},
		// Codes without a precomputed line: an empty reason.
		{103, "HTTP/1.1 103 \r\n"},
		{299, "HTTP/1.1 299 \r\n"},
		{418, "HTTP/1.1 418 \r\n"},
		{599, "HTTP/1.1 599 \r\n"},
		{600, "HTTP/1.1 600 \r\n"},
		{999, "HTTP/1.1 999 \r\n"},
		// Outside 100–999: nothing.
		{-1, ""},
		{0, ""},
		{99, ""},
		{1000, ""},
		{1 << 30, ""},
	} {
		got := string(AppendStatusLine([]byte("x"), tc.code))
		assert.Equal(t, "x"+tc.want, got, "AppendStatusLine(%d) = %q, want %q", tc.code, got, "x"+tc.want)
	}
}

// TestStatusLineNetHTTP reads every status line from 100 to 999 back with
// net/http.
func TestStatusLineNetHTTP(t *testing.T) {
	for code := 100; code <= 999; code++ {
		msg := string(AppendStatusLine(nil, code)) + "Content-Length: 0\r\n\r\n"
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(msg)), nil)
		require.NoError(t, err, "%d", code)
		assert.Equal(t, code, resp.StatusCode, "%d: status read back", code)
		assert.Equal(t, "HTTP/1.1", resp.Proto, "%d: version read back", code)
		assert.True(t, strings.HasPrefix(resp.Status, (strconv.Itoa(code)+" ")), "%d: status %q", code, resp.Status)
	}
}

func TestAppendStatusLineNoAllocs(t *testing.T) {
	dst := make([]byte, 0, 64)
	n := testing.AllocsPerRun(100, func() {
		dst = AppendStatusLine(dst[:0], 200)
		dst = AppendStatusLine(dst[:0], 299)
	})
	assert.Equal(t, float64(0), n, "%v allocations, want 0", n)
}
