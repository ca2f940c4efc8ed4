package browser_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
)

// proc is a process as /proc shows it.
type proc struct {
	state   byte // R, S, Z (zombie: dead, not yet reaped), …
	pgrp    int
	cmdline string
}

// browserProcs returns the live (not zombie) processes of b: those in its
// process group and those whose command line names its temporary directory.
func browserProcs(t *testing.T, b *browser.Browser) map[int]proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	procs := make(map[int]proc)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err1 := os.ReadFile("/proc/" + e.Name() + "/stat")
		cmdline, err2 := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err1 != nil || err2 != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 {
			t.Fatalf("/proc/%d/stat: unexpected format %q", pid, stat)
		}
		pgrp, _ := strconv.Atoi(f[2])
		p := proc{state: f[0][0], pgrp: pgrp, cmdline: string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))}
		if p.state != 'Z' && (pgrp == b.PID() || strings.Contains(p.cmdline, b.ProfileDir())) {
			procs[pid] = p
		}
	}
	return procs
}

// waitGone waits up to 5s until b has no live process left and its
// temporary directory is gone, and fails the test if not.
func waitGone(t *testing.T, b *browser.Browser) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := browserProcs(t, b)
		_, err := os.Stat(b.ProfileDir())
		if len(left) == 0 && os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			for pid, p := range left {
				t.Errorf("process %d (state %c) left behind: %.200s", pid, p.state, p.cmdline)
			}
			if err == nil {
				t.Errorf("temporary directory %s left behind", b.ProfileDir())
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	path := browsertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	b, err := browser.Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.Open(ctx, writePage(t, t.TempDir(), "p.html", "<p>x</p>"), 200, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := browserProcs(t, b)
	if len(before) < 3 {
		// A browser, its zygote and a renderer at least: fewer means the
		// check below cannot see the browser's children.
		t.Fatalf("found %d browser processes; want at least 3 (browser, zygote, renderer)", len(before))
	}
	t.Logf("%d browser processes before Close", len(before))
	t0 := time.Now()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(t0).Round(time.Millisecond))
	waitGone(t, b)
	if err := p.Eval(ctx, "1", nil); err == nil {
		t.Error("Eval on a page of a closed browser succeeded")
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestContextCancelKillsBrowser(t *testing.T) {
	path := browsertest.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := browser.Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	opCtx, opCancel := context.WithTimeout(context.Background(), testTimeout)
	defer opCancel()
	p, err := b.Open(opCtx, writePage(t, t.TempDir(), "p.html", "<p>x</p>"), 200, 100)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	// The browser dies without Close: its processes go, and calls fail.
	deadline := time.Now().Add(5 * time.Second)
	for len(browserProcs(t, b)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d browser processes still alive 5s after the context was canceled", len(browserProcs(t, b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Eval(opCtx, "1", nil); err == nil {
		t.Error("Eval after the browser's context was canceled succeeded")
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
	waitGone(t, b)
}
