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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
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
		require.GreaterOrEqual(t, len(f), 3, "/proc/%d/stat: unexpected format %q", pid, stat)
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
			assert.True(t, os.IsNotExist(err), "temporary directory %s left behind: %v", b.ProfileDir(), err)
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
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Open(ctx, writePage(t, t.TempDir(), "p.html", "<p>x</p>"), 200, 100)
	require.NoError(t, err)
	defer p.Close()
	before := browserProcs(t, b)
	// A browser, its zygote and a renderer at least: fewer means the
	// check below cannot see the browser's children.
	require.GreaterOrEqual(t, len(before), 3, "found %d browser processes; want at least 3 (browser, zygote, renderer)", len(before))
	t.Logf("%d browser processes before Close", len(before))
	t0 := time.Now()
	require.NoError(t, b.Close())
	t.Logf("Close took %v", time.Since(t0).Round(time.Millisecond))
	waitGone(t, b)
	assert.Error(t, p.Eval(ctx, "1", nil), "Eval on a page of a closed browser succeeded")
	assert.NoError(t, b.Close(), "second Close")
}

func TestContextCancelKillsBrowser(t *testing.T) {
	path := browsertest.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := browser.Start(ctx, path)
	require.NoError(t, err)
	defer b.Close()
	opCtx, opCancel := context.WithTimeout(context.Background(), testTimeout)
	defer opCancel()
	p, err := b.Open(opCtx, writePage(t, t.TempDir(), "p.html", "<p>x</p>"), 200, 100)
	require.NoError(t, err)
	cancel()
	// The browser dies without Close: its processes go, and calls fail.
	deadline := time.Now().Add(5 * time.Second)
	for len(browserProcs(t, b)) > 0 {
		require.False(t, time.Now().After(deadline), "%d browser processes still alive 5s after the context was canceled", len(browserProcs(t, b)))
		time.Sleep(20 * time.Millisecond)
	}
	assert.Error(t, p.Eval(opCtx, "1", nil), "Eval after the browser's context was canceled succeeded")
	assert.NoError(t, b.Close(), "Close after cancel")
	waitGone(t, b)
}
