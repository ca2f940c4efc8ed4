package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const respDate = "Sun, 06 Nov 1994 08:49:37 GMT"

func hdrs(kv ...string) []Header {
	var h []Header
	for i := 0; i+1 < len(kv); i += 2 {
		h = append(h, Header{Name: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	return h
}

func TestAppendResponseHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    ResponseHeader
		date string
		want string
	}{
		{"zero", ResponseHeader{}, "",
			"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
		{"plaintext", ResponseHeader{Status: 200, ContentLength: 13, ContentType: "text/plain", Server: "netkit"}, respDate,
			"HTTP/1.1 200 OK\r\nDate: " + respDate + "\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"},
		{"chunked close", ResponseHeader{Status: 404, ContentLength: -1, Close: true}, "",
			"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"},
		{"user headers", ResponseHeader{Status: 201, ContentLength: 1 << 40, Headers: hdrs("Location", "/x/1", "x-empty", "", "Cache-Control", "no-store,\tprivate")}, respDate,
			"HTTP/1.1 201 Created\r\nDate: " + respDate + "\r\nContent-Length: 1099511627776\r\nLocation: /x/1\r\nx-empty: \r\nCache-Control: no-store,\tprivate\r\n\r\n"},
		{"obs-text value", ResponseHeader{Headers: hdrs("X-Name", "caf\xc3\xa9")}, "",
			"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Name: caf\xc3\xa9\r\n\r\n"},
		{"100 continue", ResponseHeader{Status: 100, ContentLength: 5, Close: true, ContentType: "a/b", Server: "s"}, respDate,
			"HTTP/1.1 100 Continue\r\n\r\n"},
		{"101 upgrade", ResponseHeader{Status: 101, Headers: hdrs("Connection", "Upgrade", "Upgrade", "websocket")}, respDate,
			"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"},
		{"1xx may name Date", ResponseHeader{Status: 103, Headers: hdrs("Date", respDate, "Link", "</a.css>; rel=preload")}, respDate,
			"HTTP/1.1 103 \r\nDate: " + respDate + "\r\nLink: </a.css>; rel=preload\r\n\r\n"},
		{"204 no length", ResponseHeader{Status: 204, ContentLength: 10, Server: "s"}, "",
			"HTTP/1.1 204 No Content\r\nServer: s\r\n\r\n"},
		{"304 no chunked", ResponseHeader{Status: 304, ContentLength: -1, Headers: hdrs("ETag", `"x"`)}, respDate,
			"HTTP/1.1 304 Not Modified\r\nDate: " + respDate + "\r\nETag: \"x\"\r\n\r\n"},
		{"keep-alive for 1.0", ResponseHeader{ContentLength: 2, Headers: hdrs("Connection", "keep-alive")}, "",
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n"},
		{"Date when none written", ResponseHeader{Headers: hdrs("Date", respDate)}, "",
			"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nDate: " + respDate + "\r\n\r\n"},
		{"Server, Content-Type when unset", ResponseHeader{Headers: hdrs("server", "x", "CONTENT-TYPE", "y")}, "",
			"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nserver: x\r\nCONTENT-TYPE: y\r\n\r\n"},
		{"other code", ResponseHeader{Status: 799, ContentLength: 1}, "",
			"HTTP/1.1 799 \r\nContent-Length: 1\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendResponseHeader([]byte("prefix"), &tc.h, []byte(tc.date))
			require.NoError(t, err)
			assert.Equal(t, "prefix"+tc.want, string(got), "got\n%q\nwant\n%q", got, "prefix"+tc.want)
		})
	}
}

// TestAppendResponseHeaderRefused checks every refusal: the error's kind,
// field and index, and that dst comes back unchanged.
func TestAppendResponseHeaderRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h     ResponseHeader
		date  string
		kind  error
		field string
		index int
	}{
		{"status 99", ResponseHeader{Status: 99}, "", ErrResponseStatus, "Status", -1},
		{"status 1000", ResponseHeader{Status: 1000}, "", ErrResponseStatus, "Status", -1},
		{"status negative", ResponseHeader{Status: -200}, "", ErrResponseStatus, "Status", -1},
		{"length -2", ResponseHeader{ContentLength: -2}, "", ErrResponseContentLength, "ContentLength", -1},
		// Response splitting through every value the writer copies.
		{"CRLF in a value", ResponseHeader{Headers: hdrs("X-A", "ok", "X-B", "a\r\nSet-Cookie: evil=1")}, "", ErrResponseFieldValue, "Headers", 1},
		{"LF in a value", ResponseHeader{Headers: hdrs("X-B", "a\nb")}, "", ErrResponseFieldValue, "Headers", 0},
		{"CR in a value", ResponseHeader{Headers: hdrs("X-B", "a\rb")}, "", ErrResponseFieldValue, "Headers", 0},
		{"NUL in a value", ResponseHeader{Headers: hdrs("X-B", "a\x00b")}, "", ErrResponseFieldValue, "Headers", 0},
		{"DEL in a value", ResponseHeader{Headers: hdrs("X-B", "a\x7fb")}, "", ErrResponseFieldValue, "Headers", 0},
		{"control in a value", ResponseHeader{Headers: hdrs("X-B", "a\x1bb")}, "", ErrResponseFieldValue, "Headers", 0},
		{"leading space", ResponseHeader{Headers: hdrs("X-B", " a")}, "", ErrResponseFieldValue, "Headers", 0},
		{"trailing tab", ResponseHeader{Headers: hdrs("X-B", "a\t")}, "", ErrResponseFieldValue, "Headers", 0},
		{"CRLF in ContentType", ResponseHeader{ContentType: "text/html\r\n\r\n<script>"}, "", ErrResponseFieldValue, "ContentType", -1},
		{"LF in Server", ResponseHeader{Server: "x\nX-Evil: 1"}, "", ErrResponseFieldValue, "Server", -1},
		{"CRLF in date", ResponseHeader{}, respDate + "\r\nX: y", ErrResponseFieldValue, "date", -1},
		{"empty name", ResponseHeader{Headers: hdrs("", "v")}, "", ErrResponseFieldName, "Headers", 0},
		{"space in name", ResponseHeader{Headers: hdrs("X B", "v")}, "", ErrResponseFieldName, "Headers", 0},
		{"colon in name", ResponseHeader{Headers: hdrs("X:B", "v")}, "", ErrResponseFieldName, "Headers", 0},
		{"CRLF in name", ResponseHeader{Headers: hdrs("X\r\nEvil", "v")}, "", ErrResponseFieldName, "Headers", 0},
		{"name with space before colon", ResponseHeader{Headers: hdrs("X ", "v")}, "", ErrResponseFieldName, "Headers", 0},
		{"non-ASCII name", ResponseHeader{Headers: hdrs("X-\xc3\xa9", "v")}, "", ErrResponseFieldName, "Headers", 0},
		// Framing decided by the struct's fields.
		{"Content-Length", ResponseHeader{Headers: hdrs("Content-Length", "5")}, "", ErrResponseFraming, "Headers", 0},
		{"content-length on 204", ResponseHeader{Status: 204, Headers: hdrs("content-length", "0")}, "", ErrResponseFraming, "Headers", 0},
		{"Transfer-Encoding", ResponseHeader{ContentLength: -1, Headers: hdrs("X", "y", "TRANSFER-ENCODING", "chunked")}, "", ErrResponseFraming, "Headers", 1},
		{"Transfer-Encoding on 1xx", ResponseHeader{Status: 100, Headers: hdrs("Transfer-Encoding", "gzip")}, "", ErrResponseFraming, "Headers", 0},
		{"Connection close", ResponseHeader{Headers: hdrs("Connection", "close")}, "", ErrResponseFraming, "Headers", 0},
		{"Connection listing close", ResponseHeader{Headers: hdrs("connection", "keep-alive ,\tClose")}, "", ErrResponseFraming, "Headers", 0},
		{"Connection with Close", ResponseHeader{Close: true, Headers: hdrs("Connection", "keep-alive")}, "", ErrResponseFraming, "Headers", 0},
		{"Date when written", ResponseHeader{Headers: hdrs("Date", respDate)}, respDate, ErrResponseFraming, "Headers", 0},
		{"Server when set", ResponseHeader{Server: "a", Headers: hdrs("SERVER", "b")}, "", ErrResponseFraming, "Headers", 0},
		{"Content-Type when set", ResponseHeader{ContentType: "a/b", Headers: hdrs("content-type", "c/d")}, "", ErrResponseFraming, "Headers", 0},
		{"Trailer announcing Content-Length", ResponseHeader{ContentLength: -1, Headers: hdrs("Trailer", "X-Sum, Content-Length")}, "", ErrResponseFraming, "Headers", 0},
		{"Trailer not a list", ResponseHeader{ContentLength: -1, Headers: hdrs("Trailer", "X-Sum X-Count")}, "", ErrResponseFieldValue, "Headers", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("prefix")
			got, err := AppendResponseHeader(dst, &tc.h, []byte(tc.date))
			assert.Equal(t, "prefix", string(got), "wrote %q on an error", got)
			var re *codec.FieldError
			require.ErrorIs(t, err, tc.kind, "error %v, want a *codec.FieldError of %v", err, tc.kind)
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tc.field, re.Field, "field at fault")
			assert.Equal(t, tc.index, re.Index, "index of the field at fault")
			s := StatusOf(err)
			assert.Equal(t, 500, s, "StatusOf = %d, want 500", s)
		})
	}
}

