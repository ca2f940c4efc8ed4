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
// The arena holds twice the maximum size. An entry's bytes are contiguous:
// one that would run past the arena's end starts again at 0. The live
// entries then span at most the bytes they hold plus the gap left at the
// end, and both are below the maximum size, so the next entry always fits
// between the newest and the oldest without overwriting a live one.
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

// init points the table at the caller's storage (the owner's inline
// arrays), used while the maximum size allows.
func (t *table) init(max int, arena []byte, ents []entry) {
	*t = table{arena: arena, ents: ents, max: max}
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
// indexed name); it is copied before anything overwrites it.
func (t *table) add(name, value []byte) {
	size := len(name) + len(value) + entryOverhead
	if size > t.max {
		t.evictTo(0)
		return
	}
	t.evictTo(t.max - size)
	t.reserve()
	l := len(name) + len(value)
	at := t.next
	if at+l > len(t.arena) {
		at = 0
	}
	copy(t.arena[at:], name)
	copy(t.arena[at+len(name):], value)
	p := t.first + t.n
	if p >= len(t.ents) {
		p -= len(t.ents)
	}
	t.ents[p] = entry{off: uint32(at), nlen: uint32(len(name)), vlen: uint32(len(value))}
	t.n++
	t.size += size
	t.next = at + l
	t.added++
}

// reserve grows the arena and the ring when the maximum size has grown past
// what they hold, moving the live entries to the front of the new arena.
func (t *table) reserve() {
	if len(t.arena) >= 2*t.max && len(t.ents) > t.max/entryOverhead {
		return
	}
	arena, moved := t.arena, false
	if len(arena) < 2*t.max {
		arena, moved = make([]byte, 2*t.max), true
	}
	ents := t.ents
	if len(ents) <= t.max/entryOverhead {
		ents = make([]entry, t.max/entryOverhead+1)
	}
	// Copy oldest first into fresh memory; when only one of the two is
	// new the other still holds the old contents, so read before writing.
	old := make([]entry, t.n)
	for i := range old {
		old[i] = *t.at(t.n - i)
	}
	off := 0
	for i, e := range old {
		l := int(e.nlen + e.vlen)
		if moved {
			copy(arena[off:], t.arena[e.off:int(e.off)+l])
			e.off = uint32(off)
			off += l
		}
		ents[i] = e
	}
	if !moved {
		off = t.next
	}
	t.arena, t.ents, t.first, t.next = arena, ents, 0, off
}
