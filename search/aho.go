package search

import (
	"fmt"
	"iter"
	"math"
)

// AhoCorasick is a multi-pattern searcher: the Aho-Corasick automaton of
// its patterns compiled to a DFA, so that the search does exactly one table
// load per haystack byte whatever the number of patterns.
//
// The 256 byte values are mapped to classes: one class per byte that
// occurs in some pattern (both cases of a letter share one under
// ASCIICaseInsensitive) and one class for all other bytes. The transitions
// are a flat []uint32 indexed by state*numClasses + class, and states are
// stored pre-multiplied by numClasses, so a step is one load of the class,
// one add and one load of the next state. States that end a match are
// numbered last, so the search loop tests for a match with one comparison.
// Each such state points to a chain of outputs: its own pattern (and equal
// duplicates), then the outputs of its dictionary suffix link (the longest
// proper suffix that ends a match), longest first.
//
// Each step waits for the previous step's load, so a long haystack is cut
// into four segments searched by four interleaved runs of the automaton,
// which overlap their loads; the result is exactly that of a single pass
// (see scanLanes). Find stops the lanes at the first state with outputs;
// All lets them run through whole blocks and record those states, so that
// the lanes still pay when matches are a few hundred bytes apart (see
// acEvents).
//
// Memory: the automaton has at most one state per pattern byte plus the
// root, and each state costs 4·numClasses bytes of transitions plus 8
// bytes (depth and output chain head); each pattern adds a 12-byte output.
// Without shared prefixes a pattern of n bytes thus costs
// n·(4·numClasses+8)+12 bytes; a prefix shared with an earlier pattern
// costs nothing. BenchmarkSetBuild reports the bytes per pattern of
// typical sets (B/pattern): the number of classes dominates, so patterns
// over all 256 byte values cost several times what lowercase words do.
// NewAhoCorasick panics if the table would need more than 2³² entries, or
// if a pattern is empty.
//
// An AhoCorasick is immutable once built and safe for concurrent use.
// Its Find, All and Matcher behave as those of Set, without the prefilter.
type AhoCorasick struct {
	trans    []uint32 // pre-multiplied next state, by state*stride + class
	classes  [256]uint8
	stride   uint32   // number of classes
	minMatch uint32   // pre-multiplied id of the first state with outputs
	depth    []int32  // by state index: length of the state's prefix
	head     []uint32 // by state index: 1 + index in outs of the first output, or 0
	outs     []acOut
	n        int
	kind     matchKind
	fold     bool
	maxLen   int // length of the longest pattern
}

// acOut is one output of a state: the pattern that ends there, its length,
// and 1 + the index of the next (shorter) output, or 0.
type acOut struct {
	pat  int32
	len  int32
	next uint32
}

// NewAhoCorasick builds the automaton of patterns. The match kind is
// LeftmostFirst unless an option says otherwise. It panics if a pattern is
// empty. Building takes time proportional to the number of states times the
// number of byte classes, and writes each entry of the table once; besides
// the automaton it allocates about 16 bytes per pattern byte and 12 per
// state, garbage once it returns.
func NewAhoCorasick(patterns [][]byte, opts ...SetOption) *AhoCorasick {
	var cfg setConfig
	for _, o := range opts {
		o(&cfg)
	}
	a := &AhoCorasick{n: len(patterns), kind: cfg.kind, fold: cfg.fold}
	total := 0
	var used [256]bool // bytes that occur in patterns
	for i, p := range patterns {
		if len(p) == 0 {
			panic(fmt.Sprintf("search: pattern %d is empty", i))
		}
		if len(p) > math.MaxInt32 || len(patterns) > math.MaxInt32 {
			panic("search: too many patterns")
		}
		total += len(p)
		a.maxLen = max(a.maxLen, len(p))
		for _, c := range p {
			used[c] = true
		}
	}

	// Byte classes.
	if cfg.fold {
		for c := 'A'; c <= 'Z'; c++ {
			used[c+'a'-'A'] = used[c+'a'-'A'] || used[c]
			used[c] = false
		}
	}
	nc := 0
	for c := range 256 {
		if used[c] {
			a.classes[c] = uint8(nc)
			nc++
		}
	}
	if nc < 256 {
		for c := range 256 {
			if !used[c] {
				a.classes[c] = uint8(nc)
			}
		}
		nc++
	}
	if cfg.fold {
		for c := 'A'; c <= 'Z'; c++ {
			a.classes[c] = a.classes[c+'a'-'A']
		}
	}
	if uint64(total)+1 > math.MaxUint32 {
		panic("search: too many patterns for an AhoCorasick automaton")
	}
	nodes, dup := newACTrie(patterns, &a.classes, total)
	if uint64(len(nodes))*uint64(nc) > math.MaxUint32 {
		panic("search: too many patterns for an AhoCorasick automaton")
	}
	a.stride = uint32(nc)
	a.compile(nodes, dup)
	return a
}

