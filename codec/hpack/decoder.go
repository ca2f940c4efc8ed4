package hpack

import "math"

// An EmitFunc receives one decoded field. name and value alias memory of
// the decoder or of the block being decoded: they are valid only until the
// function returns, so copy what you keep (a Go string conversion copies).
// sensitive is true for a field the peer sent as never indexed (RFC 7541
// §6.2.3), which an intermediary must forward the same way. An error
// stops the emitting: the decoder still processes the rest of the block,
// so that its dynamic table stays in step, then returns the error.
type EmitFunc func(name, value []byte, sensitive bool) error

// Mode says which header lists a Decoder validates (RFC 9113 §8).
type Mode uint8

const (
	// NoValidation decodes any list RFC 7541 can encode; the limits
	// still apply.
	NoValidation Mode = iota
	// Request validates request headers (a server's decoder).
	Request
	// Response validates response headers (a client's decoder).
	Response
)

// Block is the kind of header block being decoded: the headers that open
// a request or response, or the trailers that end it.
type Block uint8

const (
	Headers Block = iota
	Trailers
)

// The default limits of a Decoder.
const (
	// DefaultMaxHeaderListSize bounds a header list at 64 KiB, counted
	// as RFC 9113 §6.5.2 does: name + value + 32 per field.
	DefaultMaxHeaderListSize = 64 << 10
	// DefaultMaxFields bounds the fields of one header list.
	DefaultMaxFields = 256
)

// config holds the limits and the mode in force for the block being
// decoded, resolved from the Decoder's exported fields when it begins.
type config struct {
	maxList, maxFields, maxString int
	mode                          Mode
}

// A Decoder decodes the header blocks of one HTTP/2 connection, in order,
// keeping the dynamic table they share. Its zero value is ready to use: a
// decoder with the default limits that validates nothing. Set Validate to
// Request for a server's decoder, Response for a client's. It is not safe
// for concurrent use, and must not be copied once it has decoded (its
// table points into the Decoder).
//
// The limits are read when a block begins, so they may be changed
// between blocks; MaxTableSize is read when the decoder starts and at
// Reset. Zero means the default.
//
// Memory: the dynamic table lives in one arena that grows with the
// entries it holds (512 bytes at first, at most twice the maximum table size),
// plus a scratch buffer for Huffman-decoded strings that grows to the
// longest string decoded (bounded by the maximum string length), plus, for
// blocks split across frames, the unfinished representation carried to the
// next fragment. A Decoder is under 1 KiB; its first entry adds the arena.
type Decoder struct {
	// Validate says which header lists are checked against RFC 9113 §8
	// (default NoValidation; the limits apply in every mode).
	Validate Mode

	// MaxTableSize is the dynamic table size the decoder allows: the
	// SETTINGS_HEADER_TABLE_SIZE it advertises (0: DefaultMaxTableSize,
	// 4096; a negative value: 0, no dynamic table). The table starts at
	// the protocol's initial size, 4096, or at MaxTableSize if lower: a
	// peer encodes with 4096 until it has our SETTINGS (RFC 7541 §4.2,
	// RFC 9113 §6.5.2), and grows the table with a size update. A lower
	// value assumes the peer has it before its first block, which then
	// starts with a size update to it or less; a peer that encodes for
	// 4096 until then either still decodes right (the smaller table holds
	// its newest entries) or fails with ErrIndexRange, never with wrong
	// fields. SetMaxTableSize changes the bound during the connection.
	MaxTableSize int

	// MaxHeaderListSize bounds a header list, counted as name + value +
	// 32 per field (0: DefaultMaxHeaderListSize, 64 KiB; see the package
	// doc for why). A larger list is refused with ErrListTooLarge, a
	// stream error.
	MaxHeaderListSize int

	// MaxFields bounds the fields of one header list (0:
	// DefaultMaxFields, 256). More is refused with ErrTooManyFields, a
	// stream error.
	MaxFields int

	// MaxStringLength bounds a name or value the decoder will hold, after
	// Huffman decoding (0: the maximum header list size). A longer string
	// is ErrStringTooLong, a connection error: the decoder cannot keep
	// its table in step without holding the string. It bounds the memory
	// a Decoder takes for a block.
	MaxStringLength int

	_ noCopy

	// markNone makes the decoder mark no dynamic entry as validated, so
	// that every indexed field is checked again: the reference the tests
	// hold the marks to.
	markNone bool

	ready bool   // the table is set up (Reset has run)
	cfg   config // the limits of the block in progress
	tab   table
	bound int // the SETTINGS bound on size updates

	// After SetMaxTableSize lowers the bound, the next block must start
	// with a size update no larger than the lowest bound set.
	mustUpdate bool
	lowest     int

	broken error // the connection error that ended decoding

	// The block in progress.
	inBlock   bool
	kind      Block
	off       int // block offset of the first byte of the input parsed next
	started   bool
	updates   int
	fields    int
	listSize  int
	fault     *Violation
	faultAt   int
	faultName string
	emitErr   error
	v         validator

	partial []byte // an unfinished representation, across fragments
	scratch []byte // Huffman-decoded strings

	ents0    [16]entry
	scratch0 [256]byte
}

