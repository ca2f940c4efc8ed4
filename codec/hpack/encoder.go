package hpack

// A Field is one header field to encode. Sensitive fields (credentials,
// short cookies) are sent as never indexed (RFC 7541 §7.1.3): they enter
// no table, here or in any intermediary.
type Field struct {
	Name, Value string
	Sensitive   bool
}

// An Encoder encodes the header blocks of one HTTP/2 connection, in order,
// keeping the dynamic table they share with the peer's decoder. Its zero
// value is ready to use. It is not safe for concurrent use, and must not
// be copied once it has encoded (its table points into the Encoder).
//
// Each field becomes the shortest representation the tables allow: an
// index when the table holds the name and value (static or dynamic), else
// a literal whose name is an index when the table holds the name. Literals
// are added to the dynamic table when they fit (RFC 7541 §6.2.1), except
// sensitive ones, which are never indexed. A string is Huffman-coded only
// when that is strictly shorter. Lookups go through hash indexes of both
// tables: no scan of the dynamic table. Names are not lowercased; HTTP/2
// requires the caller to pass lowercase names.
type Encoder struct {
	// MaxTableSize bounds the dynamic table memory the encoder uses,
	// whatever the peer allows (0: DefaultMaxTableSize, 4096; a negative
	// value: 0, no dynamic table). A bound below 4096 is announced with
	// a size update at the start of the first block. It is read when the
	// encoder starts and at Reset.
	MaxTableSize int

	_ noCopy

	ready bool // the table and indexes are set up (Reset has run)
	tab   table
	limit int // the encoder's own bound on the table size
	peer  int // the peer's SETTINGS_HEADER_TABLE_SIZE

	// Size updates to send at the start of the next block: the lowest
	// maximum since the last block, then the final one (RFC 7541 §4.2).
	pending    bool
	pendingMin int

	// Hash indexes of the dynamic table: bucket heads hold an entry's
	// insertion number + 1 (0: empty), meta[id&mask] links each entry to
	// the previous one of its bucket. Chains run from newest to oldest, so
	// a walk stops at the first evicted entry.
	// Insertion numbers and hashes are kept to 32 bits so that an
	// Encoder is small; a number that wraps around can only point a walk
	// at a live entry whose strings are then compared, or end it.
	mask   uint32
	meta   []encMeta
	byNV   []uint32
	byName []uint32

	ents0   [16]entry
	meta0   [16]encMeta
	byNV0   [16]uint32
	byName0 [16]uint32
}

type encMeta struct {
	hnv, hn       uint32
	nextNV, nextN uint32
}

// Reset returns e to its state when new: an empty table, the peer's
// setting back at its default, the encoder's bound read again from
// MaxTableSize.
func (e *Encoder) Reset() {
	e.ready = true
	e.limit = tableLimit(e.MaxTableSize)
	e.peer = DefaultMaxTableSize
	size := min(e.limit, e.peer)
	if e.meta == nil { // new: the indexes are already zero
		e.meta, e.byNV, e.byName = e.meta0[:], e.byNV0[:], e.byName0[:]
		e.mask = uint32(len(e.meta) - 1)
	} else {
		clear(e.byNV)
		clear(e.byName)
	}
	e.tab.reset(DefaultMaxTableSize, e.ents0[:])
	e.pending = false
	if size != DefaultMaxTableSize {
		e.announce(size)
	}
}

// growIndex doubles the hash indexes, which must have a slot per live
// entry, and links the live entries in again, oldest first.
func (e *Encoder) growIndex() {
	n := 2 * len(e.meta)
	meta, byNV, byName := make([]encMeta, n), make([]uint32, n), make([]uint32, n)
	mask := uint32(n - 1)
	first := uint32(e.tab.added) - uint32(e.tab.n)
	for id := first; id != uint32(e.tab.added); id++ {
		m := e.meta[id&e.mask]
		bn, bnv := &byName[m.hn&mask], &byNV[m.hnv&mask]
		meta[id&mask] = encMeta{hnv: m.hnv, hn: m.hn, nextNV: *bnv, nextN: *bn}
		*bn, *bnv = id+1, id+1
	}
	e.meta, e.byNV, e.byName, e.mask = meta, byNV, byName, mask
}