// TestCheckList checks the Connection and Trailer list scans.
func TestCheckList(t *testing.T) {
	for _, tc := range []struct {
		v       string
		trailer bool
		want    *Violation
	}{
		{"close", false, ErrResponseFraming},
		{"Close", false, ErrResponseFraming},
		{"CLOSE", false, ErrResponseFraming},
		{"keep-alive, close", false, ErrResponseFraming},
		{"close,upgrade", false, ErrResponseFraming},
		{" ,\t close\t,", false, ErrResponseFraming},
		{"", false, nil},
		{"keep-alive", false, nil},
		{"closed", false, nil},
		{"clos", false, nil},
		{"upgrade, xclose", false, nil},
		{",", false, nil},
		{"Upgrade, HTTP2-Settings", false, nil},
		{"x close", false, ErrResponseFieldValue},
		{"foo;close", false, ErrResponseFieldValue},
		{"a, b c", false, ErrResponseFieldValue},
		{`"close"`, false, ErrResponseFieldValue},
		{"X-Checksum, Server-Timing", true, nil},
		{"close", true, nil},
		{"X-A, Content-Length", true, ErrResponseFraming},
		{"transfer-encoding", true, ErrResponseFraming},
		{"Trailer", true, ErrResponseFraming},
		{"X, connection", true, ErrResponseFraming},
		{"X Y", true, ErrResponseFieldValue},
	} {
		got := checkList([]byte(tc.v), tc.trailer)
		assert.Same(t, tc.want, got, "checkList(%q, %v) = %v, want %v", tc.v, tc.trailer, got, tc.want)
	}
}

