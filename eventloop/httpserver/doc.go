// Package httpserver serves HTTP/1.1 on netkit's event loops: codec/http1
// parses each request straight from a connection's inbound buffers and
// writes each response into pooled buffers, and a Handler, run on the
// connection's loop, answers it.
//
// # Requests and responses
//
// Listen starts a server on a group's loops. For every complete request a
// connection's read delivered, in order, the server calls the Handler with
// the parsed request and the connection's http1.ResponseWriter; the
// responses to all the requests of one read — 16 pipelined requests, say —
// go out together, in one writev. The server answers by itself:
//
//   - a request the parser refuses, with the status http1.StatusOf gives
//     (400, 413, 414, 417, 431, 501, 505) and "Connection: close", then
//     closes the connection: after a syntax error its framing is lost;
//   - "Expect: 100-continue", with "100 Continue" as soon as the head has
//     arrived, and the Handler once the body has;
//   - a Handler that wrote no final response (nothing, or only 1xx), with
//     500 (the connection stays open); a Handler that left a streamed
//     response open, by ending it — or, when its body is short of its
//     Content-Length, by closing the connection after what it wrote.
//
// Every request gets exactly one final response, framed for it (see
// Handler and http1.ResponseWriter.Begin): a second one is refused, the
// answer to HEAD carries no body bytes, and an HTTP/1.0 client gets no
// chunks. So whatever a Handler writes, a pipelining client reads each
// response in its place.
//
// A connection stays open after a response when the request allowed it
// (http1.Request.KeepAlive: HTTP/1.1 without "Connection: close", or
// HTTP/1.0 with "Connection: keep-alive", answered with "Connection:
// keep-alive") and the response did not say "Connection: close". The
// response to a request that closes the connection says
// "Connection: close" by itself. A Handler closes the connection after
// its response by clearing req.KeepAlive before it writes the response,
// or by setting the response's Close. (Cleared after the response,
// req.KeepAlive still closes the connection, but the response did not
// tell the client.)
//
// Every response's Date field comes from the loop's http1.DateCache,
// updated by a once-per-second timer on each loop: no clock read per
// response.
//
// # Answering later
//
// A Handler runs on its connection's loop and must not block it. One that
// waits for something — a database, an outbound request — calls Detach,
// copies what it needs of the request, hands the Detached to a goroutine
// and returns. The goroutine writes the response to the Detached's
// writer, under the same rules as a Handler's, and calls Done (or
// Respond, which does both); the loop sends it once the responses to the
// requests before it are out, so a pipelining client still reads every
// response in its place. Meanwhile the connection goes on reading and
// answering the requests after it, holding their responses back, until
// WithMaxDetached requests (16 by default) wait for answers: then it
// stops reading until one is done. When the connection closes first, the
// Detached's Context is cancelled and Done returns ErrConnClosed,
// releasing what was written. Server.Shutdown waits for detached
// requests as for any request in flight.
//
// # Streaming a request body
//
// By default a request is handed to the Handler once its body has arrived
// whole (up to the decoder's MaxBodySize, 4 MiB by default). With
// WithStreamedBodies a request whose body has not all arrived is handed
// over as soon as its head has, with req.BodyFollows set: the Handler
// detaches and calls Detached.Body, a reader for its goroutine that gets
// the body as it comes (a "100 Continue" goes out then, when the client
// asked for one). The connection stops reading while 256 KiB wait unread,
// so a slow consumer slows the client instead of growing the server's
// memory (TestStreamedBodyUpload: 256 MiB uploaded, with a length and
// chunked, the heap grows by about 3 MiB). A body the Handler does not ask
// for is read and dropped. Adapt gives such a body to net/http handlers as
// Request.Body.
//
// # Streaming a response
//
// A response too large to build in memory — a download, a feed — is
// streamed from a Detached: write the head (Writer().WriteHeader, with a
// Content-Length or ContentLength -1 for chunks), then the body through
// the Detached's Write (an io.Writer, so io.Copy works) or Writer().Write
// and Flush, then Writer().End and Done. Flush hands the bytes to the
// connection and blocks the producing goroutine until the connection is
// below its low water mark (and the responses before this one are out),
// so the producer runs at the client's pace: TestDetachStreamBounded
// sends 256 MiB to a client that reads slowly at first with the server's
// heap growing by about 3 MiB. A Handler on the loop cannot block, so it
// should not write a body larger than the water marks: its response is
// buffered whole before it goes.
//
// # net/http handlers, and routing
//
// Adapt serves any http.Handler from the loops: each request is detached
// and the handler runs on a goroutine of a bounded pool, so idle
// keep-alive connections cost no goroutine and a handler may block. Its
// Request and ResponseWriter follow net/http's rules (TestAdaptDifferential
// sends the same 31 requests to a handler under net/http's server and
// under Adapt and compares status, headers but Date, framing and body).
//
// Routing is net/http's: serve an http.ServeMux through Adapt, with Go
// 1.22's patterns (methods, wildcards, "{name...}") and PathValue. The
// package has no router of its own: ServeMux's semantics (precedence,
// redirects, 405 with Allow) are what users know, and re-implementing
// them for the on-loop Handler would fork them; its cost is the adapter's
// per-request allocations, measured beside the native Handler.
//
// # Upgrades
//
// A Handler that accepts a request's Upgrade (WebSocket, h2c) calls
// Upgrade with the 101 response's fields and a function that installs
// the new protocol's handlers in the connection's pipeline. After the
// responses before it and the 101 are queued, the HTTP handler leaves the
// pipeline, the new handlers get the bytes the client sent after the
// request, and the connection is theirs: no HTTP timeout applies any more.
//
// # HTTP/2
//
// WithH2C serves HTTP/2 without TLS beside HTTP/1.1 on the same port: a
// connection that opens with HTTP/2's client preface (prior knowledge, as
// curl --http2-prior-knowledge, h2load and Go's client with
// Protocols.SetUnencryptedHTTP2 do), or upgrades to it with
// "Upgrade: h2c" (curl --http2), is served by codec/http2's Conn, and
// each stream's request goes to the same Handler, as an http1.Request,
// with an http1.ResponseWriter whose response is sent as HEADERS, DATA
// and trailers within the client's flow-control windows; Detach, streamed
// responses and Adapt work as over HTTP/1.1. h2spec's 145 cases pass
// (TestH2Spec; 146 with its strict ones), and floods meet limits that are
// on by default (see WithH2C).
//
// # Timeouts
//
// Four timeouts are on by default, each set by an option (a negative
// value turns one off):
//
//   - the request head, 10 s (WithReadHeaderTimeout): from the
//     connection's opening for the first request, from the head's first
//     byte for the others; a head still incomplete is answered 408 and the
//     connection closes, so a slowloris trickle or a connection that never
//     speaks holds nothing for long;
//   - idle keep-alive, 90 s (WithIdleTimeout): a connection with nothing
//     in progress waiting for its next request is closed, answering
//     nothing;
//   - body progress, 30 s (WithBodyTimeout): the time between two reads
//     of a body that is arriving, measured in bytes received, so a large
//     upload over a slow link is never cut while it moves; a stalled one
//     is answered 408;
//   - write progress, 30 s (WithWriteTimeout): with responses queued, the
//     time the client may take no byte of them; then the connection is
//     dropped with what was queued (ErrWriteTimeout). A slow reader that
//     keeps reading is not.
//
// While a detached request is awaited, or the server itself stopped
// reading (backpressure), the client is not timed for reading: the wait
// is the server's. One timer per connection serves all four, moved only
// when a deadline comes earlier.
//
// # The connection, and state
//
// ConnOf gives a Handler its connection: the client's address
// (RemoteAddr), the local one, the loop it runs on, and a slot for
// per-connection state (Value, SetValue). Context gives a context that is
// cancelled when the connection closes, for work that should stop with
// the client.
//
// Every Handler call of one connection runs on that connection's loop,
// one at a time, and a group's loops run in parallel. So state of one
// connection needs no lock; state shared by the connections of one loop
// needs none either when it is kept per loop (a map from *eventloop.Loop
// filled before Listen, as the server keeps its Date caches); state shared
// by all loops — a cache, a counter — is shared across goroutines and
// needs a lock or atomics, as does anything a detached request's
// goroutine touches.
//
// # Cost
//
// In steady state a request allocates nothing: the request is parsed into
// the connection's reused http1.Request, the response is written into a
// pooled buffer that the connection takes over and releases once written,
// and the Date is the loop's. Each connection holds its decoder, request
// and writer (a few hundred bytes, more once a request had many fields)
// and no buffer while idle.
//
// # Backpressure
//
// A client that pipelines requests without reading the responses fills
// the connection's outbound queue; past its high water mark (64 KiB by
// default, eventloop.WithWaterMarks) the server stops answering and
// stops reading from that connection, and resumes once the queue has
// drained below the low mark. Memory stays bounded by the water marks and
// the inbound limit, whatever the client sends.
//
// # Shutdown
//
// Server.Shutdown stops accepting, lets requests in flight finish — a
// request partly received is still read, answered and flushed — closes
// connections as soon as they are idle, and returns once none is left (or
// when its context ends, closing the rest).
//
// # Refusals and panics
//
// After answering a request the parser refused, the server half-closes
// the connection and drains what the client still sends, so that the
// client reads the answer rather than a reset. A Handler's panic closes
// that connection only, after the answers to the requests before it;
// the loop and the other connections go on. TestNoAllocs checks over
// loopback that a request costs no allocation.
//
// ExampleListen is the TechEmpower plaintext endpoint: one ResponseHeader
// value per server, Close set from req.KeepAlive, and Respond writing
// Date (from the loop's cache), Content-Length and the body.
package httpserver
