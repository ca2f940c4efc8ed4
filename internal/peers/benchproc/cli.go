package benchproc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
)

// A Server is a running benchmark server: its bound address and a way to
// stop it.
type Server struct {
	Addr string
	Stop func() error
}

// A Starter starts a server listening on addr.
type Starter func(addr string) (*Server, error)

// Registry holds every server a benchmark binary can run, by -impl name.
type Registry struct {
	Starters map[string]Starter
	// First are the names listed first, in this order; the others follow
	// in name order.
	First []string
}

// Names lists the -impl names, First first.
func (r *Registry) Names() []string {
	var names []string
	for n := range r.Starters {
		names = append(names, n)
	}
	rank := func(n string) int {
		if i := slices.Index(r.First, n); i >= 0 {
			return i
		}
		return len(r.First)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return names
}

// Start starts the server impl on addr.
func (r *Registry) Start(impl, addr string) (*Server, error) {
	start, ok := r.Starters[impl]
	if !ok {
		return nil, fmt.Errorf("unknown -impl %q (have %v)", impl, r.Names())
	}
	return start(addr)
}

// Serve runs one server until stop is closed, after printing
// "listening <addr>" as its only line on stdout.
func (r *Registry) Serve(stdout io.Writer, impl, addr string, stop <-chan struct{}) error {
	srv, err := r.Start(impl, addr)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "listening %s\n", srv.Addr); err != nil {
		srv.Stop()
		return err
	}
	<-stop
	if err := srv.Stop(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%s: stop: %w", impl, err)
	}
	return nil
}

// ServeCmd is prog's serve subcommand (flags -impl, by default defImpl,
// -addr and -cpuprofile): Serve until SIGINT or SIGTERM, or, when
// watchStdin is set, until stdin closes (the runner exiting, however it
// exits).
func (r *Registry) ServeCmd(stdout, stderr io.Writer, prog string, args []string, defImpl string, watchStdin bool) error {
	fs := NewFlags(prog, "serve", stderr)
	impl := fs.String("impl", defImpl, "server: "+strings.Join(r.Names(), ", "))
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	cpuprofile := fs.String("cpuprofile", "", "write the server's CPU profile here (until it stops)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if watchStdin {
		go func() {
			// Stdin closing (the runner exiting, however it exits) stops the server too.
			io.Copy(io.Discard, os.Stdin)
			sigs <- syscall.SIGHUP
		}()
	}
	go func() {
		<-sigs
		close(stop)
	}()
	return r.Serve(stdout, *impl, *addr, stop)
}

// RaiseNofile lifts the soft open-file limit to the hard one. Go's runtime
// already does so at start-up (since Go 1.19), but restores the old soft
// limit in processes it executes, so every benchmark process makes sure.
func RaiseNofile(stderr io.Writer, prog string) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		fmt.Fprintf(stderr, "%s: getrlimit: %v\n", prog, err)
		return
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			fmt.Fprintf(stderr, "%s: setrlimit: %v\n", prog, err)
		}
	}
}

// NewFlags is the flag set of prog's subcommand name, writing to stderr.
func NewFlags(prog, name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(prog+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Pick returns the items of all named in the comma-separated list, in
// its order, blanks skipped, or an error for the first name that is none
// of theirs ("run: unknown <what> ...").
func Pick[T any](what, list string, all []T, name func(T) string) ([]T, error) {
	have := NamesOf(all, name)
	var picked []T
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		i := slices.Index(have, s)
		if i < 0 {
			return nil, fmt.Errorf("run: unknown %s %q (have %v)", what, s, have)
		}
		picked = append(picked, all[i])
	}
	return picked, nil
}

// NamesOf lists the names of all.
func NamesOf[T any](all []T, name func(T) string) []string {
	var names []string
	for _, x := range all {
		names = append(names, name(x))
	}
	return names
}

// Split is Pick for a list of names.
func Split(what, list string, have []string) ([]string, error) {
	return Pick(what, list, have, func(s string) string { return s })
}

// Interleave calls measure for every scenario, run (1 to runs) and
// server: run r of every server before run r+1 of any, the server order
// rotated per run, so that drift and noise hit all alike. It stops at the
// first error, and when ctx ends (name names a scenario in its errors).
func Interleave[S any](ctx context.Context, scenarios []S, name func(S) string, servers []string, runs int, measure func(sc S, srv string, run int) error) error {
	for _, sc := range scenarios {
		for r := 1; r <= runs; r++ {
			for i := range servers {
				srv := servers[(i+r-1)%len(servers)]
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("run: interrupted: %w", err)
				}
				if err := measure(sc, srv, r); err != nil {
					if ctx.Err() != nil {
						return fmt.Errorf("run: interrupted during %s, %s, run %d; every child killed", name(sc), srv, r)
					}
					return fmt.Errorf("run: %s, %s, run %d: %w", name(sc), srv, r, err)
				}
			}
		}
	}
	return nil
}

// WriteJSON writes v to path as indented JSON.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Median is the median of xs, NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ZeroNaN sets every NaN or infinite value to 0 (JSON has no NaN).
func ZeroNaN(ps ...*float64) {
	for _, p := range ps {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			*p = 0
		}
	}
}

// Ratio shows x as "1.23x", and "–" where it does not exist (NaN,
// infinite or 0).
func Ratio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", x)
}
