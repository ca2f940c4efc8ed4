package httpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/netkit/netkit/codec/http1"
)

// An AdaptOption configures Adapt.
type AdaptOption func(*adapter)

// WithWorkers bounds the goroutines Adapt runs net/http handlers on: at
// most n handlers run at once, and the requests beyond wait in order.
// n ≤ 0 means the default, 64 per GOMAXPROCS and at least 256.
func WithWorkers(n int) AdaptOption {
	return func(a *adapter) { a.max = n }
}

// WithErrorLog sets where Adapt logs a handler's panic (net/http's
// Server.ErrorLog); nil means the log package's standard logger.
func WithErrorLog(l *log.Logger) AdaptOption {
	return func(a *adapter) { a.log = l }
}

// Adapt returns a Handler that serves h, any net/http Handler, from the
// event loops: each request is detached (see Detach) and h runs on a
// goroutine of a bounded pool (WithWorkers), so that an idle keep-alive
// connection costs no goroutine and a blocking handler blocks no loop.
// Routing comes with it: h may be an http.ServeMux, with its patterns
// (methods, wildcards, "{name...}") and Request.PathValue.
//
// h sees what net/http gives it: a Request with Method, URL, Proto,
// Header, Body (the whole body, read before h runs; with
// WithStreamedBodies a large one is read as it arrives), ContentLength,
// TransferEncoding, Close, Host, RemoteAddr, RequestURI, and a Context
// that is cancelled when the client goes away or when h returns; a
// ResponseWriter that follows net/http's header rules (Header changes
// after WriteHeader do not count; a missing Content-Type is sniffed from
// the first bytes; a body of at most 2048 bytes written by a handler that
// returns gets a Content-Length, a longer one or a flushed one is
// chunked; a handler's Date wins over the server's) and implements
// http.Flusher, whose Flush sends what is written at the client's pace.
// A handler's panic is logged and closes the connection after the
// responses before it (http.ErrAbortHandler silently), as net/http does.
// Not supported: http.Hijacker (use Upgrade), trailers, and 1xx responses
// other than those the server sends itself (100 Continue).
func Adapt(h http.Handler, opts ...AdaptOption) Handler {
	a := &adapter{h: h}
	for _, o := range opts {
		o(a)
	}
	if a.max <= 0 {
		a.max = max(256, 64*runtime.GOMAXPROCS(0))
	}
	a.cond = sync.NewCond(&a.mu)
	return a.serve
}

// adapter runs a net/http Handler on a bounded pool of goroutines.
type adapter struct {
	h   http.Handler
	max int
	log *log.Logger

	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []*exchange // waiting, in order, from jobs[next]
	next    int
	workers int // goroutines started
	idle    int // of them, waiting for a job
}

// serve, on the loop, turns the request into a net/http one, detaches it
// and queues it for a worker.
func (a *adapter) serve(w *http1.ResponseWriter, req *http1.Request) {
	e := &exchange{a: a}
	if err := e.build(w, req); err != nil {
		h := http1.ResponseHeader{Status: 400, Close: true, ContentType: "text/plain; charset=utf-8"}
		w.Respond(&h, []byte("400 Bad Request: "+err.Error()+"\n"))
		return
	}
	e.d = &e.detached
	detachInto(w, e.d)
	if req.BodyFollows { // WithStreamedBodies: the handler reads it as it comes
		e.req.Body = e.d.Body()
	}
	a.mu.Lock()
	a.jobs = append(a.jobs, e)
	if a.idle > 0 {
		a.cond.Signal()
	} else if a.workers < a.max {
		a.workers++
		go a.work()
	}
	a.mu.Unlock()
}

// work runs jobs until there is none for a while... forever: a worker
// waits on the condition when idle (a parked goroutine, a few KiB).
func (a *adapter) work() {
	for {
		a.mu.Lock()
		for a.next == len(a.jobs) {
			a.idle++
			a.cond.Wait()
			a.idle--
		}
		e := a.jobs[a.next]
		a.jobs[a.next] = nil
		a.next++
		if a.next == len(a.jobs) {
			a.jobs, a.next = a.jobs[:0], 0
		}
		a.mu.Unlock()
		e.run()
	}
}

// An exchange is one request through Adapt: the net/http request and the
// ResponseWriter h writes to.
type exchange struct {
	a        *adapter
	d        *Detached // &detached
	detached Detached
	req      *http.Request
	cancel   context.CancelFunc // the request's context's

	header      http.Header
	status      int
	wroteHeader bool // the status is decided (WriteHeader, or a first Write)
	sent        sent // the header as it was at WriteHeader
	headOut     bool // the head is written to the Detached
	buf         []byte
	declared    int64 // the handler's Content-Length, or -1
	written     int64 // body bytes written
	head        bool  // a HEAD request

	// bufArr holds buf (body bytes before the head goes out, up to
	// bufferBeforeChunking) while they are few.
	bufArr [64]byte
}

