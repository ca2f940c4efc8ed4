package hpack

// entryOverhead is what RFC 7541 §4.1 adds to every entry's size: an entry
// costs len(name) + len(value) + 32.
const entryOverhead = 32

// DefaultMaxTableSize is the dynamic table size both endpoints start with
// (SETTINGS_HEADER_TABLE_SIZE's initial value, RFC 9113 §6.5.2).
const DefaultMaxTableSize = 4096

// An entry locates one dynamic table entry's name and value in the arena:
// the name at off, the value right after it.
type entry struct {
	off, nlen, vlen uint32
	// clean: a validating decoder found the name and value free of
	// characters RFC 9113 §8.2.1 forbids, so it need not look again.
	clean bool
}

// A table is the dynamic table (RFC 7541 §2.3.2): a ring of entries whose
// bytes lie in one arena, so adding an entry allocates nothing.
//
// An entry's bytes are contiguous: one that would run past the arena's end
// starts again at 0. The arena grows as entries need it, to at most twice
// the maximum size, and at that size the next entry always fits between
// the newest and the oldest without overwriting a live one: the live
// entries span at most the bytes they hold plus the gap left at the end,
// both below the maximum size. A table whose maximum is large but whose
// entries are few stays small.
type table struct {
	arena []byte
	ents  []entry // ring; ents[first] is the oldest
	first int
	n     int
	size  int // RFC 7541 §4.1 size of the live entries
	max   int // the current maximum size
	next  int // arena offset right after the newest entry's bytes
	added uint64
}

// reset empties the table and sets its maximum size, keeping its memory;
// ents is the ring to use if the table has none yet (its owner's inline
// array).
func (t *table) reset(max int, ents []entry) {
	if t.ents == nil {
		t.ents = ents
	}
	t.first, t.n, t.size, t.next = 0, 0, 0, 0
	t.max = max
}

// at returns entry i, from 1 (the newest) to t.n.
func (t *table) at(i int) *entry {
	p := t.first + t.n - i
	if p >= len(t.ents) {
		p -= len(t.ents)
	}
	return &t.ents[p]
}

func (t *table) name(e *entry) []byte {
	return t.arena[e.off : e.off+e.nlen : e.off+e.nlen]
}

func (t *table) value(e *entry) []byte {
	end := e.off + e.nlen + e.vlen
	return t.arena[e.off+e.nlen : end : end]
}

// evictTo evicts the oldest entries until the size is at most limit.
func (t *table) evictTo(limit int) {
	for t.size > limit && t.n > 0 {
		e := &t.ents[t.first]
		t.size -= int(e.nlen+e.vlen) + entryOverhead
		t.first++
		if t.first == len(t.ents) {
			t.first = 0
		}
		t.n--
	}
	if t.n == 0 {
		t.first, t.next = 0, 0
	}
}

// setMax sets the maximum size, evicting what no longer fits.
func (t *table) setMax(max int) {
	t.max = max
	t.evictTo(max)
}

// add inserts name and value as the newest entry (RFC 7541 §4.4): the
// oldest entries are evicted first, and an entry larger than the maximum
// size empties the table and is not added. name may alias the arena (an
// indexed name, possibly of an entry just evicted): copy moves it before
// the value is written after it. The decoder adds []byte, the encoder
// strings, neither converted.
func add[S string | []byte](t *table, name, value S) {
	size := len(name) + len(value) + entryOverhead
	if size > t.max {
		t.evictTo(0)
		return
	}
	t.evictTo(t.max - size)
	at := t.place(len(name), len(value))
	copy(t.arena[at:], name)
	copy(t.arena[at+len(name):], value)
}

// place records a new entry of nlen+vlen bytes, the eviction done, and
// returns where in the arena its bytes go. They go right after the
// newest entry's, or at 0 when that would run past the arena's end; if
// neither gap is free the arena grows (see table).
func (t *table) place(nlen, vlen int) int {
	l := nlen + vlen
	at, ok := t.free(l)
	if !ok {
		t.grow(l)
		at = t.next
	}
	if t.n == len(t.ents) {
		t.growRing()
	}
	p := t.first + t.n
	if p >= len(t.ents) {
		p -= len(t.ents)
	}
	t.ents[p] = entry{off: uint32(at), nlen: uint32(nlen), vlen: uint32(vlen)}
	t.n++
	t.size += l + entryOverhead
	t.next = at + l
	t.added++
	return at
}

// free finds room for l bytes without overwriting a live entry.
func (t *table) free(l int) (int, bool) {
	if t.n == 0 {
		return 0, l <= len(t.arena)
	}
	oldest := int(t.ents[t.first].off)
	if t.next > oldest { // live bytes in [oldest, next)
		if t.next+l <= len(t.arena) {
			return t.next, true
		}
		return 0, l <= oldest
	}
	// Wrapped: live bytes in [oldest, end) and [0, next).
	return t.next, t.next+l <= oldest
}

// grow moves the live entries, oldest first, to the front of a larger
// arena with room for l more bytes: twice the old size, at most twice the
// maximum table size, at which size free always succeeds.
func (t *table) grow(l int) {
	live := t.size - t.n*entryOverhead
	size := min(max(2*len(t.arena), live+l, 512), 2*t.max)
	arena := make([]byte, max(size, live+l))
	off := 0
	for i := t.n; i >= 1; i-- {
		e := t.at(i)
		k := int(e.nlen + e.vlen)
		copy(arena[off:], t.arena[e.off:int(e.off)+k])
		e.off = uint32(off)
		off += k
	}
	t.arena, t.next = arena, off
}

// growRing doubles the ring of entries (the most a table can hold is
// max/32), keeping the oldest first.
func (t *table) growRing() {
	ents := make([]entry, min(max(2*len(t.ents), 16), t.max/entryOverhead+1))
	for i := 0; i < t.n; i++ {
		ents[i] = *t.at(t.n - i)
	}
	t.ents, t.first = ents, 0
}