// acNode is a state of the trie of the patterns, from which compile builds
// the DFA. The children of a state are a list linked by next.
type acNode struct {
	child uint32 // first child, or 0 (the root is nobody's child)
	next  uint32 // next sibling, or 0
	term  int32  // first pattern that ends here, or -1
	class uint8  // class of the byte that leads here from the parent
}

// newACTrie returns the trie of patterns over classes, root first, and by
// pattern the next equal pattern, or -1. Each pattern byte looks its class
// up in the list of the state's children (the root's are indexed by
// class): at most numClasses comparisons, and in practice few, since only
// the states near the root have many children.
func newACTrie(patterns [][]byte, classes *[256]uint8, total int) ([]acNode, []int32) {
	nodes := make([]acNode, 1, total+1) // an upper bound: one state per byte
	nodes[0].term = -1
	var root [256]uint32 // by class: child of the root, or 0
	dup := make([]int32, len(patterns))
	// In reverse order, so that pushing each pattern on the front of its
	// state's list leaves equal patterns in order.
	for i := len(patterns) - 1; i >= 0; i-- {
		p := patterns[i]
		c := classes[p[0]]
		s := root[c]
		if s == 0 {
			s = uint32(len(nodes))
			root[c] = s
			nodes = append(nodes, acNode{next: nodes[0].child, term: -1, class: c})
			nodes[0].child = s
		}
		for _, b := range p[1:] {
			c := classes[b]
			v := nodes[s].child
			for v != 0 && nodes[v].class != c {
				v = nodes[v].next
			}
			if v == 0 {
				v = uint32(len(nodes))
				nodes = append(nodes, acNode{next: nodes[s].child, term: -1, class: c})
				nodes[s].child = v
			}
			s = v
		}
		dup[i] = nodes[s].term
		nodes[s].term = int32(i)
	}
	return nodes, dup
}

// compile fills the automaton from the trie nodes in one breadth-first
// pass, which writes each row of the table once. A state's row is a copy
// of its failure state's row (complete, since that state is shallower)
// with its children patched in; before the patch, the entry of a child's
// class is the child's failure state. Whether a state has outputs is thus
// known when its parent's row is written, so each state gets its final id
// then: states without outputs count up from 1 after the root, states with
// outputs count down from the last, and the two meet at minMatch.
func (a *AhoCorasick) compile(nodes []acNode, dup []int32) {
	n, stride := uint32(len(nodes)), a.stride
	a.trans = make([]uint32, n*stride)
	a.depth = make([]int32, n)
	a.head = make([]uint32, n)
	a.outs = make([]acOut, 0, len(dup))
	type item struct {
		child uint32 // the state's first child in nodes, or 0
		id    uint32 // pre-multiplied state id
		fail  uint32 // pre-multiplied id of the failure state
	}
	// The queue starts with the root, whose row stays zero until patched.
	queue := make([]item, 1, n)
	queue[0].child = nodes[0].child
	lo, hi := uint32(1), n // next id without outputs; last id given with outputs
	for qi := 0; qi < len(queue); qi++ {
		u := queue[qi]
		row := a.trans[u.id : u.id+stride]
		if u.id != 0 {
			copy(row, a.trans[u.fail:u.fail+stride])
		}
		d := a.depth[u.id/stride] + 1
		for v := u.child; v != 0; v = nodes[v].next {
			nd := &nodes[v]
			f := row[nd.class]
			// The child's own outputs, in pattern order, then those of
			// its failure state.
			h := a.head[f/stride]
			if nd.term >= 0 {
				first := len(a.outs)
				for p := nd.term; p >= 0; p = dup[p] {
					a.outs = append(a.outs, acOut{pat: p, len: d, next: uint32(len(a.outs) + 2)})
				}
				a.outs[len(a.outs)-1].next = h
				h = uint32(first + 1)
			}
			var id uint32
			if h != 0 {
				hi--
				id = hi
			} else {
				id = lo
				lo++
			}
			a.depth[id], a.head[id] = d, h
			row[nd.class] = id * stride
			queue = append(queue, item{child: nd.child, id: id * stride, fail: f})
		}
	}
	a.minMatch = lo * stride
}