// noCopy makes go vet's copylocks check report a copied Decoder or
// Encoder: their tables point into their own inline arrays.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// tableLimit resolves a MaxTableSize field: 0 is the default, a negative
// value no table at all.
func tableLimit(n int) int {
	switch {
	case n == 0:
		return DefaultMaxTableSize
	case n < 0:
		return 0
	}
	return n
}

// limits resolves the exported limits, zero meaning the default.
func (d *Decoder) limits() config {
	c := config{
		maxList:   DefaultMaxHeaderListSize,
		maxFields: DefaultMaxFields,
		mode:      d.Validate,
	}
	if d.MaxHeaderListSize > 0 {
		c.maxList = d.MaxHeaderListSize
	}
	if d.MaxFields > 0 {
		c.maxFields = d.MaxFields
	}
	c.maxString = c.maxList
	if d.MaxStringLength > 0 {
		c.maxString = d.MaxStringLength
	}
	return c
}

// start sets up a zero Decoder's table on first use.
func (d *Decoder) start() {
	if !d.ready {
		d.Reset()
	}
}

// Reset returns d to its state when new: an empty dynamic table at the
// initial size (see MaxTableSize), no block in progress, no error. A
// connection that starts over (or a pool of decoders) calls it.
func (d *Decoder) Reset() {
	limit := tableLimit(d.MaxTableSize)
	d.ready = true
	d.tab.reset(min(limit, DefaultMaxTableSize), d.ents0[:])
	d.bound = limit
	d.mustUpdate = false
	d.broken = nil
	d.inBlock = false
	d.partial = d.partial[:0]
	if d.scratch == nil {
		d.scratch = d.scratch0[:0]
	}
}

// SetMaxTableSize sets the bound on the dynamic table size: the
// SETTINGS_HEADER_TABLE_SIZE in force. Call it between blocks: for a
// higher value when our SETTINGS is sent (the peer may grow the table
// with a size update as soon as it reads it), for a lower one when the
// peer acknowledges it (until then the peer may use the old bound). A
// lower bound shrinks the table now, and unless the peer has already
// shrunk it that far, the peer's next block must begin with a size update
// no larger (RFC 7541 §4.2).
func (d *Decoder) SetMaxTableSize(n int) {
	d.start()
	n = max(n, 0)
	if n < d.tab.max {
		d.tab.setMax(n)
		if !d.mustUpdate || n < d.lowest {
			d.lowest = n
		}
		d.mustUpdate = true
	}
	d.bound = n
}

// TableSize returns the dynamic table's size: the sum of its entries'
// lengths plus 32 per entry (RFC 7541 §4.1).
func (d *Decoder) TableSize() int { return d.tab.size }

// TableMaxSize returns the dynamic table's current maximum size: the
// last size update's, at most the bound in force.
func (d *Decoder) TableMaxSize() int {
	d.start()
	return d.tab.max
}

// TableLen returns the number of entries in the dynamic table.
func (d *Decoder) TableLen() int { return d.tab.n }

// TableEntry returns dynamic table entry i, from 1 (the newest) to
// TableLen (HPACK index 61+i). The slices alias the table: they are valid
// until the next call that decodes. It panics if i is out of range.
func (d *Decoder) TableEntry(i int) (name, value []byte) {
	if i < 1 || i > d.tab.n {
		panic("hpack: TableEntry index out of range")
	}
	e := d.tab.at(i)
	return d.tab.name(e), d.tab.value(e)
}

