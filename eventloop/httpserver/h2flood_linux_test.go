package httpserver_test

import (
	"bytes"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/hpack"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/codec/http2"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/netkit/netkit/internal/testenv"
)

// h2raw is a client that writes frames as the test says, rule-breaking
// ones too, and reads the server's.
type h2raw struct {
	t   *testing.T
	c   net.Conn
	enc hpack.Encoder
	dec http2.Decoder
	in  []byte
}

func dialH2(t *testing.T, addr string, settings ...http2.Setting) *h2raw {
	r := &h2raw{t: t, c: dial(t, addr), dec: http2.Decoder{MaxFrameSize: http2.MaxFrameSizeLimit}}
	w := append([]byte(http2.ClientPreface), http2.AppendSettings(nil, settings...)...)
	r.write(w)
	return r
}

func (r *h2raw) write(p []byte) error {
	r.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := r.c.Write(p)
	return err
}

// block encodes a request's header block.
func (r *h2raw) block(method, path string, extra ...hpack.Field) []byte {
	f := []hpack.Field{{Name: ":method", Value: method}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: path}, {Name: ":authority", Value: "test"}}
	return r.enc.AppendFields(nil, append(f, extra...))
}

// next reads the server's next frame; false at EOF or after d.
func (r *h2raw) next(f *http2.Frame, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if len(r.in) > 0 {
			n, err := r.dec.DecodeBytes(r.in, f)
			if err == nil {
				// Keep the frame's bytes valid: copy out what follows.
				f.Data = append([]byte(nil), f.Data...)
				r.in = r.in[n:]
				return true
			}
			require.ErrorIs(r.t, err, http2.ErrShort)
		}
		r.c.SetReadDeadline(deadline)
		b := make([]byte, 64<<10)
		n, err := r.c.Read(b)
		r.in = append(r.in, b[:n]...)
		if err != nil && n == 0 {
			return false
		}
	}
}

// until reads frames until one matches, and returns it; it fails the test
// at EOF or after 10 s.
func (r *h2raw) until(match func(*http2.Frame) bool) *http2.Frame {
	r.t.Helper()
	var f http2.Frame
	for r.next(&f, 10*time.Second) {
		if match(&f) {
			return &f
		}
	}
	r.t.Fatal("connection ended, or 10 s passed, without the frame awaited")
	return nil
}

func isType(t http2.FrameType) func(*http2.Frame) bool {
	return func(f *http2.Frame) bool { return f.Type == t }
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// logHeap reports how much the heap grew since before, and fails over
// limit.
func logHeap(t *testing.T, what string, before uint64, limit uint64) {
	after := heapInUse()
	grew := int64(after) - int64(before)
	t.Logf("%s: heap in use grew by %d KiB", what, grew>>10)
	assert.Less(t, grew, int64(limit), "%s: heap growth", what)
}

func h2Server(t *testing.T) string {
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	return addr
}

// TestH2FloodRapidReset: streams opened and reset at once, over and over
// (CVE-2023-44487). Requests that are whole are answered as they arrive
// and their resets are dropped: the connection goes on. Streams reset
// while the server waits for their bodies count: past 1000 more than were
// answered, GOAWAY(ENHANCE_YOUR_CALM).
func TestH2FloodRapidReset(t *testing.T) {
	addr := h2Server(t)
	before := heapInUse()
	r := dialH2(t, addr)
	var w []byte
	id := uint32(1)
	for range 5000 {
		w, _ = http2.AppendHeaders(w, id, true, true, r.block("GET", "/"))
		w, _ = http2.AppendRSTStream(w, id, http2.CodeCancel)
		id += 2
	}
	w, _ = http2.AppendHeaders(w, id, true, true, r.block("GET", "/last"))
	go r.write(w)
	f := r.until(func(f *http2.Frame) bool {
		return f.Type == http2.FrameHeaders && f.StreamID == id || f.Type == http2.FrameGoAway
	})
	require.Equal(t, http2.FrameHeaders, f.Type, "the connection still serves")
	logHeap(t, "5000 whole requests reset", before, 4<<20)

	r = dialH2(t, addr)
	w = nil // the write above may still be going on: a new slice
	id = 1
	for range 5000 {
		w, _ = http2.AppendHeaders(w, id, false, true, r.block("POST", "/"))
		w, _ = http2.AppendRSTStream(w, id, http2.CodeCancel)
		id += 2
	}
	go r.write(w)
	f = r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeEnhanceYourCalm, f.ErrCode)
	logHeap(t, "streams reset before their bodies", before, 4<<20)
}

