package httpbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// The load generator (subcommand "load") measures latency the way wrk
// loads a server, but records it correctly when pipelined: each
// connection writes depth requests in one write, then reads until it has
// depth responses, and each response's latency is the time from that
// write to the read that completed it. wrk 4.1 corrects its pipelined
// latencies for coordinated omission with a model that does not fit a
// batch of requests, so its pipelined percentiles are not used here.

// GenResult is what one load run measured; the load subcommand prints it
// as one JSON line.
type GenResult struct {
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	P999us   float64 `json:"p999_us"`
	MaxUs    float64 `json:"max_us"`
	Errors   int64   `json:"errors"` // connections that failed
	FirstErr string  `json:"first_error,omitempty"`
}

// genConfig is one load run.
type genConfig struct {
	addr, path string
	conns      int
	depth      int
	duration   time.Duration
}

func cmdLoad(stdout, stderr io.Writer, args []string) error {
	fs := benchproc.NewFlags("httpbench", "load", stderr)
	var gc genConfig
	fs.StringVar(&gc.addr, "addr", "", "server address (host:port)")
	fs.StringVar(&gc.path, "path", Path, "request path")
	fs.IntVar(&gc.conns, "conns", 256, "connections")
	fs.IntVar(&gc.depth, "depth", 1, "requests per write (pipelining depth)")
	fs.DurationVar(&gc.duration, "duration", 5*time.Second, "how long to load")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if gc.addr == "" || gc.conns < 1 || gc.depth < 1 || gc.duration <= 0 {
		return errors.New("load: need -addr, -conns ≥ 1, -depth ≥ 1 and a positive -duration")
	}
	r, err := generate(context.Background(), gc)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(r)
}

// generate loads gc.addr from gc.conns connections for gc.duration. The
// connections are all open before the clock starts.
func generate(ctx context.Context, gc genConfig) (GenResult, error) {
	one := "GET " + gc.path + " HTTP/1.1\r\nHost: " + gc.addr + "\r\nAccept: " + acceptHeader + "\r\nConnection: " + connectionHeader + "\r\n\r\n"
	batch := bytes.Repeat([]byte(one), gc.depth)
	conns := make([]net.Conn, 0, gc.conns)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var d net.Dialer
	for range gc.conns {
		c, err := d.DialContext(ctx, "tcp", gc.addr)
		if err != nil {
			return GenResult{}, fmt.Errorf("load: dial %d of %d: %w", len(conns)+1, gc.conns, err)
		}
		conns = append(conns, c)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		lats  []uint32 // nanoseconds, capped at 4.29 s
		res   GenResult
		start = time.Now()
		end   = start.Add(gc.duration)
	)
	for _, c := range conns {
		wg.Go(func() {
			l, err := loadConn(c, batch, gc.depth, end)
			mu.Lock()
			defer mu.Unlock()
			lats = append(lats, l...)
			if err != nil {
				res.Errors++
				if res.FirstErr == "" {
					res.FirstErr = err.Error()
				}
			}
		})
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	res.Requests = int64(len(lats))
	if len(lats) > 0 {
		slices.Sort(lats)
		at := func(q float64) float64 {
			i := min(len(lats)-1, int(q*float64(len(lats))))
			return float64(lats[i]) / 1e3
		}
		res.P50us, res.P99us, res.P999us = at(0.50), at(0.99), at(0.999)
		res.MaxUs = float64(lats[len(lats)-1]) / 1e3
	}
	return res, nil
}

// loadConn writes batch (depth requests) and reads depth responses, over
// and over until end, and returns each response's latency.
func loadConn(c net.Conn, batch []byte, depth int, end time.Time) ([]uint32, error) {
	lats := make([]uint32, 0, 1<<12)
	b := make([]byte, 64<<10)
	have := 0
	c.SetDeadline(end.Add(10 * time.Second))
	for time.Now().Before(end) {
		t0 := time.Now()
		if _, err := c.Write(batch); err != nil {
			return lats, err
		}
		for left := depth; left > 0; {
			if have == len(b) {
				return lats, errors.New("a response larger than 64 KiB")
			}
			n, err := c.Read(b[have:])
			if n == 0 && err != nil {
				return lats, err
			}
			have += n
			ns := uint32(min(time.Since(t0), time.Duration(^uint32(0))))
			off := 0
			for left > 0 {
				k, err := responseLen(b[off:have])
				if err != nil {
					return lats, err
				}
				if k == 0 {
					break
				}
				off += k
				left--
				lats = append(lats, ns)
			}
			have = copy(b, b[off:have])
		}
	}
	return lats, nil
}

// responseLen returns the length of the complete 200 response with a
// Content-Length at the start of b, 0 if b holds only part of it, or an
// error for any other response.
func responseLen(b []byte) (int, error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > 8<<10 {
			return 0, errors.New("a response header larger than 8 KiB")
		}
		return 0, nil
	}
	head := b[:end+2]
	if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) {
		line, _, _ := bytes.Cut(head, []byte("\r\n"))
		return 0, fmt.Errorf("response %q, want HTTP/1.1 200", line)
	}
	cl := -1
	for line := range bytes.SplitSeq(head, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(name, []byte("Content-Length")) {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("Content-Length %q", value)
		}
		cl = n
	}
	if cl < 0 {
		return 0, errors.New("a response without Content-Length")
	}
	if total := end + 4 + cl; len(b) >= total {
		return total, nil
	}
	return 0, nil
}
