package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/netkit/netkit/internal/benchrun"
)

// progress reports how far a run is: on a terminal one line rewritten in
// place (package, benchmark i/N, elapsed, estimate), otherwise a log line
// per package.
type progress struct {
	w        io.Writer
	terminal bool
	begin    time.Time
	pkgs     []benchrun.Package
	total    int // top-level benchmarks in all packages
	finished int // top-level benchmarks finished
	cur      string
	curPkg   int
	last     time.Time
	mu       sync.Mutex // held by logf
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) logf(format string, args ...any) {
	p.mu.Lock() // instruction counts log from several goroutines
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "netbench: "+format+"\n", args...)
}

func (p *progress) start(pkgs []benchrun.Package) {
	p.pkgs, p.begin = pkgs, time.Now()
	for _, pk := range pkgs {
		p.total += len(pk.Benchmarks)
	}
}

func (p *progress) pkg(i int, pk benchrun.Package) {
	if p.cur != "" {
		p.finished++
	}
	p.cur, p.curPkg = "", i
	if !p.terminal {
		p.logf("[%d/%d] %s: %d benchmarks (elapsed %s)", i+1, len(p.pkgs), pk.ImportPath, len(pk.Benchmarks), p.elapsed())
	}
	p.draw()
}

// result is called with the top-level name of every result line.
func (p *progress) result(name string) {
	if name != p.cur {
		if p.cur != "" {
			p.finished++
		}
		p.cur = name
	}
	if p.terminal && time.Since(p.last) > 100*time.Millisecond {
		p.draw()
	}
}

func (p *progress) draw() {
	if !p.terminal {
		return
	}
	p.last = time.Now()
	eta := "?"
	if p.finished > 0 {
		left := time.Duration(float64(time.Since(p.begin)) / float64(p.finished) * float64(p.total-p.finished))
		eta = left.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s %s (%d/%d)  elapsed %s  eta %s",
		p.curPkg+1, len(p.pkgs), p.pkgs[p.curPkg].ImportPath, p.cur, p.finished+1, p.total, p.elapsed(), eta)
}

func (p *progress) elapsed() time.Duration { return time.Since(p.begin).Round(time.Second) }

// stop ends the progress line of a run that failed.
func (p *progress) stop() {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K")
	}
}

// done ends the progress line of a run that succeeded, with a summary.
func (p *progress) done() {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K")
	}
	if p.total > 0 {
		fmt.Fprintf(p.w, "netbench: ran %d benchmarks in %d packages in %s\n", p.total, len(p.pkgs), p.elapsed())
	}
}