// DecodeBlock decodes one complete header block (a HEADERS frame's, with
// its CONTINUATION frames' joined) and calls emit for each field in order.
// It returns one of three kinds of error:
//
//   - a *[SyntaxError] (Kind a *[Violation] with Stream false) is a
//     connection error (COMPRESSION_ERROR): the Decoder then refuses every
//     block until Reset;
//   - a *[FieldError] (Kind a *Violation with Stream true) is a stream
//     error: the block was processed to its end and the table is in step,
//     no field was emitted after the one at fault, and the caller discards
//     the fields emitted before it;
//   - an error emit returned, unchanged, the same way: after the whole
//     block, the table in step.
//
// [IsStreamError] tells the first two apart.
func (d *Decoder) DecodeBlock(block []byte, emit EmitFunc) error {
	if d.inBlock && d.broken == nil {
		return d.breakWith(ErrBlockUnfinished, d.off)
	}
	return d.DecodeFragment(Headers, block, true, emit)
}

// Decode is the former name of DecodeBlock: in every netkit codec Decode
// takes a stream (a *buf.Composite), and a header block is not one.
//
// Deprecated: use DecodeBlock.
func (d *Decoder) Decode(block []byte, emit EmitFunc) error { return d.DecodeBlock(block, emit) }

// DecodeTrailers decodes one complete block of trailers: like DecodeBlock, but
// a validating decoder refuses pseudo-headers and requires none.
func (d *Decoder) DecodeTrailers(block []byte, emit EmitFunc) error {
	if d.inBlock && d.broken == nil {
		return d.breakWith(ErrBlockUnfinished, d.off)
	}
	return d.DecodeFragment(Trailers, block, true, emit)
}

// DecodeFragment decodes a block that arrives in pieces: each frame's
// fragment in order, with end set on the last (END_HEADERS). kind is read
// from a block's first fragment. Fields are emitted as soon as they are
// whole; a representation cut by the fragment's end is kept (copied) until
// the next fragment completes it. Errors are as for DecodeBlock; block-level
// ones come with the last fragment.
func (d *Decoder) DecodeFragment(kind Block, frag []byte, end bool, emit EmitFunc) error {
	if !d.ready {
		d.Reset()
	}
	if d.broken != nil {
		return d.broken
	}
	if !d.inBlock {
		d.begin(kind)
	}
	p := frag
	if len(d.partial) > 0 {
		d.partial = append(d.partial, frag...)
		p = d.partial
	}
	n, err := d.parse(p, emit)
	if err != nil {
		return err
	}
	rest := p[n:]
	if end {
		if len(rest) > 0 {
			return d.breakWith(ErrTruncated, d.off+n)
		}
		return d.finish()
	}
	d.off += n
	d.partial = append(d.partial[:0], rest...) // copy may overlap: append uses memmove
	return nil
}

func (d *Decoder) begin(kind Block) {
	d.inBlock = true
	d.kind = kind
	d.off = 0
	d.started = false
	d.updates = 0
	d.fields = 0
	d.listSize = 0
	d.fault = nil
	d.faultName = ""
	d.emitErr = nil
	d.partial = d.partial[:0]
	d.cfg = d.limits()
	d.v = validator{mode: d.cfg.mode, trailers: kind == Trailers}
}

// breakWith records a connection error: the block is abandoned and the
// decoder refuses everything until Reset.
func (d *Decoder) breakWith(kind *Violation, off int) error {
	d.broken = &SyntaxError{Offset: off, Kind: kind}
	d.inBlock = false
	d.partial = d.partial[:0]
	return d.broken
}

// finish ends the block: the checks on the whole list, then the first
// stream error, if any.
func (d *Decoder) finish() error {
	d.inBlock = false
	d.partial = d.partial[:0]
	if d.fault == nil && d.emitErr == nil && d.cfg.mode != NoValidation {
		if v, name := d.v.end(); v != nil {
			d.fault, d.faultAt, d.faultName = v, -1, name
		}
	}
	if d.fault != nil {
		return &FieldError{Kind: d.fault, Field: d.faultName, Index: d.faultAt}
	}
	return d.emitErr
}