// SetMaxTableSize records the peer's SETTINGS_HEADER_TABLE_SIZE. The table
// follows it (up to the encoder's limit) from the next block, which begins
// with the size updates that tell the peer. Call it between blocks.
func (e *Encoder) SetMaxTableSize(n int) {
	if !e.ready {
		e.Reset()
	}
	e.peer = max(n, 0)
	if size := min(e.peer, e.limit); size != e.tab.max || e.pending {
		e.announce(size)
	}
}

func (e *Encoder) announce(size int) {
	if !e.pending {
		e.pending, e.pendingMin = true, size
	}
	e.pendingMin = min(e.pendingMin, size)
	e.tab.max = size // applied to the entries when the updates are sent
}

// TableSize returns the dynamic table's size (RFC 7541 §4.1).
func (e *Encoder) TableSize() int { return e.tab.size }

// TableLen returns the number of entries in the dynamic table.
func (e *Encoder) TableLen() int { return e.tab.n }

// TableMaxSize returns the dynamic table's maximum size as of the next
// block.
func (e *Encoder) TableMaxSize() int {
	if !e.ready {
		e.Reset()
	}
	return e.tab.max
}

// AppendFields appends one header block holding fields, in order.
func (e *Encoder) AppendFields(dst []byte, fields []Field) []byte {
	for i := range fields {
		f := &fields[i]
		dst = e.AppendField(dst, f.Name, f.Value, f.Sensitive)
	}
	return dst
}

// AppendField appends the representation of one field. A block is the
// sequence of fields appended between two blocks' worth of calls: the
// encoder does not mark block boundaries, so size updates pending from
// SetMaxTableSize go before the next field appended. Appending allocates
// nothing once dst has room.
func (e *Encoder) AppendField(dst []byte, name, value string, sensitive bool) []byte {
	if !e.ready {
		e.Reset()
	}
	if e.pending {
		dst = e.sendUpdates(dst)
	}
	hn := sampleHash(name)
	hnv := mixHash(hn, sampleHash(value))
	if !sensitive {
		if i := e.findField(name, value, hn, hnv); i > 0 {
			return appendInt(dst, 0x80, 7, i)
		}
	}
	ni := e.findName(name, hn)
	size := len(name) + len(value) + entryOverhead
	switch {
	case sensitive:
		dst = appendInt(dst, 0x10, 4, ni)
	case size <= e.tab.max:
		dst = appendInt(dst, 0x40, 6, ni)
		e.add(name, value, hn, hnv)
	default:
		dst = appendInt(dst, 0x00, 4, ni)
	}
	if ni == 0 {
		dst = appendString(dst, name)
	}
	return appendString(dst, value)
}

func (e *Encoder) sendUpdates(dst []byte) []byte {
	e.pending = false
	size := e.tab.max
	if e.pendingMin < size {
		dst = appendInt(dst, 0x20, 5, e.pendingMin)
		e.tab.evictTo(e.pendingMin)
	}
	dst = appendInt(dst, 0x20, 5, size)
	e.tab.setMax(size)
	return dst
}

// findField returns the index of an entry holding name and value, or 0.
func (e *Encoder) findField(name, value string, hn, hnv uint64) int {
	if i := staticField(name, value, hnv); i > 0 {
		return i
	}
	for ref, steps := e.byNV[uint32(hnv)&e.mask], 0; ref != 0 && steps < maxChain; steps++ {
		id := ref - 1
		i := int(uint32(e.tab.added) - id)
		if i == 0 || i > e.tab.n {
			break
		}
		m := &e.meta[id&e.mask]
		if m.hnv == uint32(hnv) {
			ent := e.tab.at(i)
			if string(e.tab.name(ent)) == name && string(e.tab.value(ent)) == value {
				return staticLen + i
			}
		}
		ref = m.nextNV
	}
	return 0
}

// findName returns the index of an entry holding name, or 0; a static
// entry is preferred, as its index never changes.
func (e *Encoder) findName(name string, hn uint64) int {
	if i := staticName(name, hn); i > 0 {
		return i
	}
	for ref, steps := e.byName[uint32(hn)&e.mask], 0; ref != 0 && steps < maxChain; steps++ {
		id := ref - 1
		i := int(uint32(e.tab.added) - id)
		if i == 0 || i > e.tab.n {
			break
		}
		m := &e.meta[id&e.mask]
		if m.hn == uint32(hn) && string(e.tab.name(e.tab.at(i))) == name {
			return staticLen + i
		}
		ref = m.nextN
	}
	return 0
}

