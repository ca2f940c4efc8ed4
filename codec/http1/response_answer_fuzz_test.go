package http1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/stretchr/testify/require"
)

// answerModel is what a request's final response must read back as.
type answerModel struct {
	method  string
	http10  bool
	interim int    // 1xx responses before the final one
	status  int    // the final response's status
	body    string // its body as written (none is sent to HEAD)
	close   bool   // MustClose after it
}

// FuzzResponseWriterAnswers drives a ResponseWriter as a server does:
// for each request (GET or HEAD, HTTP/1.0 or 1.1, keep-alive or not) it
// calls Begin, then a random sequence of Respond, WriteHeader,
// WriteHeaderOnly, Write, WriteBuffer and End, then what httpserver does
// after the handler (End an open response; 500 when none is final). What
// the writer wrote is read back with net/http.ReadResponse, told each
// request's method: every request gets its 1xx responses (none for
// HTTP/1.0) and exactly one final response, in its place, with the body
// that was accepted (none for HEAD), and nothing is left over — whatever
// the calls. The pipeline stops after a response that closes the
// connection, as a server does.
//
// Input: per request a byte (method, version, keep-alive), then calls,
// one byte each (and a byte of argument), until a byte that starts the
// next request.
func FuzzResponseWriterAnswers(f *testing.F) {
	f.Add([]byte{0, 0, 1, 7, 1, 0, 1})
	f.Add([]byte{1, 0, 1, 0, 1, 7, 0, 1, 5, 2, 3, 4, 4})
	f.Add([]byte{2, 1, 0x41, 2, 9, 3, 4, 4, 0, 7, 3, 1, 0x40, 2, 5, 6})
	f.Add([]byte{4, 1, 0x11, 2, 3, 4, 0, 1, 9, 7, 6, 0, 0})
	f.Add([]byte{5, 1, 0x40, 2, 10, 3, 10, 6, 0, 0, 7, 0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &ResponseWriter{BufferSize: 64}
		defer w.Abort()
		statuses := []int{0, 200, 204, 304, 404, 103, 100, 500}
		lengths := []int64{-1, 0, 3, 10}
		var models []answerModel
		var kept []string // requests kept alive for the parse
		broken := false
		for len(data) > 0 && !broken {
			cfg := data[0]
			data = data[1:]
			var raw string
			m := answerModel{method: "GET"}
			switch {
			case cfg&1 != 0:
				m.method = "HEAD"
			}
			m.http10 = cfg&2 != 0
			switch {
			case m.http10 && cfg&4 != 0:
				raw = m.method + " / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
			case m.http10:
				raw = m.method + " / HTTP/1.0\r\n\r\n"
			case cfg&4 != 0:
				raw = m.method + " / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
			default:
				raw = m.method + " / HTTP/1.1\r\nHost: a\r\n\r\n"
			}
			kept = append(kept, raw)
			req := new(Request)
			_, err := decodeBytes([]byte(kept[len(kept)-1]), req)
			require.NoError(t, err)
			w.Begin(req)
			final := false
			var body []byte
			for len(data) >= 2 && data[0]&7 != 7 {
				op, arg := data[0]&7, data[1]
				data = data[2:]
				st := statuses[int(arg)%len(statuses)]
				interim := st >= 100 && st < 200
				p := bytes.Repeat([]byte{'a' + arg%26}, int(arg>>4))
				switch op {
				case 0:
					if w.Respond(&ResponseHeader{Status: st}, p[:len(p)&^1]) == nil {
						if interim {
							if !m.http10 {
								m.interim++
							}
						} else if !final {
							final, m.status, body = true, st, append(body[:0], p[:len(p)&^1]...)
						}
					}
				case 1:
					if w.WriteHeader(&ResponseHeader{Status: st, ContentLength: lengths[int(arg>>3)%len(lengths)]}) == nil {
						if interim {
							if !m.http10 {
								m.interim++
							}
						} else {
							final, m.status, body = true, st, body[:0]
						}
					}
				case 2:
					if n, err := w.Write(p); err == nil {
						body = append(body, p[:n]...)
					}
				case 3:
					b := buf.Get(len(p))
					b.Write(p)
					if w.WriteBuffer(b) == nil {
						body = append(body, p...)
					}
				case 4:
					if errors.Is(w.End(nil), ErrResponseBody) {
						broken = true // short: the server closes after it
					}
				case 5:
					if w.WriteHeaderOnly(&ResponseHeader{Status: st, ContentLength: lengths[int(arg>>3)%len(lengths)]}) == nil {
						if interim {
							if !m.http10 {
								m.interim++
							}
						} else {
							final, m.status, body = true, st, body[:0]
						}
					}
				case 6:
					if errors.Is(w.End([]Header{{Name: []byte("X-T"), Value: []byte{'0' + arg%10}}}), ErrResponseBody) {
						broken = true
					}
				}
			}
			if len(data) > 0 && data[0]&7 == 7 {
				data = data[1:]
			}
			// What httpserver does once the handler has returned.
			switch {
			case w.Open():
				if w.End(nil) != nil {
					broken = true // a short body: the server closes after it
				}
			case !w.Answered():
				require.NoError(t, w.Respond(&ResponseHeader{Status: 500}, []byte("none")), "the 500")
				final, m.status, body = true, 500, []byte("none")
			}
			require.True(t, final, "answered without a final response")
			require.False(t, broken && !w.MustClose(), "a broken response without MustClose: the next one would be read as its rest")
			if m.status == 0 {
				m.status = 200
			}
			if m.method == "HEAD" || m.status == 204 || m.status == 304 {
				body = nil
			}
			m.body = string(body)
			m.close = w.MustClose()
			if !broken {
				models = append(models, m)
			}
			if m.close {
				break
			}
		}
		var out []byte
		for b := w.Take(); b != nil; b = w.Take() {
			out = append(out, b.Bytes()...)
			b.Release()
		}
		r := bufio.NewReader(bytes.NewReader(out))
		for i, m := range models {
			for k := 0; ; k++ {
				resp, err := http.ReadResponse(r, &http.Request{Method: m.method})
				require.NoError(t, err, "response %d (%+v) in %q", i, m, out)
				got, err := io.ReadAll(resp.Body)
				require.NoError(t, err, "response %d (%+v): body in %q", i, m, out)
				if resp.StatusCode < 200 {
					require.Less(t, k, m.interim, "response %d (%+v): a 1xx too many in %q", i, m, out)
					continue
				}
				require.Equal(t, m.interim, k, "response %d: 1xx responses, in %q", i, out)
				require.Equal(t, m.status, resp.StatusCode, "response %d: status, in %q", i, out)
				require.Equal(t, m.body, string(got), "response %d: body, in %q", i, out)
				require.Equal(t, m.close, resp.Close, "response %d: close, in %q", i, out)
				break
			}
		}
		if !broken {
			require.Zero(t, r.Buffered(), "bytes after the responses in %q", out)
		}
	})
}