// memSize returns the bytes held by the automaton's slices: its
// transitions, per-state depths and output chain heads, and outputs.
func (a *AhoCorasick) memSize() int {
	return 4*cap(a.trans) + 4*cap(a.depth) + 4*cap(a.head) + 12*cap(a.outs)
}

// Len returns the number of patterns.
func (a *AhoCorasick) Len() int { return a.n }

// MaxLen returns the length of the longest pattern (0 for no patterns): a
// match starts at most MaxLen-1 bytes before any offset it covers, which is
// how far a caller searching pieces of a stream must look back.
func (a *AhoCorasick) MaxLen() int { return a.maxLen }

// Find returns the first match in haystack for the automaton's match kind,
// as Set.Find does.
func (a *AhoCorasick) Find(haystack []byte) (Match, bool) { return a.find(haystack, nil) }

// All returns the successive matches in haystack, as Set.All does.
func (a *AhoCorasick) All(haystack []byte) iter.Seq[Match] {
	return func(yield func(Match) bool) { a.all(haystack, nil, yield) }
}

// Matcher returns a Matcher that reports every occurrence of every pattern
// whatever the match kind, as Set.Matcher does.
func (a *AhoCorasick) Matcher() Matcher { return &acMatcher{a: a} }

// scan runs the automaton from state s over h[i:] and returns the state
// and offset just after the first byte that leads to a state with outputs,
// or i == -1 when there is none. pf, when not nil, skips the bytes that
// cannot begin a match while the automaton is at the root, until m says it
// does not pay; without it the automaton steps through every byte, in
// interleaved lanes when the haystack is long (see scanLanes).
func (a *AhoCorasick) scan(h []byte, i int, s uint32, pf *prefilter, m *pfState) (uint32, int) {
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	if pf != nil && !m.off {
		for i < len(h) {
			if s == 0 {
				j := pf.next(h, i, m)
				m.calls++
				m.skipped += j - i
				if i = j; i == len(h) {
					return s, -1
				}
				if m.calls%64 == 0 && m.skipped < pfMinSkip*m.calls {
					m.off = true
					break
				}
			}
			s = trans[s+uint32(cls[h[i]])]
			i++
			if s >= minMatch {
				return s, i
			}
		}
	}
	if !m.lanesOff && len(h)-i >= lanes*(a.maxLen+laneMin) {
		return a.scanLanes(h, i, s, m)
	}
	return a.step(h, i, len(h), s)
}

// step runs the automaton from state s over h[i:end], as scan does
// without a prefilter, one byte after the other.
func (a *AhoCorasick) step(h []byte, i, end int, s uint32) (uint32, int) {
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	for ; i < end; i++ {
		s = trans[s+uint32(cls[h[i]])]
		if s >= minMatch {
			return s, i + 1
		}
	}
	return s, -1
}

// Interleaved lanes: scanLanes cuts h[i:] into lanes segments of equal
// length and runs one automaton over each in the same loop. A step is a
// load that depends on the previous step's load, so one automaton waits on
// memory latency at every byte; four independent ones overlap their loads.
//
// Each lane but the first starts at the root maxLen-1 bytes before its
// segment (its warm-up): the automaton's state after a byte depends only on
// the last maxLen bytes read (no state is deeper than the longest
// pattern), so after its segment's first byte, the lane is in exactly the
// state a single pass would be in. When a lane reaches a
// state with outputs, the lanes before it are finished one after the other
// (their own matches come first); the lanes themselves are only an
// acceleration of the single pass, whose answer scanLanes returns. The
// segments are at most laneMax bytes long, so that finishing the lanes
// before a match costs at most (lanes-1)·laneMax single steps, and the work
// of the lanes past the match, which the next call repeats, at most one
// block of lanes·laneMax bytes.
//
// The warm-ups cost (lanes-1)·(maxLen-1) steps per block. When calls
// return after short distances (dense matches), that overhead and the
// finishing are not repaid, and m turns the lanes off for the rest of the
// search.
const (
	lanes        = 4
	laneMin      = 256  // minimum segment length beyond the warm-up
	laneMax      = 4096 // maximum segment length: bounds the finishing work
	laneMinAvg   = 1024 // minimum average advance per call to keep lanes on
	laneMinCalls = 8    // calls before the average is judged
)