// parse decodes the whole representations at the front of p and returns
// the bytes they took; it stops at one p cuts short. A connection error
// breaks the decoder.
func (d *Decoder) parse(p []byte, emit EmitFunc) (int, error) {
	i := 0
	for i < len(p) {
		b := p[i]
		if b > 0x80 && b < 0xff && d.started {
			// The common case of a warm connection: an indexed field
			// whose index fits in the first byte.
			var name, value []byte
			clean := true
			if k := int(b & 0x7f); k <= staticLen {
				s := &staticBytes[k-1]
				name, value = s.name, s.value
			} else if k -= staticLen; k <= d.tab.n {
				e := d.tab.at(k)
				name, value, clean = d.tab.name(e), d.tab.value(e), e.clean
			} else {
				return i, d.breakWith(ErrIndexRange, d.off+i)
			}
			d.field(name, value, false, clean, emit)
			i++
			continue
		}
		var (
			j   int
			bad *Violation
		)
		switch {
		case b&0x80 != 0: // indexed field (§6.1)
			var idx int
			idx, j, bad = readInt(p, i, 7)
			if j < 0 || bad != nil {
				break
			}
			if bad = d.startField(); bad != nil {
				break
			}
			var name, value []byte
			var clean bool
			if name, value, clean, bad = d.lookup(idx); bad != nil {
				break
			}
			d.field(name, value, false, clean, emit)
		case b&0xc0 == 0x40: // literal with incremental indexing (§6.2.1)
			var name, value []byte
			name, value, j, bad = d.literal(p, i, 6)
			if j < 0 || bad != nil {
				break
			}
			d.field(name, value, false, false, emit)
			// The mark is taken before the insertion: an indexed name
			// aliases the arena, and its entry may be evicted and its
			// bytes overwritten by the entry that add writes.
			ok := d.cfg.mode != NoValidation && !d.markNone && clean(name, value)
			added := d.tab.added
			add(&d.tab, name, value)
			if d.tab.added != added {
				d.tab.at(1).clean = ok
			}
		case b&0xe0 == 0x20: // dynamic table size update (§6.3)
			var size int
			size, j, bad = readInt(p, i, 5)
			if j < 0 || bad != nil {
				break
			}
			bad = d.sizeUpdate(size)
		default: // literal without indexing, or never indexed (§6.2.2, §6.2.3)
			var name, value []byte
			name, value, j, bad = d.literal(p, i, 4)
			if j < 0 || bad != nil {
				break
			}
			d.field(name, value, b&0x10 != 0, false, emit)
		}
		if bad != nil {
			return i, d.breakWith(bad, d.off+i)
		}
		if j < 0 {
			return i, nil
		}
		i = j
	}
	return i, nil
}

// startField notes the block's first field representation: size updates
// may no longer follow, and one must have come if the bound was lowered.
func (d *Decoder) startField() *Violation {
	if !d.started {
		d.started = true
		if d.mustUpdate {
			return ErrSizeUpdateMissed
		}
	}
	return nil
}

func (d *Decoder) sizeUpdate(size int) *Violation {
	switch {
	case d.started:
		return ErrSizeUpdateLate
	case d.updates == 2:
		return ErrSizeUpdateMany
	case size > d.bound:
		return ErrSizeUpdateLarge
	}
	d.updates++
	if d.mustUpdate && size <= d.lowest {
		d.mustUpdate = false
	}
	d.tab.setMax(size)
	return nil
}

// lookup returns the field at index idx of the static and dynamic tables
// (RFC 7541 §2.3.3).
// clean reports whether the field's characters are known to be allowed.
func (d *Decoder) lookup(idx int) (name, value []byte, clean bool, bad *Violation) {
	switch {
	case idx == 0:
		return nil, nil, false, ErrIndexZero
	case idx <= staticLen:
		s := &staticBytes[idx-1]
		return s.name, s.value, true, nil
	case idx-staticLen <= d.tab.n:
		e := d.tab.at(idx - staticLen)
		return d.tab.name(e), d.tab.value(e), e.clean, nil
	}
	return nil, nil, false, ErrIndexRange
}

// literal parses a literal field representation whose name index has an
// n-bit prefix. j < 0 means p ends inside it.
func (d *Decoder) literal(p []byte, i int, n uint8) (name, value []byte, j int, bad *Violation) {
	idx, j, bad := readInt(p, i, n)
	if j < 0 || bad != nil {
		return nil, nil, j, bad
	}
	if bad = d.startField(); bad != nil {
		return nil, nil, j, bad
	}
	// Find both strings' extents before decoding either, so a cut
	// representation costs no decoding.
	var nameAt, nameLen int
	var nameHuff bool
	if idx == 0 {
		nameAt, nameLen, nameHuff, j, bad = d.stringAt(p, j)
		if j < 0 || bad != nil {
			return nil, nil, j, bad
		}
	} else if name, _, _, bad = d.lookup(idx); bad != nil {
		return nil, nil, j, bad
	}
	valueAt, valueLen, valueHuff, j, bad := d.stringAt(p, j)
	if j < 0 || bad != nil {
		return nil, nil, j, bad
	}
	d.scratch = d.scratch[:0]
	if idx == 0 {
		if name, bad = d.str(p[nameAt:nameAt+nameLen], nameHuff); bad != nil {
			return nil, nil, nameAt, bad
		}
	}
	if value, bad = d.str(p[valueAt:valueAt+valueLen], valueHuff); bad != nil {
		return nil, nil, valueAt, bad
	}
	return name, value, j, nil
}