// sent is the response header as the handler had it at WriteHeader,
// already in http1's terms: later changes to the map do not count.
type sent struct {
	fields      []http1.Header // sorted by name, values in order
	contentType string
	hasType     bool // a Content-Type was set (even to nothing)
	encoded     bool // a Content-Encoding was set: no sniffing
	close       bool // Connection: close
	ownDate     bool // the handler set Date
}

// bufferBeforeChunking is how much of a body net/http holds before it
// decides between Content-Length and chunks: a handler that returns
// within it gets a Content-Length.
const bufferBeforeChunking = 2048

// build makes the net/http request from req, on the loop: everything is
// copied, since req's slices die with the Handler call.
func (e *exchange) build(w *http1.ResponseWriter, req *http1.Request) error {
	// The target, the host, and the header's names and values, copied
	// into one string; the one-value slices into one array: three
	// allocations for all of it.
	size := len(req.Target) + len(req.Host)
	for _, f := range req.Headers {
		size += len(f.Name) + len(f.Value)
	}
	var sb strings.Builder
	sb.Grow(size)
	sb.Write(req.Target)
	sb.Write(req.Host)
	for _, f := range req.Headers {
		sb.Write(f.Name)
		sb.Write(f.Value)
	}
	all := sb.String()
	next := func(n int) string {
		s := all[:n]
		all = all[n:]
		return s
	}
	target, host := next(len(req.Target)), next(len(req.Host))
	proto := "HTTP/1.1"
	if req.Minor == 0 {
		proto = "HTTP/1.0"
	}
	r := http.Request{
		Method:     methodString(req),
		Proto:      proto,
		ProtoMajor: 1,
		ProtoMinor: req.Minor,
		Header:     make(http.Header, len(req.Headers)),
		Host:       host,
		RequestURI: target,
		Close:      !req.KeepAlive,
	}
	var err error
	if r.Method == http.MethodConnect && !strings.HasPrefix(target, "/") {
		r.URL = &url.URL{Host: target}
	} else if r.URL, err = url.ParseRequestURI(target); err != nil {
		return err
	}
	vals := make([]string, len(req.Headers))
	for i, f := range req.Headers {
		// CanonicalHeaderKey returns a name in canonical form as it is.
		k := http.CanonicalHeaderKey(next(len(f.Name)))
		v := next(len(f.Value))
		if k == "Host" {
			continue // net/http moves it to Request.Host
		}
		if vs, ok := r.Header[k]; ok {
			r.Header[k] = append(vs, v)
			continue
		}
		vals[i] = v
		r.Header[k] = vals[i : i+1 : i+1]
	}
	r.ContentLength = int64(len(req.Body))
	if req.BodyFollows {
		r.ContentLength = req.ContentLength
	}
	if req.Chunked {
		r.TransferEncoding = []string{"chunked"}
		r.ContentLength = -1
		r.Header.Del("Transfer-Encoding")
	}
	if len(req.Body) > 0 || req.Chunked {
		r.Body = &body{r: bytes.NewReader(bytes.Clone(req.Body))}
	} else {
		r.Body = http.NoBody
	}
	var parent context.Context
	switch c := w.Owner.(type) {
	case *conn:
		r.RemoteAddr, parent = c.remoteAddr(), c.context()
	case *h2conn:
		r.RemoteAddr, parent = c.remoteAddr(), c.context()
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	}
	// net/http cancels the context when the handler returns (run), and
	// when the connection closes (the connection's context, its parent).
	ctx, cancel := context.WithCancel(parent)
	e.req, e.cancel = r.WithContext(ctx), cancel
	e.head = req.Method == http1.MethodHead
	e.header = make(http.Header)
	e.declared = -1
	e.buf = e.bufArr[:0]
	return nil
}

// methodString returns req's method as a string, without allocating for
// the common ones.
func methodString(req *http1.Request) string {
	switch req.Method {
	case http1.MethodGet:
		return http.MethodGet
	case http1.MethodHead:
		return http.MethodHead
	case http1.MethodPost:
		return http.MethodPost
	case http1.MethodPut:
		return http.MethodPut
	case http1.MethodDelete:
		return http.MethodDelete
	}
	return string(req.RawMethod)
}

// body is a request body read before the handler runs, with net/http's
// Close rules: reading after Close fails.
type body struct {
	r      *bytes.Reader
	closed bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.r.Read(p)
}

func (b *body) Close() error {
	b.closed = true
	return nil
}

// run serves the exchange on a worker: h, then the response's end.
func (e *exchange) run() {
	defer e.cancel()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				e.logf("httpserver: panic serving %s: %v\n%s", e.req.RemoteAddr, v, buf)
			}
			e.d.abort()
		}
	}()
	e.a.h.ServeHTTP(e, e.req)
	e.finish()
}