// TestH2FloodContinuation: a header block that never ends, in empty
// CONTINUATION frames (CVE-2024-27316): GOAWAY(ENHANCE_YOUR_CALM) after
// 128, nothing buffered.
func TestH2FloodContinuation(t *testing.T) {
	addr := h2Server(t)
	before := heapInUse()
	r := dialH2(t, addr)
	w, _ := http2.AppendHeaders(nil, 1, true, false, r.block("GET", "/"))
	for range 10000 {
		w, _ = http2.AppendContinuation(w, 1, false, nil)
	}
	go r.write(w)
	f := r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeEnhanceYourCalm, f.ErrCode)

	// The same with fragments that carry bytes: the 64 KiB cap.
	r = dialH2(t, addr)
	w, _ = http2.AppendHeaders(nil, 1, true, false, r.block("GET", "/"))
	for range 100 {
		w, _ = http2.AppendContinuation(w, 1, false, bytes.Repeat([]byte{0x40}, 1000))
	}
	go r.write(w)
	f = r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeEnhanceYourCalm, f.ErrCode)
	logHeap(t, "CONTINUATION floods", before, 2<<20)
}

// TestH2FloodControlFrames: SETTINGS and PING frames, each owed an
// answer, from a client that reads nothing. The server stops reading
// once its answers back up, so its memory stays bounded; when the client
// reads again every answer comes.
func TestH2FloodControlFrames(t *testing.T) {
	for _, kind := range []string{"SETTINGS", "PING"} {
		t.Run(kind, func(t *testing.T) {
			addr := h2Server(t)
			before := heapInUse()
			r := dialH2(t, addr)
			var one []byte
			if kind == "PING" {
				one = http2.AppendPing(nil, false, [8]byte{1})
			} else {
				one = http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 5})
			}
			chunk := bytes.Repeat(one, 4096)
			sent := 0
			deadline := time.Now().Add(3 * time.Second)
			for time.Now().Before(deadline) {
				r.c.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
				n, err := r.c.Write(chunk)
				sent += n / len(one)
				if err != nil {
					var ne net.Error
					require.True(t, errors.As(err, &ne) && ne.Timeout(), "%v", err)
					break // the server stopped reading
				}
			}
			t.Logf("%d %s frames sent before the server stopped reading", sent, kind)
			require.Less(t, sent, 3_000_000, "the server never stopped reading")
			logHeap(t, kind+" flood, client not reading", before, 8<<20)
			// Now read: the answers come, in the thousands.
			acks := 0
			var f http2.Frame
			for acks < 1000 && r.next(&f, 5*time.Second) {
				if f.Ack() {
					acks++
				}
			}
			assert.Equal(t, 1000, acks)
		})
	}
}

// TestH2FloodEmptyData: DATA frames that carry nothing, without
// END_STREAM (CVE-2019-9518): GOAWAY(ENHANCE_YOUR_CALM) after 100.
func TestH2FloodEmptyData(t *testing.T) {
	addr := h2Server(t)
	r := dialH2(t, addr)
	w, _ := http2.AppendHeaders(nil, 1, false, true, r.block("POST", "/"))
	for range 1000 {
		w, _ = http2.AppendData(w, 1, false, nil)
	}
	go r.write(w)
	f := r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeEnhanceYourCalm, f.ErrCode)
}