func (e *Encoder) add(name, value string, hn, hnv uint64) {
	if e.tab.n >= len(e.meta) {
		e.growIndex() // the entry to add may need a slot of its own
	}
	id := uint32(e.tab.added)
	add(&e.tab, name, value)
	if uint32(e.tab.added) == id { // larger than the table: not added
		return
	}
	m := &e.meta[id&e.mask]
	bn, bnv := &e.byName[uint32(hn)&e.mask], &e.byNV[uint32(hnv)&e.mask]
	*m = encMeta{hnv: uint32(hnv), hn: uint32(hn), nextNV: *bnv, nextN: *bn}
	*bn, *bnv = id+1, id+1
}

// maxChain bounds the entries a lookup compares. Strings that share a
// bucket (by chance, or crafted by a peer whose headers a proxy forwards)
// cost at most this many comparisons; an entry further down its chain is
// not found, and the field goes out as a literal: correct, slightly
// larger, never a scan of the table.
const maxChain = 8

// sampleHash hashes a string's length and up to 16 of its bytes: the
// first and last eight. It only picks a bucket; every hit is confirmed by
// comparing whole strings, and maxChain bounds the comparisons, so strings
// that share their ends cost a few comparisons, never a wrong answer.
// Hashing every byte of a 100-byte user-agent twice per field cost more
// than the lookup saved.
func sampleHash(s string) uint64 {
	n := len(s)
	var a, b uint64
	switch {
	case n >= 8:
		a, b = load64(s), load64(s[n-8:])
	case n >= 4:
		a, b = load32(s), load32(s[n-4:])
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n/2])<<8 | uint64(s[n-1])
	}
	h := (a ^ uint64(n)<<56) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	h += b * 0xbf58476d1ce4e5b9
	return h ^ h>>32
}

func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

func mixHash(hn, hv uint64) uint64 {
	h := (hn ^ hv*0xff51afd7ed558ccd) * 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// The static table's hash indexes: open addressing over 128 slots holding
// an index + 1.
var staticByNV, staticByName [128]uint8
var staticHN, staticHNV [staticLen + 1]uint64

func init() {
	for i := staticLen; i >= 1; i-- { // lower indexes last, so they win
		s := staticTable[i-1]
		hn := sampleHash(s.name)
		hnv := mixHash(hn, sampleHash(s.value))
		staticHN[i], staticHNV[i] = hn, hnv
		put := func(t *[128]uint8, h uint64, replace func(old int) bool) {
			for j := h & 127; ; j = (j + 1) & 127 {
				if t[j] == 0 || replace(int(t[j])) {
					t[j] = uint8(i)
					return
				}
			}
		}
		put(&staticByNV, hnv, func(int) bool { return false })
		put(&staticByName, hn, func(old int) bool { return staticTable[old-1].name == s.name })
	}
}

func staticField(name, value string, hnv uint64) int {
	for j := hnv & 127; staticByNV[j] != 0; j = (j + 1) & 127 {
		i := int(staticByNV[j])
		if staticHNV[i] == hnv && staticTable[i-1].name == name && staticTable[i-1].value == value {
			return i
		}
	}
	return 0
}

func staticName(name string, hn uint64) int {
	for j := hn & 127; staticByName[j] != 0; j = (j + 1) & 127 {
		i := int(staticByName[j])
		if staticHN[i] == hn && staticTable[i-1].name == name {
			return i
		}
	}
	return 0
}

// appendInt appends v with an n-bit prefix (RFC 7541 §5.1), the first
// byte's other bits set to flags.
func appendInt(dst []byte, flags byte, n uint8, v int) []byte {
	limit := 1<<n - 1
	if v < limit {
		return append(dst, flags|byte(v))
	}
	dst = append(dst, flags|byte(limit))
	v -= limit
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// appendString appends a string literal (RFC 7541 §5.2), Huffman-coded
// when that is strictly shorter.
func appendString(dst []byte, s string) []byte {
	if len(s) < 0x7f {
		// One pass: code the string after a one-byte length, and write
		// it raw over the code if that is no shorter.
		at := len(dst)
		dst = AppendHuffman(append(dst, 0), s)
		if h := len(dst) - at - 1; h < len(s) {
			dst[at] = 0x80 | byte(h)
			return dst
		}
		dst = append(dst[:at], byte(len(s)))
		return append(dst, s...)
	}
	if h := HuffmanLen(s); h < len(s) {
		dst = appendInt(dst, 0x80, 7, h)
		return AppendHuffman(dst, s)
	}
	dst = appendInt(dst, 0, 7, len(s))
	return append(dst, s...)
}