// readResponse reads msg back with net/http, body and trailers included,
// and checks that nothing follows.
func readResponse(t testing.TB, msg []byte, method string) (*http.Response, []byte) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(msg))
	resp, err := http.ReadResponse(r, &http.Request{Method: method})
	require.NoError(t, err, "net/http cannot read %q", msg)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "net/http cannot read the body of %q", msg)
	n := r.Buffered()
	require.LessOrEqual(t, n, 0, "%d bytes after the response in %q", n, msg)
	return resp, body
}

// TestResponseNetHTTP writes responses with bodies and reads them back
// with net/http: status, fields, body and trailers.
func TestResponseNetHTTP(t *testing.T) {
	body := []byte("Hello, World!")
	for _, tc := range []struct {
		name     string
		h        ResponseHeader
		method   string
		trailers []Header
		wantBody string
	}{
		{"plaintext", ResponseHeader{ContentType: "text/plain", Server: "netkit", ContentLength: 13}, "GET", nil, "Hello, World!"},
		{"close", ResponseHeader{Status: 503, Close: true, ContentLength: 13, Headers: hdrs("Retry-After", "5")}, "GET", nil, "Hello, World!"},
		{"chunked", ResponseHeader{ContentLength: -1, Headers: hdrs("Trailer", "X-Checksum, X-Count")}, "GET",
			hdrs("X-Checksum", "abc", "X-Count", "2"), "Hello, World!Hello, World!"},
		{"chunked no trailers", ResponseHeader{Status: 206, ContentLength: -1, ContentType: "application/octet-stream"}, "GET", nil, "Hello, World!Hello, World!"},
		{"head", ResponseHeader{ContentLength: 13, ContentType: "text/plain"}, "HEAD", nil, ""},
		{"204", ResponseHeader{Status: 204, ContentLength: 13}, "GET", nil, ""},
		{"304", ResponseHeader{Status: 304, ContentLength: -1, Headers: hdrs("ETag", `W/"1"`)}, "GET", nil, ""},
		{"repeated fields", ResponseHeader{ContentLength: 0, Headers: hdrs("Set-Cookie", "a=1", "set-cookie", "b=2", "Vary", "Accept", "X-Tab", "a\tb")}, "GET", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := AppendResponseHeader(nil, &tc.h, []byte(respDate))
			require.NoError(t, err)
			switch {
			case tc.wantBody == "":
			case tc.h.ContentLength < 0:
				msg = AppendChunk(msg, body)
				msg = AppendChunk(msg, nil)
				msg = AppendChunk(msg, body)
				msg, err = AppendLastChunk(msg, tc.trailers)
				require.NoError(t, err)
			default:
				msg = append(msg, body...)
			}
			resp, got := readResponse(t, msg, tc.method)
			checkReadBack(t, resp, &tc.h, respDate)
			assert.Equal(t, tc.wantBody, string(got), "body %q, want %q", got, tc.wantBody)
			wantTrailer := http.Header{}
			for _, f := range tc.trailers {
				wantTrailer.Add(string(f.Name), string(f.Value))
			}
			if len(resp.Trailer) > 0 || len(wantTrailer) > 0 {
				assert.Equal(t, wantTrailer, resp.Trailer, "trailers %v, want %v", resp.Trailer, wantTrailer)
			}
		})
	}
}

