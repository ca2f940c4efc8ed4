package echobench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// LoadConfig describes one load: Conns connections, each keeping Inflight
// requests of Size bytes outstanding, for Warmup and then a measured
// window of Duration.
type LoadConfig struct {
	Addr     string
	Conns    int
	Inflight int
	Size     int
	Duration time.Duration
	Warmup   time.Duration
	// Grace is how long after the window the echoes still outstanding may
	// take before the server counts as having lost bytes (default 2s).
	Grace time.Duration
	// Mark, if set, is called with "start" when the warm-up is over, and
	// the window opens when it returns (the runner samples the server's
	// CPU and enables its counters there, however long that takes); and
	// with "end" when the window has closed. An error from it ends the load.
	Mark func(event string) error
}

// LoadResult is what one load measured inside its window.
type LoadResult struct {
	RoundTrips  int64   `json:"round_trips"`
	Seconds     float64 `json:"seconds"`
	RTPS        float64 `json:"round_trips_per_s"`
	BytesPerSec float64 `json:"bytes_per_s"` // echoed payload, one direction
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	// LoadCPU is the generator's own CPU time over the window divided by
	// the window: near 1 on a one-CPU generator means it is the bottleneck.
	LoadCPU float64 `json:"load_cpu"`
}

// patternPeriod is how many distinct messages a connection cycles through:
// message i is pattern[i%patternPeriod:][:Size] of a random block, so
// neighbouring messages differ and a reordered, repeated or shifted echo
// fails the comparison.
const patternPeriod = 251

// Load drives cfg.Conns connections against an echo server and verifies
// every echoed byte; a mismatch, an early close or a missing echo is an error.
func Load(cfg LoadConfig) (LoadResult, error) {
	if cfg.Conns < 1 || cfg.Inflight < 1 || cfg.Size < 1 || cfg.Duration <= 0 || cfg.Warmup < 0 {
		return LoadResult{}, fmt.Errorf("load: need conns, inflight, size, duration > 0 (got %d, %d, %d, %v)",
			cfg.Conns, cfg.Inflight, cfg.Size, cfg.Duration)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 2 * time.Second
	}
	conns, err := dialAll(cfg.Addr, cfg.Conns)
	if err != nil {
		return LoadResult{}, err
	}
	win := newWindow()
	workers := make([]*worker, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		w := newWorker(i, c, cfg, win)
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.run()
			c.Close()
		}()
	}
	cpu0, cpu1, err := runWindow(cfg, win, func(end time.Time) {
		for _, c := range conns {
			c.SetDeadline(end.Add(cfg.Grace))
		}
	}, func() { closeAll(conns) })
	if err != nil {
		wg.Wait()
		return LoadResult{}, err
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return LoadResult{}, err
	}

	var h histogram
	var n int64
	for _, w := range workers {
		h.merge(&w.hist)
		n += w.counted
	}
	secs := cfg.Duration.Seconds()
	res := LoadResult{
		RoundTrips:  n,
		Seconds:     secs,
		RTPS:        float64(n) / secs,
		BytesPerSec: float64(n) * float64(cfg.Size) / secs,
		P50us:       h.quantile(0.50) / 1e3,
		P99us:       h.quantile(0.99) / 1e3,
		LoadCPU:     (cpu1 - cpu0).Seconds() / secs,
	}
	if n == 0 {
		return res, fmt.Errorf("load: no round trip completed in the %v window", cfg.Duration)
	}
	return res, nil
}

// markTimeout bounds how long Mark("start") may keep the window from
// opening.
const markTimeout = 10 * time.Second

// runWindow waits out cfg's warm-up, calls Mark("start"), opens win and
// calls opened with its end, waits for the end, calls Mark("end"), and
// returns the process's CPU time at the window's edges. If Mark fails,
// abort is called (it must make the load's goroutines return).
func runWindow(cfg LoadConfig, win *window, opened func(end time.Time), abort func()) (cpu0, cpu1 time.Duration, err error) {
	time.Sleep(time.Until(win.begin.Add(cfg.Warmup)))
	if cfg.Mark != nil {
		if err := cfg.Mark("start"); err != nil {
			abort()
			return 0, 0, err
		}
	}
	cpu0 = selfCPU()
	end := win.open(cfg.Duration)
	opened(end)
	time.Sleep(time.Until(end))
	cpu1 = selfCPU()
	if cfg.Mark != nil {
		if err := cfg.Mark("end"); err != nil {
			abort()
			return 0, 0, err
		}
	}
	return cpu0, cpu1, nil
}