func (a *AhoCorasick) scanLanes(h []byte, i int, s uint32, m *pfState) (uint32, int) {
	from, e := i, -1
	for w := a.maxLen; len(h)-i >= lanes*(w+laneMin); {
		n := min((len(h)-i)/lanes, max(m.laneLen(), w))
		if s, e = a.block(h, i, n, s); e >= 0 {
			break
		}
		i += lanes * n
	}
	if e < 0 {
		s, e = a.step(h, i, len(h), s)
	}
	m.laneCalls++
	if e >= 0 {
		m.laneAdvance += e - from
	} else {
		m.laneAdvance += len(h) - from
	}
	if m.laneCalls >= laneMinCalls && m.laneAdvance < laneMinAvg*m.laneCalls {
		m.lanesOff = true
	}
	return s, e
}

// laneLen returns the segment length for the next block: a quarter of the
// average distance between the matches seen so far, within [laneMin,
// laneMax], so that finishing the lanes before a match costs a fraction of
// what the lanes saved since the previous one.
func (m *pfState) laneLen() int {
	if m.laneCalls == 0 {
		return laneMax
	}
	return min(laneMax, max(laneMin, m.laneAdvance/m.laneCalls/4))
}

// block runs the lanes over the segments of n bytes that begin at i,
// i+n, …, the first lane from state s. It returns what step over
// h[i:i+lanes*n] would: the state and offset after the first byte that
// leads to outputs, or, when there is none, the state after the last
// segment and -1.
func (a *AhoCorasick) block(h []byte, i, n int, s uint32) (uint32, int) {
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	w := a.maxLen - 1
	var start [lanes]int
	for k := range start {
		start[k] = i + k*n
	}
	// Warm-ups, interleaved; matches found there belong to the lane before.
	s1, s2, s3 := uint32(0), uint32(0), uint32(0)
	{
		w1, w2, w3 := h[start[1]-w:start[1]], h[start[2]-w:start[2]], h[start[3]-w:start[3]]
		w2, w3 = w2[:len(w1)], w3[:len(w1)]
		for t := range w1 {
			s1 = trans[s1+uint32(cls[w1[t]])]
			s2 = trans[s2+uint32(cls[w2[t]])]
			s3 = trans[s3+uint32(cls[w3[t]])]
		}
	}
	s0 := s
	h0, h1, h2, h3 := h[start[0]:start[0]+n], h[start[1]:start[1]+n], h[start[2]:start[2]+n], h[start[3]:start[3]+n]
	h1, h2, h3 = h1[:len(h0)], h2[:len(h0)], h3[:len(h0)]
	t := 0
	for ; t < len(h0); t++ {
		s0 = trans[s0+uint32(cls[h0[t]])]
		s1 = trans[s1+uint32(cls[h1[t]])]
		s2 = trans[s2+uint32(cls[h2[t]])]
		s3 = trans[s3+uint32(cls[h3[t]])]
		if s0 >= minMatch || s1 >= minMatch || s2 >= minMatch || s3 >= minMatch {
			break
		}
	}
	if t == len(h0) {
		return s3, -1
	}
	// Each lane is clean before its offset t; finish the lanes in turn.
	state := [lanes]uint32{s0, s1, s2, s3}
	for k := range lanes {
		if state[k] >= minMatch {
			return state[k], start[k] + t + 1
		}
		if s, e := a.step(h, start[k]+t+1, start[k]+n, state[k]); e >= 0 {
			return s, e
		}
	}
	panic("unreachable: a lane stopped without a match")
}

// leftmost returns the leftmost-first or leftmost-longest match in h[at:]:
// the automaton runs from the root at at to its first state with outputs,
// and extend takes it from there.
func (a *AhoCorasick) leftmost(h []byte, at int, pf *prefilter, m *pfState) (Match, bool) {
	s, i := a.scan(h, at, 0, pf, m)
	if i < 0 {
		return Match{}, false
	}
	return a.extend(h, i, s), true
}