func (e *exchange) logf(format string, args ...any) {
	if e.a.log != nil {
		e.a.log.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// Header returns the response's header map (http.ResponseWriter).
func (e *exchange) Header() http.Header { return e.header }

// WriteHeader decides the status (http.ResponseWriter): the first call
// counts, later ones are logged and ignored, as net/http does.
func (e *exchange) WriteHeader(code int) {
	if e.wroteHeader {
		e.logf("http: superfluous response.WriteHeader call with status %d", code)
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if code >= 100 && code < 200 && code != 101 {
		return // informational: not sent (see Adapt)
	}
	e.wroteHeader = true
	e.status = code
	e.snapshot()
}

// snapshot takes the header as it is now into e.sent: the fields http1
// writes as they are, sorted by name (net/http sorts them too), in two
// allocations, and what the framing needs of the others.
func (e *exchange) snapshot() {
	hdr := e.header
	if v := hdr.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			e.declared = n
		} else {
			e.logf("http: invalid Content-Length of %q", v)
		}
	}
	st := &e.sent
	var ct []string
	ct, st.hasType = hdr["Content-Type"]
	if len(ct) > 0 {
		st.contentType = ct[0]
	}
	st.encoded = hdr.Get("Content-Encoding") != ""
	st.close = strings.EqualFold(hdr.Get("Connection"), "close")
	_, st.ownDate = hdr["Date"]
	var keyArr [8]string
	keys, size, n := keyArr[:0], 0, 0
	for k, vs := range hdr {
		switch k {
		case "Content-Type", "Content-Length", "Transfer-Encoding", "Connection", "Trailer":
			continue
		}
		keys = append(keys, k)
		for _, v := range vs {
			size += len(k) + len(v)
			n++
		}
	}
	if n == 0 {
		return
	}
	slices.Sort(keys)
	text := make([]byte, 0, size)
	st.fields = make([]http1.Header, 0, n)
	for _, k := range keys {
		for _, v := range hdr[k] {
			i := len(text)
			text = append(append(text, k...), v...)
			st.fields = append(st.fields, http1.Header{Name: text[i : i+len(k)], Value: text[i+len(k) : i+len(k)+len(v)]})
		}
	}
}

// Write writes body bytes (http.ResponseWriter).
func (e *exchange) Write(p []byte) (int, error) {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !bodyAllowed(e.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if e.declared >= 0 && e.written+int64(len(p)) > e.declared {
		return 0, http.ErrContentLength
	}
	e.written += int64(len(p))
	if e.head {
		// Counted for the Content-Length, not sent; past what net/http
		// holds, it sends the head without a length.
		if !e.headOut && e.written > bufferBeforeChunking {
			if err := e.sendHead(false); err != nil {
				return 0, err
			}
		}
		return len(p), nil
	}
	if !e.headOut {
		if len(e.buf)+len(p) <= bufferBeforeChunking {
			e.buf = append(e.buf, p...)
			return len(p), nil
		}
		if err := e.sendHead(false); err != nil {
			return 0, err
		}
	}
	if _, err := e.d.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write of a string (io.StringWriter, as net/http's).
func (e *exchange) WriteString(s string) (int, error) { return e.Write([]byte(s)) }

// Flush sends what is written so far (http.Flusher), at the client's pace.
func (e *exchange) Flush() {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if !e.headOut && e.sendHead(false) != nil {
		return
	}
	e.d.Flush()
}

// FlushError is Flush that reports the connection's close
// (http.ResponseController).
func (e *exchange) FlushError() error {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if !e.headOut {
		if err := e.sendHead(false); err != nil {
			return err
		}
	}
	return e.d.Flush()
}

// finish ends the response once the handler has returned.
func (e *exchange) finish() {
	if e.d.aborted {
		return
	}
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if !e.headOut {
		e.sendHead(true)
	}
	if e.d.Writer().Open() {
		e.d.Writer().End(nil)
	}
	e.d.Done()
}

// sendHead writes the response's head, and the body bytes held, to the
// Detached: done says the handler has returned, so that a short body gets
// a Content-Length.
func (e *exchange) sendHead(done bool) error {
	e.headOut = true
	h := http1.ResponseHeader{Status: e.status, ContentLength: -1}
	hdr := &e.sent
	switch {
	case e.declared >= 0:
		h.ContentLength = e.declared
	case !bodyAllowed(e.status):
		h.ContentLength = 0
	case done && (!e.head || e.written > 0):
		h.ContentLength = e.written
	}
	if hdr.hasType {
		h.ContentType = hdr.contentType
	} else if bodyAllowed(e.status) && len(e.buf) > 0 && !hdr.encoded {
		h.ContentType = http.DetectContentType(e.buf)
	}
	h.Close = hdr.close || e.req.Close
	w := e.d.Writer()
	if hdr.ownDate {
		w.Dates = nil // the handler's own Date
	}
	h.Headers = hdr.fields
	if err := w.WriteHeader(&h); err != nil {
		e.logf("httpserver: the net/http handler's response head was refused: %v", err)
		e.d.abort()
		return err
	}
	if len(e.buf) > 0 {
		_, err := w.Write(e.buf)
		e.buf = nil
		return err
	}
	return nil
}

// bodyAllowed reports whether a response of the status has a body (RFC
// 9110 §6.4.1): not 1xx, 204 or 304.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status < 200 || status == 204 || status == 304)
}

var _ io.StringWriter = (*exchange)(nil)