// checkReadBack compares what net/http read with what h asked for.
func checkReadBack(t testing.TB, resp *http.Response, h *ResponseHeader, date string) {
	t.Helper()
	status := h.Status
	if status == 0 {
		status = 200
	}
	assert.Equal(t, status, resp.StatusCode, "status %d, want %d", resp.StatusCode, status)
	final := status >= 200
	want := http.Header{}
	add := func(name, value string) {
		want[http.CanonicalHeaderKey(name)] = append(want[http.CanonicalHeaderKey(name)], value)
	}
	if final {
		if date != "" {
			add("Date", date)
		}
		if h.Server != "" {
			add("Server", h.Server)
		}
		if h.ContentType != "" {
			add("Content-Type", h.ContentType)
		}
		// net/http drops "Connection: close" and sets resp.Close.
		switch {
		case status == 204 || status == 304:
		case h.ContentLength < 0:
			assert.Equal(t, int64(-1), resp.ContentLength, "chunked: no length")
			assert.Equal(t, []string{"chunked"}, resp.TransferEncoding)
		default:
			add("Content-Length", strconv.FormatInt(h.ContentLength, 10))
			assert.Equal(t, h.ContentLength, resp.ContentLength, "ContentLength %d, want %d", resp.ContentLength, h.ContentLength)
		}
		assert.Equal(t, h.Close, resp.Close, "Close %v, want %v", resp.Close, h.Close)
	}
	for _, f := range h.Headers {
		chunked := final && status != 204 && status != 304 && h.ContentLength < 0
		if strings.EqualFold(string(f.Name), "Trailer") && chunked {
			continue // net/http moves it to resp.Trailer's keys (of a chunked body only)
		}
		add(string(f.Name), string(f.Value))
	}
	assert.Equal(t, want, resp.Header, "fields\n%v\nwant\n%v", resp.Header, want)
}

