package echobench

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/netpoll"
	"github.com/lesismal/nbio"
	nbiolog "github.com/lesismal/nbio/logging"
	"github.com/netkit/netkit/internal/peers/benchproc"
	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// starters holds every echo server this binary can run, by -impl name.
// Each one writes back every byte it receives, in order, in the way its
// library's own examples do, with the library's default loop count.
var starters = map[string]benchproc.Starter{
	"net":     startNet,
	"gnet":    startGnet,
	"netpoll": startNetpoll,
	"nbio":    startNbio,
}

// registry runs the starters, netkit and net first.
var registry = benchproc.Registry{Starters: starters, First: []string{"netkit", "net"}}

// Servers lists the -impl names, netkit first when it is built in.
func Servers() []string { return registry.Names() }

// startNet is the standard library's shape: one goroutine per connection,
// reading into a 64 KiB buffer and writing back what it read.
func startNet(addr string) (*benchproc.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		conns = map[net.Conn]struct{}{}
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = struct{}{}
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				echoNetConn(c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
				c.Close()
			}()
		}
	}()
	stop := func() error {
		err := ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		return err
	}
	return &benchproc.Server{Addr: ln.Addr().String(), Stop: stop}, nil
}

func echoNetConn(c net.Conn) {
	b := make([]byte, 64<<10)
	for {
		n, err := c.Read(b)
		if n > 0 {
			if _, werr := c.Write(b[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// gnetEcho echoes in OnTraffic: take everything buffered with Next(-1),
// hand it to Write (which writes now or buffers the rest).
type gnetEcho struct {
	gnet.BuiltinEventEngine
	eng   gnet.Engine
	ready chan struct{}
}

func (h *gnetEcho) OnBoot(eng gnet.Engine) gnet.Action {
	h.eng = eng
	close(h.ready)
	return gnet.None
}

func (h *gnetEcho) OnTraffic(c gnet.Conn) gnet.Action {
	b, err := c.Next(-1)
	if err != nil {
		return gnet.Close
	}
	if _, err := c.Write(b); err != nil {
		return gnet.Close
	}
	return gnet.None
}

func startGnet(addr string) (*benchproc.Server, error) {
	h := &gnetEcho{ready: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- gnet.Run(h, "tcp://"+addr, gnet.WithLogger(stderrLog{})) }()
	select {
	case <-h.ready:
	case err := <-done:
		return nil, fmt.Errorf("gnet: %v", err)
	}
	// gnet does not report the port it bound for :0; ask the listener.
	fd, err := h.eng.Dup()
	if err != nil {
		return nil, fmt.Errorf("gnet: dup listener: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	unix.Close(fd)
	if err != nil {
		return nil, fmt.Errorf("gnet: getsockname: %w", err)
	}
	bound, err := sockaddrString(sa)
	if err != nil {
		return nil, fmt.Errorf("gnet: %w", err)
	}
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := h.eng.Stop(ctx)
		if rerr := <-done; err == nil {
			err = rerr
		}
		return err
	}
	return &benchproc.Server{Addr: bound, Stop: stop}, nil
}

// stderrLog sends gnet's log to stderr: stdout carries the "listening" line.
type stderrLog struct{}

func (stderrLog) Debugf(format string, args ...any) {}
func (stderrLog) Infof(format string, args ...any)  { logf("gnet: "+format, args...) }
func (stderrLog) Warnf(format string, args ...any)  { logf("gnet: warning: "+format, args...) }
func (stderrLog) Errorf(format string, args ...any) { logf("gnet: error: "+format, args...) }
func (stderrLog) Fatalf(format string, args ...any) {
	logf("gnet: fatal: "+format, args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, strings.TrimSuffix(format, "\n")+"\n", args...)
}

func sockaddrString(sa unix.Sockaddr) (string, error) {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return net.JoinHostPort(net.IP(a.Addr[:]).String(), strconv.Itoa(a.Port)), nil
	case *unix.SockaddrInet6:
		return net.JoinHostPort(net.IP(a.Addr[:]).String(), strconv.Itoa(a.Port)), nil
	}
	return "", fmt.Errorf("unexpected listener address %T", sa)
}

// netpollEcho is netpoll's OnRequest: read what the reader holds, copy it
// into the writer's buffer, release the input and flush.
func netpollEcho(_ context.Context, c netpoll.Connection) error {
	r, w := c.Reader(), c.Writer()
	n := r.Len()
	if n == 0 {
		return nil
	}
	in, err := r.Next(n)
	if err != nil {
		return err
	}
	out, err := w.Malloc(n)
	if err != nil {
		return err
	}
	copy(out, in)
	if err := r.Release(); err != nil {
		return err
	}
	return w.Flush()
}

func startNetpoll(addr string) (*benchproc.Server, error) {
	ln, err := netpoll.CreateListener("tcp", addr)
	if err != nil {
		return nil, err
	}
	el, err := netpoll.NewEventLoop(netpollEcho)
	if err != nil {
		ln.Close()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- el.Serve(ln) }()
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := el.Shutdown(ctx)
		<-done
		return err
	}
	return &benchproc.Server{Addr: ln.Addr().String(), Stop: stop}, nil
}

// startNbio echoes in OnData, whose Write writes now or queues a copy.
func startNbio(addr string) (*benchproc.Server, error) {
	nbiolog.Output = os.Stderr // stdout carries the "listening" line
	eng := nbio.NewEngine(nbio.Config{Network: "tcp", Addrs: []string{addr}})
	eng.OnData(func(c *nbio.Conn, data []byte) {
		if _, err := c.Write(data); err != nil {
			c.Close()
		}
	})
	if err := eng.Start(); err != nil {
		return nil, fmt.Errorf("nbio: %w", err)
	}
	if len(eng.Addrs) != 1 {
		eng.Stop()
		return nil, fmt.Errorf("nbio: %d listeners, want 1", len(eng.Addrs))
	}
	stop := func() error {
		eng.Stop()
		return nil
	}
	return &benchproc.Server{Addr: eng.Addrs[0], Stop: stop}, nil
}