// TestH2ZeroWindowStall: a client that gives no window and asks for large
// responses on every stream it may open. The server holds at most 4 MiB
// of bodies for it and refuses new streams past that; when the client
// opens its window, the responses held go out whole.
func TestH2ZeroWindowStall(t *testing.T) {
	addr := h2Server(t)
	before := heapInUse()
	r := dialH2(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	var w []byte
	for i := range 100 {
		w, _ = http2.AppendHeaders(w, uint32(2*i+1), true, true, r.block("GET", "/len/1000000"))
	}
	require.NoError(t, r.write(w))
	headers, refused := 0, 0
	var f http2.Frame
	for headers+refused < 100 && r.next(&f, 5*time.Second) {
		switch {
		case f.Type == http2.FrameHeaders:
			headers++
		case f.Type == http2.FrameRSTStream && f.ErrCode == http2.CodeRefusedStream:
			refused++
		}
	}
	t.Logf("answered %d, refused %d", headers, refused)
	assert.Equal(t, 100, headers+refused)
	assert.Positive(t, refused)
	assert.LessOrEqual(t, headers, 6)
	logHeap(t, "100 streams of 1 MB at a zero window", before, 12<<20)

	// Open the windows: every answered stream's body arrives whole.
	w = w[:0]
	w, _ = http2.AppendWindowUpdate(w, 0, 100<<20)
	for i := range headers {
		w, _ = http2.AppendWindowUpdate(w, uint32(2*i+1), 2<<20)
	}
	require.NoError(t, r.write(w))
	got := map[uint32]int{}
	ended := 0
	for ended < headers && r.next(&f, 10*time.Second) {
		if f.Type == http2.FrameData {
			got[f.StreamID] += len(f.Data)
			if f.EndStream() {
				ended++
			}
		}
	}
	require.Equal(t, headers, ended)
	for id, n := range got {
		assert.Equal(t, 1000000, n, "stream %d", id)
	}
}

// TestH2HeaderListSize: a header list over 64 KiB (sent small, through
// the dynamic table) is answered 431; the connection goes on.
func TestH2HeaderListSize(t *testing.T) {
	addr := h2Server(t)
	r := dialH2(t, addr)
	big := hpack.Field{Name: "x-big", Value: strings.Repeat("v", 3000)}
	var extra []hpack.Field
	for range 30 {
		extra = append(extra, big) // 30 × 3037 > 64 KiB; one literal, 29 indexes
	}
	w, _ := http2.AppendHeaders(nil, 1, true, true, r.block("GET", "/", extra...))
	w, _ = http2.AppendHeaders(w, 3, true, true, r.block("GET", "/after"))
	require.NoError(t, r.write(w))
	f := r.until(func(f *http2.Frame) bool { return f.Type == http2.FrameHeaders && f.StreamID == 1 })
	var d hpack.Decoder
	status := ""
	require.NoError(t, d.DecodeBlock(f.Data, func(name, value []byte, _ bool) error {
		if string(name) == ":status" {
			status = string(value)
		}
		return nil
	}))
	assert.Equal(t, "431", status)
	r.until(func(f *http2.Frame) bool { return f.Type == http2.FrameHeaders && f.StreamID == 3 })
}

// TestH2ConcurrentStreams: the 101st stream open at once is refused with
// REFUSED_STREAM; the 100 before it are answered once their bodies end.
func TestH2ConcurrentStreams(t *testing.T) {
	addr := h2Server(t)
	r := dialH2(t, addr)
	var w []byte
	for i := range 101 {
		w, _ = http2.AppendHeaders(w, uint32(2*i+1), false, true, r.block("POST", "/"))
	}
	require.NoError(t, r.write(w))
	f := r.until(isType(http2.FrameRSTStream))
	assert.Equal(t, uint32(201), f.StreamID)
	assert.Equal(t, http2.CodeRefusedStream, f.ErrCode)
	w = w[:0]
	for i := range 100 {
		w, _ = http2.AppendData(w, uint32(2*i+1), true, []byte("x"))
	}
	require.NoError(t, r.write(w))
	answered := 0
	for answered < 100 {
		r.until(isType(http2.FrameHeaders))
		answered++
	}
}

// TestH2DetachedStreamBounded: a response streamed from a goroutine
// (Detach, Write) to a client that opens no window: the producer blocks,
// the server's heap stays bounded, and when the client resets the stream
// the producer's Write fails and its Context ends; Done says the stream
// is gone.
func TestH2DetachedStreamBounded(t *testing.T) {
	result := make(chan error, 2)
	handler := func(w *http1.ResponseWriter, req *http1.Request) {
		d := httpserver.Detach(w)
		go func() {
			h := plainHeader
			h.ContentLength = -1
			d.Writer().WriteHeader(&h)
			chunk := make([]byte, 64<<10)
			var err error
			for i := 0; i < 1600 && err == nil; i++ { // 100 MiB, if it could
				_, err = d.Write(chunk)
			}
			<-d.Context().Done()
			result <- err
			result <- d.Done()
		}()
	}
	_, addr := start(t, handler, httpserver.WithH2C())
	before := heapInUse()
	r := dialH2(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1000})
	w, _ := http2.AppendHeaders(nil, 1, true, true, r.block("GET", "/"))
	require.NoError(t, r.write(w))
	got := 0
	var f http2.Frame
	for got < 1000 && r.next(&f, 5*time.Second) {
		if f.Type == http2.FrameData {
			got += len(f.Data)
		}
	}
	require.Equal(t, 1000, got, "the stream's window, no more")
	time.Sleep(200 * time.Millisecond) // the producer is blocked by now
	logHeap(t, "streaming 100 MiB to a closed window", before, 4<<20)
	w, _ = http2.AppendRSTStream(nil, 1, http2.CodeCancel)
	require.NoError(t, r.write(w))
	select {
	case err := <-result:
		require.ErrorIs(t, err, httpserver.ErrConnClosed)
		require.ErrorIs(t, <-result, httpserver.ErrConnClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("the producer was not told of the reset")
	}
}

// TestH2Shutdown: Server.Shutdown sends GOAWAY naming the last stream,
// lets the stream in flight (answered later, from a goroutine) finish,
// then closes the connection; a stream opened after the GOAWAY is not
// processed.
func TestH2Shutdown(t *testing.T) {
	release := make(chan struct{})
	handler := func(w *http1.ResponseWriter, req *http1.Request) {
		d := httpserver.Detach(w)
		go func() {
			<-release
			d.Respond(&plainHeader, []byte("finished"))
		}()
	}
	srv, addr := start(t, handler, httpserver.WithH2C())
	r := dialH2(t, addr)
	w, _ := http2.AppendHeaders(nil, 1, true, true, r.block("GET", "/"))
	require.NoError(t, r.write(w))
	r.until(isType(http2.FrameSettings))
	time.Sleep(50 * time.Millisecond) // the handler has detached
	done := shutdown(t, srv, 5*time.Second)
	f := r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeNo, f.ErrCode)
	assert.Equal(t, uint32(1), f.LastStreamID)
	w, _ = http2.AppendHeaders(nil, 3, true, true, r.block("GET", "/late"))
	require.NoError(t, r.write(w))
	close(release)
	var got []byte
	ended := false
	for !ended && r.next(f, 5*time.Second) {
		require.NotEqual(t, uint32(3), f.StreamID, "a stream after the GOAWAY was processed")
		if f.Type == http2.FrameData && f.StreamID == 1 {
			got = append(got, f.Data...)
			ended = f.EndStream()
		}
	}
	assert.Equal(t, "finished", string(got))
	require.NoError(t, recvErr(t, done, 5*time.Second, "Shutdown"))
	assert.False(t, r.next(f, 2*time.Second), "the connection closes after its last stream")
}