// dialAll opens n connections, at most 64 dials at a time.
func dialAll(addr string, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range conns {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				errs[i] = fmt.Errorf("load: dial %d of %d: %w", i+1, n, err)
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		closeAll(conns)
		return nil, err
	}
	return conns, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// worker is one connection's request loop; it owns everything it touches.
type worker struct {
	id         int
	c          net.Conn
	size, k    int
	win        *window
	pattern    []byte      // random, Size+patternPeriod bytes
	sentAt     []time.Time // by message number % k
	rbuf, wbuf []byte
	hist       histogram
	counted    int64
}

func newWorker(id int, c net.Conn, cfg LoadConfig, win *window) *worker {
	w := &worker{
		id: id, c: c, size: cfg.Size, k: cfg.Inflight, win: win,
		pattern: make([]byte, cfg.Size+patternPeriod),
		sentAt:  make([]time.Time, cfg.Inflight),
		rbuf:    make([]byte, max(64<<10, 2*cfg.Size)),
		wbuf:    make([]byte, 0, cfg.Size*cfg.Inflight),
	}
	r := rand.New(rand.NewPCG(uint64(id)+1, uint64(time.Now().UnixNano())))
	for i := range w.pattern {
		w.pattern[i] = byte(r.Uint32())
	}
	return w
}

func (w *worker) msg(seq int64) []byte {
	off := int(seq % patternPeriod)
	return w.pattern[off : off+w.size]
}

// run writes and reads until the window is over (the load's main goroutine
// sets the connection's deadline when it opens the window).
func (w *worker) run() error {
	var sent, done int64 // messages written, messages fully echoed
	got := 0             // bytes of message done received so far
	now := time.Now()
	w.wbuf = w.wbuf[:0]
	for ; sent < int64(w.k); sent++ {
		w.sentAt[sent%int64(w.k)] = now
		w.wbuf = append(w.wbuf, w.msg(sent)...)
	}
	if _, err := w.c.Write(w.wbuf); err != nil {
		return fmt.Errorf("load: conn %d: write: %w", w.id, err)
	}
	stopping := false
	for done < sent {
		n, err := w.c.Read(w.rbuf)
		now = time.Now()
		in := w.rbuf[:n]
		w.wbuf = w.wbuf[:0]
		for len(in) > 0 {
			if done == sent {
				return fmt.Errorf("load: conn %d: %d bytes echoed beyond the %d messages sent", w.id, len(in), sent)
			}
			want := w.msg(done)[got:]
			m := min(len(want), len(in))
			for j := 0; j < m; j++ {
				if in[j] != want[j] {
					return fmt.Errorf("load: conn %d: echo mismatch in message %d at byte %d: got %#02x, sent %#02x",
						w.id, done, got+j, in[j], want[j])
				}
			}
			in, got = in[m:], got+m
			if got < w.size {
				break
			}
			got = 0
			if w.win.in(now) {
				w.hist.record(now.Sub(w.sentAt[done%int64(w.k)]))
				w.counted++
			}
			done++
			if !stopping && !w.win.over(now) {
				w.sentAt[sent%int64(w.k)] = now
				w.wbuf = append(w.wbuf, w.msg(sent)...)
				sent++
			} else {
				stopping = true
			}
		}
		if len(w.wbuf) > 0 {
			if _, err := w.c.Write(w.wbuf); err != nil {
				return fmt.Errorf("load: conn %d: write: %w", w.id, err)
			}
		}
		if err != nil && done < sent {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("load: conn %d: %d message(s) (%d bytes) still not echoed by the deadline after the window: the server lost or withheld bytes",
					w.id, sent-done, (sent-done)*int64(w.size)-int64(got))
			}
			return fmt.Errorf("load: conn %d: read with %d message(s) outstanding: %w", w.id, sent-done, err)
		}
	}
	return nil
}

// histogram is log-linear over nanoseconds: exact below 64 ns, then 32
// buckets per power of two (relative error under 3%).
type histogram struct {
	counts [2048]int64
}

func bucketOf(ns int64) int {
	if ns < 64 {
		return int(max(ns, 0))
	}
	shift := bits.Len64(uint64(ns)) - 6
	return shift*32 + int(ns>>shift)
}

func bucketMid(i int) float64 {
	if i < 64 {
		return float64(i)
	}
	shift := i/32 - 1
	low := int64(i%32+32) << shift
	return float64(low) + float64(int64(1)<<shift)/2
}

func (h *histogram) record(d time.Duration) {
	i := bucketOf(int64(d))
	if i >= len(h.counts) {
		i = len(h.counts) - 1
	}
	h.counts[i]++
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// quantile returns the q-quantile in nanoseconds (0 when empty).
func (h *histogram) quantile(q float64) float64 {
	var total int64
	for _, c := range h.counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(total))), 1)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return bucketMid(i)
		}
	}
	return 0
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Idle opens conns connections, echoes one size-byte message on each
// (verified), and then calls hold with every connection still open.
func Idle(addr string, conns, size int, hold func() error) error {
	cs, err := dialAll(addr, conns)
	if err != nil {
		return err
	}
	defer closeAll(cs)
	errs := make([]error, len(cs))
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i, c := range cs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = echoOnce(i, c, size)
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return err
	}
	return hold()
}

func echoOnce(id int, c net.Conn, size int) error {
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(id*31 + i)
	}
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
	if _, err := c.Write(msg); err != nil {
		return fmt.Errorf("idle: conn %d: write: %w", id, err)
	}
	back := make([]byte, size)
	if _, err := io.ReadFull(c, back); err != nil {
		return fmt.Errorf("idle: conn %d: read: %w", id, err)
	}
	for i := range back {
		if back[i] != msg[i] {
			return fmt.Errorf("idle: conn %d: echo mismatch at byte %d", id, i)
		}
	}
	return c.SetDeadline(time.Time{})
}

// firstErr returns the first error and how many more there were, so that
// one broken server does not print a line per connection.
func firstErr(errs []error) error {
	var first error
	n := 0
	for _, err := range errs {
		if err != nil {
			if first == nil {
				first = err
			}
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%w (and %d more connection(s) failed)", first, n-1)
	}
	return first
}
