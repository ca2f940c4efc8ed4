package http1

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/httpreq"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// get returns a GET request with the given header lines.
func get(lines ...string) string {
	return "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Join(lines, "") + "\r\n"
}

// decodeBytes is DecodeBytes of the zero Decoder: the default limits and
// rules.
func decodeBytes(p []byte, req *Request) (int, error) {
	var d Decoder
	return d.DecodeBytes(p, req)
}

// post returns a POST request with the given header lines and body.
func post(body string, lines ...string) string {
	return "POST / HTTP/1.1\r\nHost: a\r\n" + strings.Join(lines, "") + "\r\n" + body
}

type refusal struct {
	name string
	in   string
	dec  Decoder
	kind *Violation
}

func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var req Request
			n, err := tc.dec.DecodeBytes([]byte(tc.in), &req)
			require.ErrorIs(t, err, tc.kind, "Parse(%q) = %d, %v; want %v", tc.in, n, err, tc.kind)
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "error %v: not a SyntaxError with an offset in the input", err)
			require.GreaterOrEqual(t, se.Offset, 0, "error %v: not a SyntaxError with an offset in the input", err)
			require.LessOrEqual(t, se.Offset, len(tc.in), "error %v: not a SyntaxError with an offset in the input", err)
			require.Equal(t, tc.kind.Status, StatusOf(err), "StatusOf = %d, want %d", StatusOf(err), tc.kind.Status)
			// Decode refuses it the same way, whole and byte by byte.
			for _, step := range []int{len(tc.in), 1} {
				d := tc.dec
				in := buf.NewComposite()
				var derr error
				for i := 0; i < len(tc.in); i += step {
					b := buf.Get(step)
					b.Write([]byte(tc.in[i:min(i+step, len(tc.in))]))
					in.Append(b)
					if derr = d.Decode(in, &req); derr != ErrShort && derr != ErrContinue {
						break
					}
				}
				in.Release()
				require.ErrorIs(t, derr, tc.kind, "Decode (reads of %d) = %v; want %v", step, derr, tc.kind)
			}
		})
	}
}

