package buf

import (
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/netkit/netkit/buf/internal/leakcheck"
	"github.com/netkit/netkit/internal/rt/fpstack"
)

// A LeakLevel says which buffers are tracked for leak reports. Every leak is
// counted in Stats.Leaks whatever the level; tracked buffers are also
// reported, with the stack that allocated them and their last accesses.
type LeakLevel int32

const (
	// LeakOff tracks nothing; leaks are only counted.
	LeakOff LeakLevel = iota
	// LeakSampled tracks one get in 128 (sampleRate). It is the default:
	// a tracked get walks the stack's frame pointers where it is got and
	// where it is released (runtime.Callers off amd64) and reuses the
	// tracking record of an earlier one, so in the steady state it
	// allocates nothing and averages well under a nanosecond per get.
	LeakSampled
	// LeakAll tracks every buffer. For tests (buftest.CheckLeaks sets it)
	// and for hunting a leak; it makes every get allocate.
	LeakAll
)

// sampleRate is the share of gets LeakSampled tracks: one in sampleRate.
const sampleRate = 128

var globalLevel atomic.Int32

func init() {
	globalLevel.Store(int32(LeakSampled))
	if v, ok := os.LookupEnv("NETKIT_LEAK"); ok {
		if l, err := ParseLeakLevel(v); err == nil {
			globalLevel.Store(int32(l))
		}
	}
}

// SetLeakLevel sets the level of every allocator made without WithLeakLevel
// (Default included) and returns the previous one. It applies to buffers got
// afterwards. The initial level is LeakSampled, or the value of the
// environment variable NETKIT_LEAK (off, sampled or all) when set.
func SetLeakLevel(l LeakLevel) LeakLevel {
	if l < LeakOff || l > LeakAll {
		panic("buf: invalid leak level " + itoa(int(l)))
	}
	return LeakLevel(globalLevel.Swap(int32(l)))
}

// ParseLeakLevel parses "off", "sampled" or "all".
func ParseLeakLevel(s string) (LeakLevel, error) {
	for l := LeakOff; l <= LeakAll; l++ {
		if strings.EqualFold(s, l.String()) {
			return l, nil
		}
	}
	return 0, errors.New("buf: unknown leak level " + strconv.Quote(s) + " (want off, sampled or all)")
}

// String returns the level's name as ParseLeakLevel and the NETKIT_LEAK
// environment variable accept it ("off", "sampled" or "all"), or
// "LeakLevel(n)" for a value that is not a level.
func (l LeakLevel) String() string {
	switch l {
	case LeakOff:
		return "off"
	case LeakSampled:
		return "sampled"
	case LeakAll:
		return "all"
	}
	return "LeakLevel(" + itoa(int(l)) + ")"
}

// leakLevel returns a's leak level: one load through a pointer set when a
// was made, which Get pays on every get it does not sample.
func (a *Allocator) leakLevel() LeakLevel { return LeakLevel(a.lvl.Load()) }

// A Leak describes a tracked buffer that the GC collected without its last
// Release.
type Leak struct {
	Size    int      // capacity of the leaked buffer in bytes
	Alloc   Stack    // where it was got
	Records []Record // its last recorded accesses, oldest first
	Dropped int      // accesses recorded but not kept (see Record)
}

// A Record is one recorded access to a tracked buffer: Retain, Release
// (not the last), Slice, or Touch with its hint. A tracked buffer keeps its
// last four records; past four, the newest is always kept and each older
// one survives with a probability that halves with every new record, so a
// busy buffer costs little and its report still shows some of its past.
type Record struct {
	Op    string
	Hint  string
	Stack Stack
}

// A Stack is a call stack captured as program counters; it is symbolized
// only when printed.
type Stack []uintptr

// String formats the stack like a goroutine trace, leaving out the frames
// inside package buf at its top.
func (s Stack) String() string {
	var sb strings.Builder
	frames := runtime.CallersFrames(s)
	top := true
	for {
		f, more := frames.Next()
		if top && strings.HasPrefix(f.Function, "github.com/netkit/netkit/buf.") {
			if !more {
				break
			}
			continue
		}
		top = false
		if f.Function != "" {
			sb.WriteString("\t" + f.Function + "\n\t\t" + f.File + ":" + itoa(f.Line) + "\n")
		}
		if !more {
			break
		}
	}
	return sb.String()
}