func TestAppendChunk(t *testing.T) {
	for _, tc := range []struct {
		p, want string
	}{
		{"", ""},
		{"a", "1\r\na\r\n"},
		{"Hello, World!", "d\r\nHello, World!\r\n"},
		{strings.Repeat("x", 16), "10\r\n" + strings.Repeat("x", 16) + "\r\n"},
		{strings.Repeat("y", 4096), "1000\r\n" + strings.Repeat("y", 4096) + "\r\n"},
		{strings.Repeat("z", 0xabcde), "abcde\r\n" + strings.Repeat("z", 0xabcde) + "\r\n"},
	} {
		got := string(AppendChunk([]byte("p"), []byte(tc.p)))
		assert.Equal(t, "p"+tc.want, got, "AppendChunk(%d bytes) = %.40q…, want %.40q…", len(tc.p), got, "p"+tc.want)
	}
}

func TestAppendLastChunk(t *testing.T) {
	for _, tc := range []struct {
		name     string
		trailers []Header
		want     string
		kind     error
		index    int
	}{
		{"none", nil, "0\r\n\r\n", nil, 0},
		{"two", hdrs("X-Checksum", "sha256=abc", "Server-Timing", "db;dur=53"), "0\r\nX-Checksum: sha256=abc\r\nServer-Timing: db;dur=53\r\n\r\n", nil, 0},
		{"empty value", hdrs("X-E", ""), "0\r\nX-E: \r\n\r\n", nil, 0},
		{"CRLF in a value", hdrs("X-A", "1", "X-B", "v\r\n\r\nHTTP/1.1 200 OK"), "", ErrResponseFieldValue, 1},
		{"bad name", hdrs("X A", "1"), "", ErrResponseFieldName, 0},
		{"Content-Length", hdrs("content-length", "1"), "", ErrResponseFraming, 0},
		{"Transfer-Encoding", hdrs("Transfer-Encoding", "chunked"), "", ErrResponseFraming, 0},
		{"Trailer", hdrs("X", "1", "TRAILER", "X"), "", ErrResponseFraming, 1},
		{"Connection", hdrs("Connection", "close"), "", ErrResponseFraming, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendLastChunk([]byte("p"), tc.trailers)
			if tc.kind == nil {
				assert.NoError(t, err)
				assert.Equal(t, "p"+tc.want, string(got))
				return
			}
			var re *codec.FieldError
			assert.Equal(t, "p", string(got), "nothing written")
			assert.ErrorIs(t, err, tc.kind)
			if assert.ErrorAs(t, err, &re) {
				assert.Equal(t, "trailers", re.Field)
				assert.Equal(t, tc.index, re.Index)
			}
		})
	}
}

func TestFieldErrorMessage(t *testing.T) {
	_, err := AppendResponseHeader(nil, &ResponseHeader{Headers: hdrs("A", "1", "B", "\n")}, nil)
	want := "http1: response field value with a control character (CR, LF, NUL…) or leading or trailing whitespace (RFC 9110 §5.5): Headers[1]"
	assert.EqualError(t, err, want)
	_, err = AppendResponseHeader(nil, &ResponseHeader{Status: 42}, nil)
	assert.EqualError(t, err, "http1: status code outside 100–999 (RFC 9112 §4): Status")
}

// TestResponseNoAllocs checks the header and chunk functions allocate
// nothing when dst has room.
func TestResponseNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the race detector allocates")
	h := &ResponseHeader{ContentLength: 13, ContentType: "text/plain", Server: "netkit", Headers: hdrs("X-Request-Id", "42", "Connection", "keep-alive")}
	date := []byte(respDate)
	p := []byte("Hello, World!")
	tr := hdrs("X-Checksum", "abc")
	dst := make([]byte, 0, 512)
	for name, f := range map[string]func(){
		"AppendResponseHeader": func() {
			var err error
			dst, err = AppendResponseHeader(dst[:0], h, date)
			require.NoError(t, err)
		},
		"AppendChunk": func() { dst = AppendChunk(dst[:0], p) },
		"AppendLastChunk": func() {
			var err error
			dst, err = AppendLastChunk(dst[:0], tr)
			require.NoError(t, err)
		},
	} {
		n := testing.AllocsPerRun(100, f)
		assert.Equal(t, float64(0), n, "%s: %v allocations, want 0", name, n)
	}
}
