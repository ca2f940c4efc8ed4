package echobench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Flood+ping: fairness of one server loop between two connections. One
// connection (the flood) writes as fast as the server echoes, in 64 KiB
// writes, while a second (the ping) sends cfg.Size bytes and waits for the
// echo before sending again. The result's latencies are the ping's round
// trips, RoundTrips/RTPS count pings, and BytesPerSec is the flood's echoed
// bytes per second, all inside the window. Every echoed byte of both is
// checked. A server that serves the flood for long stretches without
// looking at its other connections shows as a long ping p99.

// floodPeriod is the flood's pattern period: a prime, so that a shifted or
// repeated echo fails the comparison.
const floodPeriod = 65521

// floodChunk is the flood's write size.
const floodChunk = 64 << 10

// FloodPing runs the flood+ping load of cfg (Conns, Inflight are ignored).
func FloodPing(cfg LoadConfig) (LoadResult, error) {
	if cfg.Size < 1 || cfg.Duration <= 0 || cfg.Warmup < 0 {
		return LoadResult{}, fmt.Errorf("flood+ping: need size, duration > 0 (got %d, %v)", cfg.Size, cfg.Duration)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 2 * time.Second
	}
	// The generator runs on one CPU, which the flood keeps busy; what the
	// ping measures must be the server's delay, not the generator's. So
	// the ping runs on an OS thread of its own with blocking system calls
	// (the kernel wakes that thread when the echo arrives; no poller, and
	// with more Ps than goroutines it never waits for one), and the
	// flood's two threads run at nice 10 (a tenth of the weight), so that
	// the woken ping thread takes the CPU from them at once.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	conns, err := dialAll(cfg.Addr, 1)
	if err != nil {
		return LoadResult{}, err
	}
	defer closeAll(conns)
	flood := conns[0]
	ping, err := dialBlocking(cfg.Addr, cfg.Warmup+markTimeout+cfg.Duration+cfg.Grace)
	if err != nil {
		return LoadResult{}, err
	}
	defer unix.Close(ping)
	win := newWindow()
	// deadline is the flood's: the window's end and the grace, once the
	// window is open.
	var deadline atomic.Pointer[time.Time]
	pattern := make([]byte, floodPeriod+floodChunk)
	r := rand.New(rand.NewPCG(7, uint64(win.begin.UnixNano())))
	for i := range pattern {
		if i < floodPeriod {
			pattern[i] = byte(r.Uint32())
		} else {
			pattern[i] = pattern[i-floodPeriod] // byte i is byte i mod floodPeriod
		}
	}

	var (
		wg       sync.WaitGroup
		errs     [3]error
		sent     atomic.Int64 // flood bytes written
		inWindow atomic.Int64 // flood bytes echoed inside the window
	)
	wg.Add(3)
	go func() { // the flood's writer
		defer wg.Done()
		background()
		defer func() {
			// The writer stops only once the window is over (or on an
			// error, when the reader's deadline hardly matters).
			if d := deadline.Load(); d != nil {
				flood.SetReadDeadline(minTime(time.Now().Add(20*time.Millisecond), *d))
			}
		}()
		var off int64
		for !win.over(time.Now()) {
			p := pattern[off%floodPeriod:][:floodChunk]
			n, err := flood.Write(p)
			off += int64(n)
			sent.Store(off)
			if err != nil {
				errs[0] = fmt.Errorf("flood+ping: flood write: %w", err)
				return
			}
		}
	}()
	go func() { // the flood's reader
		defer wg.Done()
		background()
		b := make([]byte, 256<<10)
		var got int64
		for {
			n, err := flood.Read(b)
			if n > 0 {
				now := time.Now()
				for in := b[:n]; len(in) > 0; {
					p := pattern[got%floodPeriod:][:min(len(in), floodChunk)]
					if !bytes.Equal(in[:len(p)], p) {
						errs[1] = fmt.Errorf("flood+ping: flood echo mismatch near byte %d", got)
						return
					}
					in, got = in[len(p):], got+int64(len(p))
				}
				if win.in(now) {
					inWindow.Add(int64(n))
				}
			}
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					// The writer, once done, sets short read deadlines
					// so that the reader can see it has all the echo.
					if got == sent.Load() {
						return
					}
					if now, d := time.Now(), deadline.Load(); d != nil && now.Before(*d) {
						flood.SetReadDeadline(minTime(now.Add(20*time.Millisecond), *d))
						continue
					}
					err = fmt.Errorf("%d flood bytes still not echoed %v after the window: the server lost or withheld bytes", sent.Load()-got, cfg.Grace)
				}
				errs[1] = fmt.Errorf("flood+ping: flood read: %w", err)
				return
			}
		}
	}()
	var h histogram
	var pings int64
	go func() { // the ping
		defer wg.Done()
		runtime.LockOSThread() // the thread ends with the goroutine
		msg, back := make([]byte, cfg.Size), make([]byte, cfg.Size)
		for seq := 0; ; seq++ {
			now := time.Now()
			if win.over(now) {
				return
			}
			for i := range msg {
				msg[i] = byte(seq + i)
			}
			if _, err := unix.Write(ping, msg); err != nil {
				errs[2] = fmt.Errorf("flood+ping: ping write: %w", err)
				return
			}
			for got := 0; got < len(back); {
				n, err := unix.Read(ping, back[got:])
				if err == unix.EINTR {
					continue
				}
				if err == nil && n == 0 {
					err = io.ErrUnexpectedEOF
				}
				if err != nil {
					errs[2] = fmt.Errorf("flood+ping: ping read: %w", err)
					return
				}
				got += n
			}
			done := time.Now()
			if !bytes.Equal(msg, back) {
				errs[2] = fmt.Errorf("flood+ping: ping %d echo mismatch", seq)
				return
			}
			// A ping counts if it overlaps the window: one that a server
			// holds back past the window's end shows as the long wait it
			// was, not as a missing sample.
			if win.overlaps(now, done) {
				h.record(done.Sub(now))
				pings++
			}
		}
	}()
	cpu0, cpu1, err := runWindow(cfg, win, func(end time.Time) {
		d := end.Add(cfg.Grace)
		deadline.Store(&d)
		flood.SetDeadline(d)
	}, func() {
		flood.Close()
		unix.Shutdown(ping, unix.SHUT_RDWR)
	})
	if err != nil {
		wg.Wait()
		return LoadResult{}, err
	}
	// The flood's writer may be blocked in a write the server no longer
	// reads (it must not be: an echo server reads as long as it writes);
	// the deadline ends it.
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return LoadResult{}, err
	}
	secs := cfg.Duration.Seconds()
	res := LoadResult{
		RoundTrips:  pings,
		Seconds:     secs,
		RTPS:        float64(pings) / secs,
		BytesPerSec: float64(inWindow.Load()) / secs,
		P50us:       h.quantile(0.50) / 1e3,
		P99us:       h.quantile(0.99) / 1e3,
		LoadCPU:     (cpu1 - cpu0).Seconds() / secs,
	}
	if pings == 0 {
		return res, fmt.Errorf("flood+ping: no ping completed in the %v window", cfg.Duration)
	}
	return res, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// background locks the calling goroutine to its thread (which ends with
// it) and lowers the thread's priority to nice 10.
func background() {
	runtime.LockOSThread()
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 10)
}

// dialBlocking connects a blocking TCP socket to addr (an IPv4 or IPv6
// literal and port) with TCP_NODELAY, whose reads give up after timeout.
func dialBlocking(addr string, timeout time.Duration) (int, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return -1, fmt.Errorf("flood+ping: ping address: %w", err)
	}
	family := unix.AF_INET6
	var sa unix.Sockaddr = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	if ap.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("flood+ping: socket: %w", err)
	}
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("flood+ping: connect %s: %w", addr, err)
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	tv := unix.NsecToTimeval(int64(timeout))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	return fd, nil
}