// String formats the leak report.
func (l *Leak) String() string {
	var sb strings.Builder
	sb.WriteString("LEAK: a " + itoa(l.Size) + "-byte buf.Buffer was garbage-collected without its last Release.\nAllocated at:\n" + l.Alloc.String())
	if len(l.Records) > 0 {
		sb.WriteString("Last accesses (newest first, " + itoa(l.Dropped) + " not kept):\n")
		for i := len(l.Records) - 1; i >= 0; i-- {
			r := l.Records[i]
			sb.WriteString("#" + itoa(len(l.Records)-i) + " " + r.Op)
			if r.Hint != "" {
				sb.WriteString(" " + strconv.Quote(r.Hint))
			}
			sb.WriteString(":\n" + r.Stack.String())
		}
	}
	return sb.String()
}

var reporter atomic.Pointer[func(*Leak)]

// SetLeakReporter sets the function that receives leak reports and returns
// the previous one; nil restores the default, which writes each report to
// standard error. The function runs on the runtime's cleanup goroutine: it
// must not block for long. Buffers got while buftest.CheckLeaks runs are
// reported to that test instead.
func SetLeakReporter(f func(*Leak)) (prev func(*Leak)) {
	var p *func(*Leak)
	if f != nil {
		p = &f
	}
	if old := reporter.Swap(p); old != nil {
		prev = *old
	}
	return prev
}

func defaultReporter(l *Leak) { os.Stderr.WriteString(l.String()) }

// collected is the cleanup attached to every allocator-made header: it runs
// after the GC frees the header, folds the meta's counters in, forgets the
// meta, and reports a leak when the buffer was still live.
func collected(m *meta) {
	r := &m.a.reg
	leaked := m.load()&1 == 0
	r.mu.Lock()
	r.foldLocked(m)
	last := r.metas[len(r.metas)-1]
	r.metas[m.idx] = last
	last.idx = m.idx
	r.metas[len(r.metas)-1] = nil
	r.metas = r.metas[:len(r.metas)-1]
	if cap(r.metas) > 1024 && len(r.metas) < cap(r.metas)/4 {
		r.metas = append(make([]*meta, 0, cap(r.metas)/2), r.metas...) // give a burst's index back
	}
	r.mu.Unlock()
	if leaked {
		// Report first, then count: once Stats().Leaks reaches n, the
		// reports of those n leaks have been delivered.
		if tr := m.tr.Load(); tr != nil {
			reportLeak(m.size, tr)
		}
		r.mu.Lock()
		r.leaks++
		r.mu.Unlock()
	}
}

func reportLeak(size int, tr *tracker) {
	tr.mu.Lock()
	l := &Leak{Size: size, Alloc: append(Stack(nil), tr.alloc...), Records: append([]Record(nil), tr.records[:tr.n]...), Dropped: tr.dropped}
	tr.mu.Unlock()
	if e := tr.session; e != nil {
		// Got during a leak-checking session: the report is that
		// session's, and never the process reporter's.
		if r := l.String(); !e.s.Report(e, r) {
			leakcheck.Orphan(r)
		}
		return
	}
	f := defaultReporter
	if p := reporter.Load(); p != nil {
		f = *p
	}
	f(l)
}

const (
	maxRecords = 4
	stackDepth = 32
)

// tracker holds what is known of a tracked buffer's life. Trackers of
// pooled buffers are reused (trackers): one is dropped when its buffer is
// handed out again, and the sampled leak level then allocates nothing in
// the steady state. m and gen name the generation a tracker describes at
// the moment, so a misuse panic printed late, after the tracker went on to
// another buffer, does not show that buffer's stacks (describe).
type tracker struct {
	mu      sync.Mutex
	m       *meta
	gen     uint32
	alloc   Stack              // where the buffer was got: allocPCs[:n]
	records [maxRecords]Record // oldest first
	n       int                // records held
	total   int                // records ever made
	dropped int
	release Stack // where the last reference was dropped: releasePCs[:n]

	// Set when the buffer was handed out during a leak-checking session
	// (buftest.CheckLeaks); such a tracker is never reused.
	session *sessionEntry

	allocPCs, releasePCs [stackDepth]uintptr
}