// stringAt parses a string literal's header at p[i] (RFC 7541 §5.2): where
// its bytes start, how many, and whether they are Huffman-coded. j < 0
// means p ends before the string does. The length is checked against the
// maximum string length before the bytes are awaited.
func (d *Decoder) stringAt(p []byte, i int) (at, n int, huff bool, j int, bad *Violation) {
	if i >= len(p) {
		return 0, 0, false, -1, nil
	}
	huff = p[i]&0x80 != 0
	n, j, bad = readInt(p, i, 7)
	if j < 0 || bad != nil {
		return 0, 0, false, j, bad
	}
	least := n // the fewest bytes the string decodes to
	if huff {
		least = (8*n - 7) / 30 // every code is at most 30 bits
	}
	if least > d.cfg.maxString {
		return 0, 0, false, i, ErrStringTooLong
	}
	if n > len(p)-j {
		return 0, 0, false, -1, nil
	}
	return j, n, huff, j + n, nil
}

// str returns a string literal's bytes: raw ones as they are in the
// block, Huffman-coded ones decoded into the scratch buffer.
func (d *Decoder) str(s []byte, huff bool) ([]byte, *Violation) {
	if !huff {
		return s, nil
	}
	at := len(d.scratch)
	out, err := huffmanDecode(d.scratch, s)
	if err != nil {
		if v, ok := err.(*Violation); ok {
			return nil, v
		}
		return nil, ErrHuffmanPadding
	}
	d.scratch = out
	if len(out)-at > d.cfg.maxString {
		return nil, ErrStringTooLong
	}
	return out[at:len(out):len(out)], nil
}

// field counts a decoded field against the limits, validates it, and
// emits it unless an earlier field stopped the emitting.
func (d *Decoder) field(name, value []byte, sensitive, clean bool, emit EmitFunc) {
	d.fields++
	d.listSize += len(name) + len(value) + entryOverhead
	if d.fault != nil || d.emitErr != nil {
		return
	}
	switch {
	case d.fields > d.cfg.maxFields:
		d.stop(ErrTooManyFields, name)
		return
	case d.listSize > d.cfg.maxList:
		d.stop(ErrListTooLarge, name)
		return
	}
	if d.cfg.mode != NoValidation {
		if v := d.v.check(name, value, clean); v != nil {
			d.stop(v, name)
			return
		}
	}
	if emit != nil {
		if err := emit(name, value, sensitive); err != nil {
			d.emitErr = err
		}
	}
}

func (d *Decoder) stop(v *Violation, name []byte) {
	d.fault, d.faultAt = v, d.fields-1
	d.faultName = string(name[:min(len(name), 64)])
}

// readInt decodes an integer with an n-bit prefix at p[i] (RFC 7541
// §5.1) and returns it with the offset after it; j < 0 means p ends inside
// it. Values above maxInt, or spread over more than five continuation
// bytes, are ErrIntegerOverflow: no size, index or length can be that
// large.
func readInt(p []byte, i int, n uint8) (v, j int, bad *Violation) {
	limit := 1<<n - 1
	v = int(p[i]) & limit
	i++
	if v < limit {
		return v, i, nil
	}
	// Summed in 64 bits: an int of 32 would wrap before the check.
	x := uint64(v)
	for shift := uint(0); ; shift += 7 {
		if i >= len(p) {
			return 0, -1, nil
		}
		if shift > 28 {
			return 0, i, ErrIntegerOverflow
		}
		b := p[i]
		i++
		x += uint64(b&0x7f) << shift
		if x > maxInt {
			return 0, i, ErrIntegerOverflow
		}
		if b&0x80 == 0 {
			return int(x), i, nil
		}
	}
}

// maxInt is the largest integer a block may hold: 2^32-1, or less where an
// int is 32 bits (math.MaxInt, 2^31-1), so that no decoded size, index or
// length is negative.
const maxInt = min(1<<32-1, math.MaxInt)
