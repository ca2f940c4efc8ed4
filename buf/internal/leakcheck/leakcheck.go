// Package leakcheck accounts for the tracked buffers handed out while a
// leak-checking session (buftest.CheckLeaks) is active, so that the session
// can wait for exactly the leak reports of its own buffers instead of
// guessing when the runtime has run their cleanups.
//
// Package buf adds each tracked buffer it hands out to the active session
// and sends that buffer's leak report to the session rather than to the
// process-wide reporter. Package buftest starts and finishes sessions.
package leakcheck

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Status is what a session knows of one of its buffers.
type Status int

const (
	// Released: the buffer's last reference was dropped.
	Released Status = iota
	// Reachable: the buffer is live and something still references it.
	Reachable
	// Leaked: the GC found the buffer unreachable while it was live; its
	// cleanup reports the leak, now or soon.
	Leaked
)

// An Entry is one buffer handed out during a session.
type Entry interface {
	// Status returns the buffer's status. It must be safe to call from any
	// goroutine.
	Status() Status
}

// A Session collects the leak reports of the buffers handed out while it
// is the active session.
type Session struct {
	parent *Session // the session active before this one

	mu       sync.Mutex
	entries  []Entry        // buffers handed out; released ones are pruned
	prune    int            // len(entries) at which to prune next
	reported map[Entry]bool // entries whose reports arrived
	reports  []string       // the reports, in arrival order
	closed   bool           // Finish is done: reports go to Orphan
	arrived  chan struct{}  // signalled (non-blocking) on each report
}

var active atomic.Pointer[Session]

// Active returns the active session, or nil.
func Active() *Session { return active.Load() }

// Start makes a new session the active one and returns it. A session
// started while another is active (a subtest's CheckLeaks) takes over until
// it finishes, then the outer one is active again.
func Start() *Session {
	s := &Session{parent: active.Load(), reported: make(map[Entry]bool), prune: 1024, arrived: make(chan struct{}, 1)}
	active.Store(s)
	return s
}

// Add records a buffer handed out during s.
func (s *Session) Add(e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if len(s.entries) >= s.prune {
		// Forget released buffers so a long session holds only the live
		// ones: amortized O(1) per Add.
		live := s.entries[:0]
		for _, e := range s.entries {
			if e.Status() != Released {
				live = append(live, e)
			}
		}
		clear(s.entries[len(live):])
		s.entries = live
		s.prune = max(1024, 2*len(live))
	}
	s.entries = append(s.entries, e)
}

// BeforeReport, when set, is called at the start of every Report: a test
// hook that simulates a slow cleanup.
var BeforeReport atomic.Pointer[func()]

// Report delivers the leak report of e, a buffer added to s. It returns
// false when s has finished: the report belongs to no test any more, and
// the caller should pass it to Orphan.
func (s *Session) Report(e Entry, report string) bool {
	if f := BeforeReport.Load(); f != nil {
		(*f)()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.reported[e] = true
	s.reports = append(s.reports, report)
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	return true
}

// orphan receives reports that arrive after their session finished.
var orphan atomic.Pointer[func(string)]

// Orphan handles the report of a buffer whose session has finished: it
// writes it to standard error, marked as such, never to a test (or to
// SetOrphan's function).
func Orphan(report string) {
	if f := orphan.Load(); f != nil {
		(*f)(report)
		return
	}
	os.Stderr.WriteString("buftest: leak of a buffer got during an earlier leak-checking session:\n" + report)
}

// SetOrphan sets the function Orphan calls instead of writing to standard
// error, and returns the previous one; nil restores standard error. For
// tests.
func SetOrphan(f func(string)) (prev func(string)) {
	var p *func(string)
	if f != nil {
		p = &f
	}
	if old := orphan.Swap(p); old != nil {
		prev = *old
	}
	return prev
}

// ErrTimeout is returned by Finish when the reports of buffers known to
// have leaked did not arrive in time.
var ErrTimeout = errors.New("buftest: could not confirm in time that every buffer is accounted for")

// Finish ends s: it stops adding buffers to it, runs the garbage collector
// so that s's unreachable buffers are found, and waits until the report of
// every buffer found leaked has arrived, or until timeout. It returns the
// reports. The error wraps ErrTimeout and says how many reports are missing
// when the wait timed out. Buffers still reachable are not leaks. After
// Finish returns, no report reaches s: a late one goes to Orphan.
func (s *Session) Finish(timeout time.Duration) ([]string, error) {
	active.CompareAndSwap(s, s.parent)
	// A released buffer can sit in a sync.Pool through two collections, and
	// so can whatever a pooled object still references: collect enough
	// times that anything unreachable at the end of the test is found.
	for range 4 {
		runtime.GC()
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	timedOut := false
	for {
		s.mu.Lock()
		missing := 0
		for _, e := range s.entries {
			if !s.reported[e] && e.Status() == Leaked {
				missing++
			}
		}
		if missing == 0 || timedOut {
			s.closed = true
			reports := s.reports
			s.mu.Unlock()
			if missing > 0 {
				return reports, &timeoutError{missing: missing, timeout: timeout}
			}
			return reports, nil
		}
		s.mu.Unlock()
		select {
		case <-s.arrived:
		case <-deadline.C:
			timedOut = true
		}
	}
}

// A timeoutError is Finish's error when reports are missing: it wraps
// ErrTimeout. (It is written out rather than made by fmt.Errorf so that
// package buf, which imports this one, does not link fmt and reflect.)
type timeoutError struct {
	missing int
	timeout time.Duration
}

func (e *timeoutError) Error() string {
	return ErrTimeout.Error() + ": " + strconv.Itoa(e.missing) +
		" buffer(s) were garbage-collected without their last Release (leaked), and their reports had not arrived after " +
		e.timeout.String()
}

func (e *timeoutError) Unwrap() error { return ErrTimeout }
