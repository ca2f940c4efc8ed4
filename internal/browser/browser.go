// Package browser drives a headless Chromium (or Chrome) over the DevTools
// protocol, for tests that must see a generated HTML page the way a user's
// browser does: that it loads without errors, what its DOM holds, how long it
// takes to load, and what it looks like.
//
// The browser is started with --remote-debugging-pipe and spoken to through
// two pipes (the child's fds 3 and 4), so no port is opened and no websocket
// library is needed. It runs with --headless, --no-sandbox (tests often run
// as root, where the sandbox refuses to start), --disable-gpu, a temporary
// profile directory, and a host resolver that resolves no names but
// localhost, 127.0.0.1 and ::1, so a page cannot reach the network: a
// reference to an external URL fails to load and shows up in Page.Errors,
// while a test's own httptest server stays reachable.
//
// A Browser is safe for use by several goroutines; so is a Page.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Browser is a running headless Chromium. Start one with Start and always
// Close it.
type Browser struct {
	cmd    *exec.Cmd
	conn   *conn
	dir    string        // temporary profile directory, removed by Close
	toBr   *os.File      // our end of the pipe the browser reads (its fd 3)
	fromBr *os.File      // our end of the pipe the browser writes (its fd 4)
	log    *os.File      // the browser's stdout and stderr
	exited chan struct{} // closed once the process has been waited for

	stopWatch func() bool // stops the context watcher started by Start

	closeOnce sync.Once
	closeErr  error
}

// startTimeout bounds how long Start waits for the browser's first answer
// when ctx has no earlier deadline.
const startTimeout = 30 * time.Second

// exitTimeout bounds how long Close waits for the killed process to exit.
const exitTimeout = 10 * time.Second

// Start starts the browser binary at path (see Find) and waits until it
// answers over the protocol. ctx bounds the browser's whole life: when ctx
// is done the browser is killed, and calls on it and its pages fail. The
// caller must call Close, even after ctx is done, to remove the temporary
// profile directory.
func Start(ctx context.Context, path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "netkit-browser-")
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	b := &Browser{dir: dir, exited: make(chan struct{})}
	if err := b.start(ctx, path); err != nil {
		b.Close()
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := b.conn.call(callCtx, "", "Browser.getVersion", nil, nil); err != nil {
		err = fmt.Errorf("browser: starting %s: %w%s", path, err, b.logTail())
		b.Close()
		return nil, err
	}
	return b, nil
}

// start launches the process and connects to it.
func (b *Browser) start(ctx context.Context, path string) error {
	var err error
	if b.log, err = os.Create(filepath.Join(b.dir, "browser.log")); err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	brIn, toBr, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	b.toBr = toBr
	fromBr, brOut, err := os.Pipe()
	if err != nil {
		brIn.Close()
		return fmt.Errorf("browser: %w", err)
	}
	b.fromBr = fromBr

	b.cmd = exec.Command(path,
		"--headless",
		"--no-sandbox",
		"--disable-gpu",
		"--user-data-dir="+filepath.Join(b.dir, "profile"),
		"--remote-debugging-pipe",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-extensions",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-dev-shm-usage",
		"--hide-scrollbars",
		"--mute-audio",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]",
		"about:blank",
	)
	b.cmd.ExtraFiles = []*os.File{brIn, brOut} // the browser's fds 3 and 4
	b.cmd.Stdout = b.log
	b.cmd.Stderr = b.log
	b.cmd.Dir = b.dir
	// Chromium's crash handler keeps its database under the user's config
	// directory, whatever --user-data-dir says, and other parts write under
	// the cache directory: point both into the temporary directory.
	b.cmd.Env = append(os.Environ(),
		"HOME="+b.dir,
		"XDG_CONFIG_HOME="+filepath.Join(b.dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(b.dir, "cache"),
	)
	setProcAttr(b.cmd)
	err = b.cmd.Start()
	brIn.Close() // the child holds its own copies
	brOut.Close()
	if err != nil {
		b.cmd = nil
		return fmt.Errorf("browser: %w", err)
	}
	go func() {
		b.cmd.Wait()
		close(b.exited)
	}()
	b.stopWatch = context.AfterFunc(ctx, b.kill)
	b.conn = newConn(fromBr, toBr)
	return nil
}

// kill kills the browser and every process it started.
func (b *Browser) kill() {
	killTree(b.cmd)
	killMentioning(b.dir)
}

// Close kills the browser and every process it started, waits for it to
// exit, and removes its temporary profile directory. It is safe to call more
// than once; later calls return the first call's result.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() { b.closeErr = b.close() })
	return b.closeErr
}

func (b *Browser) close() error {
	var errs []error
	if b.stopWatch != nil {
		b.stopWatch()
	}
	if b.cmd != nil {
		b.kill()
		select {
		case <-b.exited:
		case <-time.After(exitTimeout):
			errs = append(errs, fmt.Errorf("browser: process %d did not exit within %v of being killed", b.cmd.Process.Pid, exitTimeout))
		}
	}
	for _, f := range []*os.File{b.toBr, b.fromBr, b.log} {
		if f != nil {
			f.Close()
		}
	}
	if b.conn != nil {
		<-b.conn.done // the read loop ends with our end of the pipe closed
	}
	// A dying child may still create a file after RemoveAll read its
	// directory: try a few times.
	var err error
	for range 5 {
		if err = os.RemoveAll(b.dir); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("browser: %w", err))
	}
	return errors.Join(errs...)
}

// logTail returns the end of the browser's output, to explain a failed start.
func (b *Browser) logTail() string {
	data, err := os.ReadFile(filepath.Join(b.dir, "browser.log"))
	if err != nil || len(data) == 0 {
		return ""
	}
	const max = 2000
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return "\nbrowser output (end):\n" + strings.TrimSpace(string(data))
}