// TestH2IdleTimeout: an HTTP/2 connection with no stream open for the
// idle timeout gets GOAWAY and is closed; one whose stream is still being
// answered is not.
func TestH2IdleTimeout(t *testing.T) {
	release := make(chan struct{})
	handler := func(w *http1.ResponseWriter, req *http1.Request) {
		if string(req.Path) != "/slow" {
			w.Respond(&plainHeader, hello)
			return
		}
		d := httpserver.Detach(w)
		go func() {
			<-release
			d.Respond(&plainHeader, []byte("slow"))
		}()
	}
	_, addr := start(t, handler, httpserver.WithH2C(), httpserver.WithIdleTimeout(200*time.Millisecond))
	r := dialH2(t, addr)
	w, _ := http2.AppendHeaders(nil, 1, true, true, r.block("GET", "/"))
	require.NoError(t, r.write(w))
	r.until(func(f *http2.Frame) bool { return f.StreamID == 1 && f.EndStream() })
	began := time.Now()
	f := r.until(isType(http2.FrameGoAway))
	assert.Equal(t, http2.CodeNo, f.ErrCode)
	assert.False(t, r.next(f, 2*time.Second), "closed after the GOAWAY")
	assert.Less(t, time.Since(began), 2*time.Second)

	r = dialH2(t, addr)
	w, _ = http2.AppendHeaders(nil, 1, true, true, r.block("GET", "/slow"))
	require.NoError(t, r.write(w))
	time.Sleep(600 * time.Millisecond) // three idle timeouts: the stream is open
	close(release)
	f = r.until(func(f *http2.Frame) bool { return f.StreamID == 1 && f.EndStream() || f.Type == http2.FrameGoAway })
	assert.Equal(t, http2.FrameData, f.Type, "answered, not timed out")
}

// TestH2Allocs bounds the server's allocations per HTTP/2 request (the
// client here writes prebuilt frames and reads into one buffer). Not 0:
// each stream has a record, and the response's fields become HPACK
// strings; the bound catches growth.
func TestH2Allocs(t *testing.T) {
	testenv.SkipAllocs(t)
	addr := h2Server(t)
	r := dialH2(t, addr)
	r.until(isType(http2.FrameSettings))
	const n = 2000
	var reqs [][]byte
	for i := range n + 100 {
		w, _ := http2.AppendHeaders(nil, uint32(2*i+1), true, true, r.block("GET", "/a"))
		reqs = append(reqs, w)
	}
	b := make([]byte, 64<<10)
	one := func(w []byte) {
		require.NoError(t, r.write(w))
		r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		// HEADERS and DATA (with END_STREAM) come back, in one read or two.
		for got := 0; got < 2; {
			k, err := r.c.Read(b)
			require.NoError(t, err)
			got += countFrames(b[:k])
		}
	}
	for _, w := range reqs[:100] {
		one(w)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for _, w := range reqs[100:] {
		one(w)
	}
	runtime.ReadMemStats(&m1)
	per := float64(m1.Mallocs-m0.Mallocs) / n
	t.Logf("allocations per HTTP/2 request, server and test client: %.1f", per)
	assert.Less(t, per, 40.0)
}

// countFrames counts the whole frames in p (the test's reads end on frame
// boundaries here: each response's frames are written at once).
func countFrames(p []byte) int {
	n := 0
	for len(p) >= http2.HeaderLen {
		h := http2.ParseFrameHeader(p)
		p = p[min(len(p), http2.HeaderLen+int(h.Length)):]
		n++
	}
	return n
}