// trackers holds dropped trackers for reuse.
var trackers sync.Pool

// newTracker returns the tracker of b, which is being handed out, and adds
// b to the active leak-checking session if there is one.
func newTracker(b *Buffer) *tracker {
	t, _ := trackers.Get().(*tracker)
	if t == nil {
		t = new(tracker)
	}
	// Locked: a stale misuse panic being printed may still look at a
	// reused tracker (describe), and must see it whole.
	t.mu.Lock()
	t.m, t.gen = b.m, b.gen
	t.alloc = t.allocPCs[:fpstack.Callers(t.allocPCs[:])]
	t.records = [maxRecords]Record{}
	t.n, t.total, t.dropped = 0, 0, 0
	t.release = nil
	t.session = nil
	if s := leakcheck.Active(); s != nil {
		t.session = &sessionEntry{s: s, hdr: weak.Make(b), m: b.m, gen: b.gen}
		s.Add(t.session)
	}
	t.mu.Unlock()
	return t
}

// dropTracker forgets the tracker of m, whose previous generation it
// described, as m is handed out again, and keeps it for reuse.
func dropTracker(m *meta) {
	t := m.tr.Load()
	if t == nil {
		return
	}
	m.tr.Store(nil)
	if t.session == nil { // a session may still ask about its entry
		trackers.Put(t)
	}
}

// A sessionEntry is a buffer handed out during a leak-checking session:
// the session, and what tells it whether the buffer was released, leaked,
// or is still reachable.
type sessionEntry struct {
	s   *leakcheck.Session
	hdr weak.Pointer[Buffer]
	m   *meta
	gen uint32
}

// Status implements leakcheck.Entry: whether the generation of the buffer
// was released, or else whether its header is still reachable. A header
// the GC found unreachable while live is a leak, which its cleanup
// reports.
func (e *sessionEntry) Status() leakcheck.Status {
	st := e.m.load()
	if uint32(st>>32) != e.gen || st&1 != 0 {
		return leakcheck.Released
	}
	if e.hdr.Value() == nil {
		return leakcheck.Leaked
	}
	return leakcheck.Reachable
}

// callers captures the stack of its caller. The frames inside package buf
// at its top are left out when it is printed (Stack.String), which is
// sturdier than counting frames through inlined calls. It walks frame
// pointers (fpstack), far cheaper per frame than runtime.Callers's PC-table
// lookups (BENCHMARKS.md has the counts): the sampled leak level captures
// two stacks per tracked get (where it was got and where released).
func callers() Stack {
	var pcs [stackDepth]uintptr
	n := fpstack.Callers(pcs[:])
	return append(Stack(nil), pcs[:n]...)
}

func (t *tracker) record(op, hint string) {
	r := Record{Op: op, Hint: hint, Stack: callers()}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total++
	if t.n < maxRecords {
		t.records[t.n] = r
		t.n++
		return
	}
	t.dropped++
	k := min(t.total-maxRecords, 30)
	if rand.Uint32()&(1<<k-1) != 0 {
		t.records[maxRecords-1] = r // replace the newest: history unchanged
		return
	}
	copy(t.records[:], t.records[1:]) // keep history, drop the oldest
	t.records[maxRecords-1] = r
}

func (t *tracker) released() {
	t.mu.Lock()
	t.release = t.releasePCs[:fpstack.Callers(t.releasePCs[:])]
	t.mu.Unlock()
}

// describe returns the stacks to append to a misuse panic of a buffer
// whose header is of generation gen.
func (m *meta) describe(gen uint32) string {
	tr := m.tr.Load()
	const untracked = "; build with -tags invariants or set buf.SetLeakLevel(buf.LeakAll) to see where it was allocated and released"
	if tr == nil || uint32(m.load()>>32) != gen {
		return untracked
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.m != m || tr.gen != gen {
		return untracked // reused for a later generation since the load
	}
	s := "\nallocated at:\n" + tr.alloc.String()
	if tr.release != nil {
		s += "released at:\n" + tr.release.String()
	}
	return s
}
