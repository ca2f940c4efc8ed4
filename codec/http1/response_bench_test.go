package http1

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"testing"
	"time"
)

// benchPlaintext is the head of the TechEmpower plaintext response: 200,
// text/plain, a 13-byte body, Date and Server.
var benchPlaintext = ResponseHeader{ContentLength: 13, ContentType: "text/plain", Server: "netkit"}

// nethttpHead writes the plaintext head as net/http's server does for
// it (chunkWriter.writeHeader): the status line as a string, the Date
// formatted from time.Now for each response (net/http uses its own
// appendTime, close in cost to time.AppendFormat, used here), the
// Content-Length with strconv.AppendInt, then the handler's Header map
// through Header.Write (which sorts the keys and escapes the values),
// into a bufio.Writer. The map is built once, not per request as the
// server does, which flatters net/http.
type nethttpHead struct {
	bw   *bufio.Writer
	hdr  http.Header
	date [29]byte
	num  [20]byte
}

func newNethttpHead(w io.Writer) *nethttpHead {
	return &nethttpHead{
		bw:  bufio.NewWriterSize(w, 4096),
		hdr: http.Header{"Content-Type": {"text/plain"}, "Server": {"netkit"}},
	}
}

func (n *nethttpHead) write(length int64) {
	n.bw.WriteString("HTTP/1.1 200 OK\r\n")
	n.bw.WriteString("Date: ")
	n.bw.Write(time.Now().UTC().AppendFormat(n.date[:0], http.TimeFormat))
	n.bw.WriteString("\r\nContent-Length: ")
	n.bw.Write(strconv.AppendInt(n.num[:0], length, 10))
	n.bw.WriteString("\r\n")
	n.hdr.Write(n.bw)
	n.bw.WriteString("\r\n")
}

// BenchmarkResponseHeader appends the plaintext head. date=cached is how
// netkit's server runs (a DateCache updated by the loop's timer);
// date=now reads the clock per response, as net/http does.
func BenchmarkResponseHeader(b *testing.B) {
	var dates DateCache
	dates.Update(time.Now())
	dst := make([]byte, 0, 512)
	head, _ := AppendResponseHeader(nil, &benchPlaintext, dates.AppendCached(nil))
	b.Run("date=cached/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(head)))
		var d [29]byte
		for b.Loop() {
			var err error
			dst, err = AppendResponseHeader(dst[:0], &benchPlaintext, dates.AppendCached(d[:0]))
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("date=now/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(head)))
		var d [29]byte
		for b.Loop() {
			var err error
			dst, err = AppendResponseHeader(dst[:0], &benchPlaintext, dates.Append(d[:0], time.Now()))
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("date=now/impl=nethttp", func(b *testing.B) {
		n := newNethttpHead(io.Discard)
		b.ReportAllocs()
		b.SetBytes(int64(len(head)))
		for b.Loop() {
			n.write(13)
		}
	})
}

// BenchmarkPlaintext writes whole plaintext responses, head and body, as
// a server does per request: pipeline=N responses to N pipelined
// requests, then the buffers handed over and released as the event loop
// does once it has written them. The reference writes the same bytes the
// net/http way (nethttpHead) into a bufio.Writer flushed to io.Discard.
func BenchmarkPlaintext(b *testing.B) {
	hello := []byte("Hello, World!")
	var dates DateCache
	dates.Update(time.Now())
	resp, _ := AppendResponseHeader(nil, &benchPlaintext, dates.AppendCached(nil))
	for _, depth := range []int{1, 16} {
		size := int64(depth * (len(resp) + len(hello)))
		b.Run("pipeline="+strconv.Itoa(depth)+"/impl=netkit", func(b *testing.B) {
			w := &ResponseWriter{Dates: &dates}
			h := ResponseHeader{ContentType: "text/plain", Server: "netkit"}
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				for range depth {
					if err := w.Respond(&h, hello); err != nil {
						b.Fatal(err)
					}
				}
				for buf := w.Take(); buf != nil; buf = w.Take() {
					buf.Release()
				}
			}
		})
		b.Run("pipeline="+strconv.Itoa(depth)+"/impl=nethttp", func(b *testing.B) {
			n := newNethttpHead(io.Discard)
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				for range depth {
					n.write(int64(len(hello)))
					n.bw.Write(hello)
				}
				n.bw.Flush()
			}
		})
	}
}

// BenchmarkChunk writes one chunk of a chunked body. The reference is
// net/http's chunked writer (httputil.NewChunkedWriter, the one its
// server uses) into a bufio.Writer flushed to io.Discard.
func BenchmarkChunk(b *testing.B) {
	for _, size := range []int{13, 4096} {
		p := make([]byte, size)
		b.Run("size="+strconv.Itoa(size)+"/impl=netkit", func(b *testing.B) {
			dst := make([]byte, 0, size+32)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				dst = AppendChunk(dst[:0], p)
			}
		})
		b.Run("size="+strconv.Itoa(size)+"/impl=nethttp", func(b *testing.B) {
			bw := bufio.NewWriterSize(io.Discard, 8192)
			cw := httputil.NewChunkedWriter(bw)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				cw.Write(p)
				bw.Flush()
			}
		})
	}
}

// BenchmarkDateCache appends the Date value: cached without reading the
// clock, with time.Now in the same second, and formatted by time as
// net/http's callers do.
func BenchmarkDateCache(b *testing.B) {
	var c DateCache
	c.Update(time.Now())
	var d [29]byte
	b.Run("mode=cached/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.AppendCached(d[:0])
		}
	})
	b.Run("mode=now/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Append(d[:0], time.Now())
		}
	})
	b.Run("mode=now/impl=time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			time.Now().UTC().AppendFormat(d[:0], http.TimeFormat)
		}
	})
}