// extend returns the leftmost match of the pass that started from the root
// at some offset and first reached a state with outputs, s, after h[:i].
// The automaton keeps running while the prefix it tracks (the longest live
// candidate) starts at or before the best start, since a match starting
// there may still be earlier or preferred.
func (a *AhoCorasick) extend(h []byte, i int, s uint32) Match {
	id := s / a.stride
	o := &a.outs[a.head[id]-1]
	start, end, pat := i-int(o.len), i, o.pat
	longest := a.kind == leftmostLongest
	trans, cls := a.trans, &a.classes
	for i < len(h) && i-int(a.depth[id]) <= start {
		s = trans[s+uint32(cls[h[i]])]
		i++
		id = s / a.stride
		if s < a.minMatch {
			continue
		}
		o = &a.outs[a.head[id]-1]
		st := i - int(o.len)
		if st < start || st == start && (longest || o.pat < pat) {
			start, end, pat = st, i, o.pat
		}
	}
	return Match{Start: int64(start), End: int64(end), Pattern: int(pat)}
}

func (a *AhoCorasick) find(h []byte, pf *prefilter) (Match, bool) {
	var m pfState
	m.next = pfUnknown
	if pf.teddyBuffered(h) {
		m.tBuf = new([64]uint64) // on the stack: nothing keeps m
	}
	if a.kind != overlapping {
		return a.leftmost(h, 0, pf, &m)
	}
	s, i := a.scan(h, 0, 0, pf, &m)
	if i < 0 {
		return Match{}, false
	}
	o := &a.outs[a.head[s/a.stride]-1]
	return Match{Start: int64(i - int(o.len)), End: int64(i), Pattern: int(o.pat)}, true
}

func (a *AhoCorasick) all(h []byte, pf *prefilter, yield func(Match) bool) {
	if pf == nil && len(h) >= lanes*(a.maxLen+laneMin) {
		// Long enough for the lanes: they record the matches of whole
		// blocks (see acEvents).
		if a.kind == overlapping {
			a.allOverlapping(h, yield)
		} else {
			a.allLeftmost(h, yield)
		}
		return
	}
	a.allScan(h, pf, yield)
}

// allScan is all by successive calls of scan, which stop at each state with
// outputs: with a prefilter, or on short haystacks.
func (a *AhoCorasick) allScan(h []byte, pf *prefilter, yield func(Match) bool) {
	var m pfState
	m.next = pfUnknown
	if pf.teddyBuffered(h) {
		m.tBuf = new([64]uint64) // on the stack: nothing keeps m
	}
	if a.kind != overlapping {
		for at := 0; at < len(h); {
			match, ok := a.leftmost(h, at, pf, &m)
			if !ok || !yield(match) {
				return
			}
			at = int(match.End)
		}
		return
	}
	var s uint32
	for i := 0; ; {
		if s, i = a.scan(h, i, s, pf, &m); i < 0 {
			return
		}
		for e := a.head[s/a.stride]; e != 0; {
			o := &a.outs[e-1]
			if !yield(Match{Start: int64(i - int(o.len)), End: int64(i), Pattern: int(o.pat)}) {
				return
			}
			e = o.next
		}
	}
}

// acMatcher reports every occurrence of every pattern in a stream. The
// automaton state carries the matches that straddle chunks.
type acMatcher struct {
	a     *AhoCorasick
	pf    *prefilter
	chunk []byte
	i     int    // offset in chunk of the next byte to scan
	s     uint32 // automaton state after chunk[:i]
	e     uint32 // 1 + index of the next output to report at i, or 0
	base  int64  // stream offset of chunk[0]
	memo  pfState
	buf   [64]uint64 // memo.tBuf, for long chunks
}

func (m *acMatcher) Feed(chunk []byte) {
	m.base += int64(len(m.chunk))
	m.chunk, m.i, m.e = chunk, 0, 0
	m.memo = pfState{next: pfUnknown}
	if m.pf.teddyBuffered(chunk) {
		m.memo.tBuf = &m.buf
	}
}

func (m *acMatcher) Next() (Match, bool) {
	if m.e == 0 {
		s, i := m.a.scan(m.chunk, m.i, m.s, m.pf, &m.memo)
		if i < 0 {
			m.s, m.i = s, len(m.chunk)
			return Match{}, false
		}
		m.s, m.i, m.e = s, i, m.a.head[s/m.a.stride]
	}
	o := &m.a.outs[m.e-1]
	m.e = o.next
	end := m.base + int64(m.i)
	return Match{Start: end - int64(o.len), End: end, Pattern: int(o.pat)}, true
}

func (m *acMatcher) Reset() { *m = acMatcher{a: m.a, pf: m.pf} }