// TestSmuggling has one case per framing rule that keeps two parsers
// (a proxy and a server) from disagreeing on where a request ends; each must be refused with its
// violation and status.
func TestSmuggling(t *testing.T) {
	big := strings.Repeat("a", 100)
	checkRefusals(t, []refusal{
		{"CL+TE/RFC9112-6.3", post("0\r\n\r\n", "Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrLengthAndChunked},
		{"TE+CL/RFC9112-6.3", post("0\r\n\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 5\r\n"), Decoder{}, ErrLengthAndChunked},
		{"differing-CL/RFC9112-6.3", post("abcde", "Content-Length: 5\r\n", "Content-Length: 4\r\n"), Decoder{}, ErrDuplicateContentLength},
		{"TE-not-final-chunked/RFC9112-6.3", post("0\r\n\r\n", "Transfer-Encoding: chunked, gzip\r\n"), Decoder{}, ErrTransferEncoding},
		{"TE-chunked-twice/RFC9112-6.1", post("0\r\n\r\n", "Transfer-Encoding: chunked, chunked\r\n"), Decoder{}, ErrTransferEncoding},
		{"TE-chunked-twice-two-fields/RFC9112-6.1", post("0\r\n\r\n", "Transfer-Encoding: chunked\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrTransferEncoding},
		{"TE-unknown-coding/RFC9112-6.1", post("0\r\n\r\n", "Transfer-Encoding: gzip, chunked\r\n"), Decoder{}, ErrUnsupportedCoding},
		{"TE-chunked-identity/RFC9112-6.1", post("0\r\n\r\n", "Transfer-Encoding: chunked, identity\r\n"), Decoder{}, ErrTransferEncoding},
		{"TE-identity/RFC9112-6.3", post("", "Transfer-Encoding: identity\r\n"), Decoder{}, ErrTransferEncoding},
		{"TE-in-HTTP/1.0/RFC9112-6.1", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Decoder{}, ErrTransferEncoding},
		{"TE-chunked-with-params/RFC9112-7", post("0\r\n\r\n", "Transfer-Encoding: chunked;q=1\r\n"), Decoder{}, ErrTransferEncoding},
		{"obs-fold/RFC9112-5.2", get("X-A: 1\r\n", " 2\r\n"), Decoder{}, ErrObsFold},
		{"obs-fold-tab/RFC9112-5.2", get("X-A: 1\r\n", "\tTransfer-Encoding: chunked\r\n"), Decoder{}, ErrObsFold},
		{"space-before-colon/RFC9112-5.1", get("Transfer-Encoding : chunked\r\n"), Decoder{}, ErrSpaceBeforeColon},
		{"tab-before-colon/RFC9112-5.1", get("Content-Length\t: 0\r\n"), Decoder{}, ErrSpaceBeforeColon},
		{"invalid-token-char/RFC9110-5.1", get("X(A): 1\r\n"), Decoder{}, ErrHeaderName},
		{"empty-name/RFC9110-5.1", get(": 1\r\n"), Decoder{}, ErrHeaderName},
		{"value-NUL/RFC9110-5.5", get("X-A: a\x00b\r\n"), Decoder{}, ErrHeaderValue},
		{"value-CR-alone/RFC9110-5.5", get("X-A: a\rb\r\n"), Decoder{}, ErrHeaderValue},
		{"value-DEL/RFC9110-5.5", get("X-A: a\x7fb\r\n"), Decoder{}, ErrHeaderValue},
		{"bare-LF-header/RFC9112-2.2", get("X-A: 1\n"), Decoder{}, ErrBareLF},
		{"bare-LF-request-line/RFC9112-2.2", "GET / HTTP/1.1\nHost: a\r\n\r\n", Decoder{}, ErrBareLF},
		{"bare-LF-chunk/RFC9112-2.2", post("1\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrBareLF},
		{"request-line-limit/RFC9112-3", "GET /" + big + " HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{MaxRequestLine: 64}, ErrURITooLong},
		{"header-section-limit/RFC6585-5", get("X-A: " + big + "\r\n"), Decoder{MaxHeaderBytes: 64}, ErrHeaderTooLarge},
		{"header-count-limit/RFC6585-5", get("X-A: 1\r\n", "X-B: 2\r\n"), Decoder{MaxHeaders: 2}, ErrTooManyHeaders},
		{"chunk-size-overflow/RFC9112-7.1", post("1000000000000000\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSizeOverflow},
		{"chunk-size-16-digits/RFC9112-7.1", post("ffffffffffffffff\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSizeOverflow},
		{"CL-plus-sign/RFC9110-8.6", post("a", "Content-Length: +1\r\n"), Decoder{}, ErrContentLength},
		{"CL-minus-sign/RFC9110-8.6", post("a", "Content-Length: -1\r\n"), Decoder{}, ErrContentLength},
		{"CL-inner-space/RFC9110-8.6", post("a", "Content-Length: 1 1\r\n"), Decoder{}, ErrContentLength},
		{"CL-list/RFC9110-8.6", post("a", "Content-Length: 1,1\r\n"), Decoder{}, ErrContentLength},
		{"CL-hex/RFC9110-8.6", post("a", "Content-Length: 0x1\r\n"), Decoder{}, ErrContentLength},
		{"CL-empty/RFC9110-8.6", post("a", "Content-Length: \r\n"), Decoder{}, ErrContentLength},
		{"CL-overflow/RFC9110-8.6", post("a", "Content-Length: 9223372036854775808\r\n"), Decoder{}, ErrContentLength},
		{"chunk-size-garbage/RFC9112-7.1", post("1x\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSize},
		{"chunk-size-sign/RFC9112-7.1", post("+1\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSize},
		{"chunk-data-longer/RFC9112-7.1", post("1\r\nxy\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkData},
		{"two-hosts/RFC9112-3.2", get("Host: b\r\n"), Decoder{}, ErrHost},
	})
	// Bare LF is accepted with the option, everywhere a line ends.
	in := "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n1\nx\n0\nT: 1\n\n"
	var req Request
	n, err := (&Decoder{AllowBareLF: true}).DecodeBytes([]byte(in), &req)
	require.NoError(t, err, "bare LF with AllowBareLF")
	require.Equal(t, len(in), n, "bare LF with AllowBareLF")
	require.Equal(t, "x", string(req.Body), "bare LF with AllowBareLF")
	_, err = decodeBytes([]byte(in), &req)
	require.ErrorIs(t, err, ErrBareLF, "bare LF by default")
}

// TestRules covers the rules that are not about framing, one case each.
func TestRules(t *testing.T) {
	checkRefusals(t, []refusal{
		{"no-method/RFC9112-3", " / HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrMethod},
		{"method-bad-char/RFC9110-9.1", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrMethod},
		{"two-spaces/RFC9112-3", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"no-version/RFC9112-3", "GET /\r\nHost: a\r\n\r\n", Decoder{}, ErrRequestLine},
		{"empty-line-first/RFC9112-2.2", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrRequestLine},
		{"target-space/RFC9112-3.2", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrVersion},
		{"target-non-ascii/RFC9112-3.2", "GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"target-fragment/RFC9112-3.2", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"target-CTL/RFC9112-3.2", "GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"target-relative/RFC9112-3.2", "GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"asterisk-not-OPTIONS/RFC9112-3.2.4", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"CONNECT-origin-form/RFC9112-3.2.3", "CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"CONNECT-no-port/RFC9112-3.2.3", "CONNECT a.example HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"version-lowercase/RFC9112-2.3", "GET / http/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrVersion},
		{"version-two-digits/RFC9112-2.3", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", Decoder{}, ErrVersion},
		{"version-2/RFC9110-15.6.6", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", Decoder{}, ErrVersionNotSupported},
		{"version-0.9/RFC9110-15.6.6", "GET / HTTP/0.9\r\nHost: a\r\n\r\n", Decoder{}, ErrVersionNotSupported},
		{"no-host-1.1/RFC9112-3.2", "GET / HTTP/1.1\r\n\r\n", Decoder{}, ErrHost},
		{"host-bad-char/RFC9112-3.2", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", Decoder{}, ErrHost},
		{"two-hosts-1.0/RFC9112-3.2", "GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", Decoder{}, ErrHost},
		{"expect-other/RFC9110-10.1.1", get("Expect: 200-ok\r\n"), Decoder{}, ErrExpect},
		{"CR-not-LF-after-line/RFC9112-2.2", get("X-A: 1\r\r\n"), Decoder{}, ErrHeaderValue},
		{"body-too-large-CL/RFC9110-15.5.14", post("", "Content-Length: 11\r\n"), Decoder{MaxBodySize: 10}, ErrBodyTooLarge},
		{"body-too-large-chunked/RFC9110-15.5.14", post("8\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{MaxBodySize: 10}, ErrBodyTooLarge},
		{"chunk-ext-no-name/RFC9112-7.1.1", post("1;\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkExtension},

		{"chunk-ext-space-before-semicolon/RFC9112-7.1.1", post("1 ;a\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSize},
		{"te-empty-element/RFC9110-5.6.1", post("2\r\nab\r\n0\r\n\r\n", "Transfer-Encoding: ,chunked\r\n"), Decoder{}, ErrTransferEncoding},
		{"te-trailing-empty-element/RFC9110-5.6.1", post("2\r\nab\r\n0\r\n\r\n", "Transfer-Encoding: chunked,\r\n"), Decoder{}, ErrTransferEncoding},
		{"target-bad-escape/RFC3986-2.1", "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"target-short-escape/RFC3986-2.1", "GET /a%2 HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"absolute-bad-port/RFC3986-3.2.3", "GET http://a:1:/ HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"absolute-unclosed-ip-literal/RFC3986-3.2.2", "GET http://[ HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"absolute-empty-ip-literal/RFC3986-3.2.2", "GET http://[]/ HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"absolute-empty-host/RFC9110-4.2.1", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"absolute-userinfo/RFC9110-4.2.4", "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, ErrTarget},
		{"chunk-ext-open-quote/RFC9112-7.1.1", post("1;a=\"b\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkExtension},
		{"chunk-ext-empty-value/RFC9112-7.1.1", post("1;a=\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkExtension},
		{"chunk-line-too-long/RFC9112-7.1.1", post("1;a="+strings.Repeat("b", maxChunkLine)+"\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkExtension},
		{"chunk-no-size/RFC9112-7.1", post(";a\r\nx\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSize},
		{"trailer-bad-name/RFC9112-7.1.2", post("0\r\nX(: 1\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrTrailer},
		{"trailer-obs-fold/RFC9112-7.1.2", post("0\r\nX: 1\r\n 2\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrTrailer},
		{"trailer-count/RFC6585-5", post("0\r\nX: 1\r\nY: 2\r\nZ: 3\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{MaxHeaders: 2}, ErrTooManyHeaders},
		{"trailer-size/RFC6585-5", post("0\r\nX: "+strings.Repeat("b", 64)+"\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{MaxTrailerBytes: 40}, ErrHeaderTooLarge},
		{"trailer-size-default/RFC6585-5", post("0\r\nX: "+strings.Repeat("b", DefaultMaxTrailerBytes)+"\r\n\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrHeaderTooLarge},
	})
}

// TestLimitsEarly checks that a limit is enforced before the end of what
// it bounds arrives: a request line, header section or body that will
// never end is refused as soon as it passes its limit.
func TestLimitsEarly(t *testing.T) {
	for _, tc := range []refusal{
		{"request-line", "GET /" + strings.Repeat("a", 100), Decoder{MaxRequestLine: 64}, ErrURITooLong},
		{"header-section", "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 100), Decoder{MaxHeaderBytes: 64}, ErrHeaderTooLarge},
		{"header-count", "GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\n", Decoder{MaxHeaders: 2}, ErrTooManyHeaders},
		{"body-CL", post("", "Content-Length: 100\r\n"), Decoder{MaxBodySize: 64}, ErrBodyTooLarge},
		{"body-chunks", post("20\r\n"+strings.Repeat("a", 32)+"\r\n20\r\n", "Transfer-Encoding: chunked\r\n"), Decoder{MaxBodySize: 64}, ErrBodyTooLarge},
		{"chunk-size", post("1234567890abcdef0", "Transfer-Encoding: chunked\r\n"), Decoder{}, ErrChunkSizeOverflow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req Request
			_, err := tc.dec.DecodeBytes([]byte(tc.in), &req)
			require.ErrorIs(t, err, tc.kind, "DecodeBytes = %v, want %v", err, tc.kind)
		})
	}
	// Just below the request-line limit, an unfinished line is short.
	var req Request
	_, err := (&Decoder{MaxRequestLine: 64}).DecodeBytes([]byte("GET /"+strings.Repeat("a", 58)), &req)
	require.Equal(t, ErrShort, err, "63 bytes of request line")
	_, err = (&Decoder{MaxRequestLine: 64}).DecodeBytes([]byte("GET /"+strings.Repeat("a", 59)), &req)
	require.ErrorIs(t, err, ErrURITooLong, "64 bytes of request line without its end")
	// A line of exactly the limit, CRLF included, is accepted.
	line := "GET /" + strings.Repeat("a", 64-len("GET / HTTP/1.1\r\n")) + " HTTP/1.1\r\n"
	_, err = (&Decoder{MaxRequestLine: 64}).DecodeBytes([]byte(line+"Host: a\r\n\r\n"), &req)
	require.NoError(t, err, "request line of %d bytes", len(line))
}

// TestAccepted checks what DecodeBytes fills for requests it accepts.
func TestAccepted(t *testing.T) {
	var req Request
	in := []byte(httpreq.GET10 + "next")
	n, err := decodeBytes(in, &req)
	require.NoError(t, err, "GET10: %d,", n)
	require.Equal(t, len(httpreq.GET10), n, "GET10: %d, %v", n, err)
	require.Equal(t, MethodGet, req.Method, "GET10: %+v", req)
	require.Equal(t, "GET", string(req.RawMethod), "GET10: %+v", req)
	require.Equal(t, "/static/app.js", string(req.Path), "GET10: %+v", req)
	require.Equal(t, "v=4f2c&lang=en", string(req.Query), "GET10: %+v", req)
	require.Equal(t, 1, req.Minor, "GET10: %+v", req)
	require.Equal(t, 10, len(req.Headers), "GET10: %+v", req)
	require.Equal(t, "www.example.com", string(req.Host), "GET10: %+v", req)
	require.True(t, req.KeepAlive, "GET10: %+v", req)
	require.Nil(t, req.Body, "GET10: %+v", req)
	require.Equal(t, int64(0), req.ContentLength, "GET10: %+v", req)
	got := string(req.Header("user-AGENT"))
	require.True(t, strings.HasPrefix(got, "Mozilla/5.0"), "Header(user-AGENT) = %q", got)
	require.Nil(t, req.Header("X-Absent"), "Header of an absent field is not nil")

	in = []byte(httpreq.ChunkedPOST)
	n, err = decodeBytes(in, &req)
	require.NoError(t, err, "ChunkedPOST: %d,", n)
	require.Equal(t, len(in), n, "ChunkedPOST: %d, %v", n, err)
	wantBody := `{"event":"click","id":123456789}{"event":"view","id":1234567890}{"event":"buy","id":12345678901}`
	require.True(t, req.Chunked, "ChunkedPOST: %+v body %q", req, req.Body)
	require.Equal(t, int64(-1), req.ContentLength, "ChunkedPOST: %+v body %q", req, req.Body)
	require.Equal(t, wantBody, string(req.Body), "ChunkedPOST: %+v body %q", req, req.Body)
	require.Equal(t, 0, len(req.Trailers), "ChunkedPOST: %+v body %q", req, req.Body)

	for _, tc := range []struct {
		in                             string
		dec                            Decoder
		minor                          int
		keep, upgrade, expect, chunked bool
		body                           string
		method                         Method
	}{
		{"GET / HTTP/1.0\r\n\r\n", Decoder{}, 0, false, false, false, false, "", MethodGet},
		{"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", Decoder{}, 0, true, false, false, false, "", MethodGet},
		{"GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, CLOSE\r\n\r\n", Decoder{}, 1, false, false, false, false, "", MethodGet},
		{"GET / HTTP/1.9\r\nHost: a\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodGet},
		{"GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", Decoder{}, 1, true, true, false, false, "", MethodGet},
		{"GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodGet},
		{"PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", Decoder{}, 1, true, false, true, false, "ab", MethodPut},
		{"GET / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n", Decoder{}, 0, false, false, false, false, "", MethodGet},
		{"PATCH / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n2\nab\n0\n\n", Decoder{AllowBareLF: true}, 1, true, false, false, true, "ab", MethodPatch},
		{"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3; a = \"x\\\"y\" ; b\r\nabc\r\n00\r\nX-T: 1\r\n\r\n", Decoder{}, 1, true, false, false, true, "abc", MethodPost},
		{"BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodOther},
		{"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodOptions},
		{"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodConnect},
		{"DELETE http://a.example/x?y=1 HTTP/1.1\r\nHost: a.example\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodDelete},
		{"HEAD / HTTP/1.1\r\nHost:\r\nX-Obs: caf\xc3\xa9\t!\r\n\r\n", Decoder{}, 1, true, false, false, false, "", MethodHead},
	} {
		n, err := tc.dec.DecodeBytes([]byte(tc.in), &req)
		if !assert.NoError(t, err, "%q", tc.in) || !assert.Equal(t, len(tc.in), n, "%q: length", tc.in) {
			continue
		}
		assert.Equal(t, tc.minor, req.Minor, "%q: Minor", tc.in)
		assert.Equal(t, tc.keep, req.KeepAlive, "%q: KeepAlive", tc.in)
		assert.Equal(t, tc.upgrade, req.Upgrade, "%q: Upgrade", tc.in)
		assert.Equal(t, tc.expect, req.Expect100, "%q: Expect100", tc.in)
		assert.Equal(t, tc.chunked, req.Chunked, "%q: Chunked", tc.in)
		assert.Equal(t, tc.body, string(req.Body), "%q: Body", tc.in)
		assert.Equal(t, tc.method, req.Method, "%q: Method", tc.in)
	}
	_, err = decodeBytes([]byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\nY:2 \r\n\r\n"), &req)
	require.NoError(t, err, "trailers")
	require.Len(t, req.Trailers, 2)
	require.Equal(t, "2", string(req.Trailers[1].Value), "trailer value without its whitespace")
	require.Nil(t, req.Body)
}

// TestChunkedShortLeavesInput checks that DecodeBytes writes nothing into p
// until the whole chunked body is in, nor when it refuses the request.
func TestChunkedShortLeavesInput(t *testing.T) {
	full := httpreq.ChunkedPOST
	for i := 0; i < len(full); i++ {
		p := []byte(full[:i])
		var req Request
		_, err := decodeBytes(p, &req)
		require.Equal(t, ErrShort, err, "prefix %d", i)
		require.Equal(t, full[:i], string(p), "prefix %d: input changed", i)
	}
	bad := strings.Replace(full, "0\r\n\r\n", "0\r\nX(: 1\r\n\r\n", 1)
	p := []byte(bad)
	var req Request
	_, err := decodeBytes(p, &req)
	require.ErrorIs(t, err, ErrTrailer, "bad trailer: %v, input changed: %v", err, string(p) != bad)
	require.Equal(t, bad, string(p), "bad trailer: %v, input changed: %v", err, string(p) != bad)
}

// TestPipelined parses three requests, one chunked, from one slice and
// from one composite.
func TestPipelined(t *testing.T) {
	reqs := []string{httpreq.GET10, httpreq.ChunkedPOST, post("abc", "Content-Length: 3\r\n")}
	all := strings.Join(reqs, "")
	p := []byte(all)
	var req Request
	for i, want := range reqs {
		n, err := decodeBytes(p, &req)
		require.NoError(t, err, "request %d: %d,", i, n)
		require.Equal(t, len(want), n, "request %d: %d, %v", i, n, err)
		p = p[n:]
	}
	d := new(Decoder)
	in := buf.NewComposite()
	defer in.Release()
	b := buf.Get(len(all))
	b.Write([]byte(all))
	in.Append(b)
	methods := []Method{MethodGet, MethodPost, MethodPost}
	bodies := []int{0, 96, 3}
	for i := range reqs {
		require.NoError(t, d.Decode(in, &req), "Decode %d", i)
		require.Equal(t, methods[i], req.Method, "Decode %d: %v body %d", i, req.Method, len(req.Body))
		require.Equal(t, bodies[i], len(req.Body), "Decode %d: %v body %d", i, req.Method, len(req.Body))
	}
	require.Equal(t, ErrShort, d.Decode(in, &req), "after the three")
	require.Zero(t, in.Len(), "bytes left after the three")
	req.Release()
}

// TestContinue follows a request that expects 100-continue: ErrContinue
// once when its head is in, ErrShort until its body is, then the request.
func TestContinue(t *testing.T) {
	for _, tc := range []struct{ head, body string }{
		{post("", "Expect: 100-continue\r\n", "Content-Length: 5\r\n"), "hello"},
		{post("", "Expect: 100-continue\r\n", "Transfer-Encoding: chunked\r\n"), "5\r\nhello\r\n0\r\n\r\n"},
	} {
		d := new(Decoder)
		in := buf.NewComposite()
		var req Request
		add := func(s string) {
			b := buf.Get(len(s))
			b.Write([]byte(s))
			in.Append(b)
		}
		add(tc.head[:10])
		require.Equal(t, ErrShort, d.Decode(in, &req), "partial head")
		add(tc.head[10:])
		require.Equal(t, ErrContinue, d.Decode(in, &req), "head")
		require.Equal(t, ErrShort, d.Decode(in, &req), "again")
		add(tc.body[:2])
		require.Equal(t, ErrShort, d.Decode(in, &req), "part of the body")
		add(tc.body[2:])
		err := d.Decode(in, &req)
		require.NoError(t, err, "whole %q", req.Body)
		require.Equal(t, "hello", string(req.Body), "whole: %v %q", err, req.Body)
		require.True(t, req.Expect100, "whole: %v %q", err, req.Body)
		req.Release()
		in.Release()
	}
	// The whole request in one read: no ErrContinue.
	d := new(Decoder)
	in := buf.NewComposite()
	s := post("hello", "Expect: 100-continue\r\n", "Content-Length: 5\r\n")
	b := buf.Get(len(s))
	b.Write([]byte(s))
	in.Append(b)
	var req Request
	require.NoError(t, d.Decode(in, &req))
	req.Release()
	in.Release()
}

// TestDripLinear checks that a head arriving a byte at a time is scanned
// once: each Decode looks at the new bytes only (the first call excepted).
func TestDripLinear(t *testing.T) {
	s := get(strings.Repeat("X-Long: "+strings.Repeat("v", 200)+"\r\n", 60))
	d := new(Decoder)
	in := buf.NewComposite()
	defer in.Release()
	var req Request
	for i := 0; i < len(s); i++ {
		b := buf.Get(1)
		b.WriteByte(s[i])
		in.Append(b)
		err := d.Decode(in, &req)
		if i < len(s)-1 {
			require.Equal(t, ErrShort, err, "byte %d", i)
		} else {
			require.NoError(t, err, "last byte")
		}
		if i < len(s)-1 {
			require.True(t, d.st.off == i+1 || d.st.line == i+1, "byte %d: scanned to %d", i, d.st.off)
		}
	}
	req.Release()
}

func TestAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var req Request
	get10 := []byte(httpreq.GET10)
	n := testing.AllocsPerRun(100, func() {
		if _, err := decodeBytes(get10, &req); err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, float64(0), n, "DecodeBytes of GET10 allocates")
	src := []byte(httpreq.ChunkedPOST)
	p := make([]byte, len(src))
	n = testing.AllocsPerRun(100, func() {
		copy(p, src)
		if _, err := decodeBytes(p, &req); err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, float64(0), n, "DecodeBytes of ChunkedPOST allocates")
	for _, split := range []int{0, 100, len(src) - 10} {
		d := new(Decoder)
		in := buf.NewComposite()
		n := testing.AllocsPerRun(100, func() {
			for _, part := range [][]byte{src[:split], src[split:]} {
				if len(part) > 0 {
					b := buf.Get(len(part))
					b.Write(part)
					in.Append(b)
					if err := d.Decode(in, &req); err != nil && err != ErrShort {
						t.Fatal(err)
					}
				}
			}
			if !bytes.HasPrefix(req.Body, []byte(`{"event"`)) {
				t.Fatal("no body")
			}
			req.Release()
		})
		assert.Equal(t, float64(0), n, "Decode split %d allocates %.1f times", split, n)
		in.Release()
	}
}

// TestExtremeLimits checks that limits out of range neither panic nor
// overflow: zero and negative ones mean the defaults, huge ones accept.
func TestExtremeLimits(t *testing.T) {
	in := post("abc", "Content-Length: 3\r\n")
	for _, d := range []*Decoder{
		{MaxRequestLine: -1, MaxHeaderBytes: -1, MaxHeaders: -1, MaxBodySize: -1},
		{},
		{MaxRequestLine: math.MaxInt, MaxHeaderBytes: math.MaxInt, MaxHeaders: math.MaxInt, MaxBodySize: math.MaxInt64},
	} {
		var req Request
		_, perr := d.DecodeBytes([]byte(in), &req)
		c := buf.NewComposite()
		b := buf.Get(len(in))
		b.Write([]byte(in))
		c.Append(b)
		derr := d.Decode(c, &req)
		req.Release()
		c.Release()
		require.NoError(t, perr, "%+v", d)
		require.NoError(t, derr, "%+v", d)
	}
	require.Equal(t, defaultCfg, (&Decoder{MaxRequestLine: -5, MaxBodySize: -1}).config(), "negative limits are the defaults")
	require.Equal(t, config{DefaultMaxRequestLine, DefaultMaxHeaderBytes, DefaultMaxHeaders, DefaultMaxBodySize, DefaultMaxTrailerBytes, false}, defaultCfg)
	huge := post("", "Content-Length: 9223372036854775807\r\n")
	d := &Decoder{MaxBodySize: math.MaxInt64}
	c := buf.NewComposite()
	defer c.Release()
	b := buf.Get(len(huge))
	b.Write([]byte(huge[:10]))
	c.Append(b)
	var req Request
	require.Equal(t, ErrShort, d.Decode(c, &req))
	b = buf.Get(len(huge))
	b.Write([]byte(huge[10:]))
	c.Append(b)
	err := d.Decode(c, &req)
	require.ErrorIs(t, err, ErrBodyTooLarge, "Content-Length over 2^62: %v", err)
}

// TestParseConcurrent parses with one Decoder from several goroutines:
// DecodeBytes keeps no state in it (run with -race).
func TestParseConcurrent(t *testing.T) {
	d := &Decoder{MaxHeaders: 20}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var req Request
			p := make([]byte, len(httpreq.ChunkedPOST))
			for i := 0; i < 200; i++ {
				copy(p, httpreq.ChunkedPOST)
				if _, err := d.DecodeBytes(p, &req); err != nil {
					done <- err
					return
				}
				if _, err := d.DecodeBytes([]byte(httpreq.GET10), &req); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		require.NoError(t, <-done)
	}
}

// TestAcceptedOddities: forms outside the strict grammar that net/http
// takes and that cannot change where a request ends, accepted on purpose.
func TestAcceptedOddities(t *testing.T) {
	cases := []struct{ in, body, query string }{
		// whitespace ending a chunk-size line, with no extension
		{in: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3 \t\r\nabc\r\n0\r\n\r\n", body: "abc"},
		// a bare '%' in the query, which net/url does not check
		{in: "GET /x?off=10% HTTP/1.1\r\nHost: a\r\n\r\n", query: "off=10%"},
		// an opaque absolute-form target, left as sent
		{in: "GET a:%zz HTTP/1.1\r\nHost: a\r\n\r\n"},
	}
	for _, tc := range cases {
		var req Request
		n, err := decodeBytes([]byte(tc.in), &req)
		assert.NoError(t, err, "%q", tc.in)
		assert.Equal(t, len(tc.in), n, "%q: length", tc.in)
		assert.Equal(t, tc.body, string(req.Body), "%q: body", tc.in)
		assert.Equal(t, tc.query, string(req.Query), "%q: query", tc.in)
	}
}

// TestChunkCounts de-chunks bodies of 0 to 20 chunks: up to 8 the data
// is moved from the spans the checking walk noted, beyond by a second walk.
func TestChunkCounts(t *testing.T) {
	for n := 0; n <= 20; n++ {
		var body, want strings.Builder
		for i := range n {
			d := strings.Repeat(string(rune('a'+i)), i+1)
			fmt.Fprintf(&body, "%x\r\n%s\r\n", len(d), d)
			want.WriteString(d)
		}
		body.WriteString("0\r\n\r\n")
		in := post(body.String(), "Transfer-Encoding: chunked\r\n")
		var req Request
		m, err := decodeBytes([]byte(in), &req)
		assert.NoError(t, err, "%d chunks", n)
		assert.Equal(t, len(in), m, "%d chunks: length", n)
		assert.Equal(t, want.String(), string(req.Body), "%d chunks: body", n)
	}
}
