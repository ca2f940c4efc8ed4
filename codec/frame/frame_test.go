package frame_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// randomText returns n bytes over alphabet, with lines (or frames) of
// lengths spread around limit so that some are too long.
func randomText(r *rand.Rand, n int, alphabet string) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = alphabet[r.IntN(len(alphabet))]
	}
	return p
}

func TestLineMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := buf.NewAllocator()
	for round := range 300 {
		d := frame.Line{MaxFrameLength: r.IntN(24), StripDelimiter: r.IntN(2) == 0, FailFast: r.IntN(2) == 0}
		// Sparse newlines make long lines; '\r' tests the "\r\n" rule.
		alphabet := []string{"ab\n", "aaaaaaab\r\n", "a\r", "abcdefghijklmnopqrstuvwxyz\n\r"}[round%4]
		data := randomText(r, r.IntN(3000), alphabet)
		want := modelLine(d, data)
		for i, chunks := range chunkings(r, len(data)) {
			dec := d
			got := feed(t, a, &dec, data, chunks, capOr(d.MaxFrameLength)+1, i%len(feedModes))
			sameEvents(t, fmt.Sprintf("round %d %+v, chunks %v, %s", round, d, chunks, feedModes[i%len(feedModes)]), got, want)
		}
	}
	assert.Zero(t, a.Stats().Total().InUse, "bytes in use after every frame and composite was released")
}

func TestFixedMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := buf.NewAllocator()
	for round := range 100 {
		length := 1 + r.IntN(100)
		data := randomText(r, r.IntN(5000), "abc")
		want := modelFixed(length, data)
		for i, chunks := range chunkings(r, len(data)) {
			got := feed(t, a, &frame.Fixed{Length: length}, data, chunks, length, i%len(feedModes))
			sameEvents(t, fmt.Sprintf("round %d length %d, chunks %v, %s", round, length, chunks, feedModes[i%len(feedModes)]), got, want)
		}
	}
	assert.Zero(t, a.Stats().Total().InUse, "bytes in use after every frame and composite was released")
}

func randomLengthField(r *rand.Rand) frame.LengthField {
	return frame.LengthField{
		Offset:         r.IntN(4),
		Size:           []int{0, 1, 2, 3, 4, 8}[r.IntN(6)],
		LittleEndian:   r.IntN(2) == 0,
		Adjustment:     r.IntN(11) - 5,
		Strip:          r.IntN(7),
		MaxFrameLength: r.IntN(80),
		FailFast:       r.IntN(2) == 0,
	}
}

func TestLengthFieldMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a := buf.NewAllocator()
	for round := range 400 {
		d := randomLengthField(r)
		if d.Validate() != nil { // TestLengthFieldConfig
			continue
		}
		var data []byte
		if round%3 == 0 {
			data = randomText(r, r.IntN(2000), "\x00\x01\x02\x05\x10\x30\xff")
		} else {
			// Well-formed frames, some over the cap, with garbage now and then.
			var bodies [][]byte
			for range r.IntN(40) {
				bodies = append(bodies, randomText(r, 5+r.IntN(90), "xyz"))
			}
			data = lengthFrames(t, &d, bodies...)
			if round%5 == 1 && len(data) > 0 {
				data[r.IntN(len(data))] ^= 0x40
			}
		}
		want := modelLengthField(d, data)
		bound := capOr(d.MaxFrameLength)
		for i, chunks := range chunkings(r, len(data)) {
			dec := d
			got := feed(t, a, &dec, data, chunks, bound, (i+round)%len(feedModes))
			sameEvents(t, fmt.Sprintf("round %d %+v, chunks %v, %s", round, d, chunks, feedModes[(i+round)%len(feedModes)]), got, want)
		}
	}
	assert.Zero(t, a.Stats().Total().InUse, "bytes in use after every frame and composite was released")
}

var delimiterSets = [][]string{
	{"\n"},
	{"\r\n", "\n"},
	{"\n", "\r\n"},
	{"ab", "b", "abc"},
	{"abc", "b"},
	{"cc", "ccc", "c\n"},
	{"aaaa", "aa"},
	{"--boundary--", "--"},
}

func TestDelimiterMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a := buf.NewAllocator()
	for round := range 400 {
		set := delimiterSets[round%len(delimiterSets)]
		var delims [][]byte
		maxLen := 0
		for _, s := range set {
			delims = append(delims, []byte(s))
			maxLen = max(maxLen, len(s))
		}
		maxFrame, strip, failFast := r.IntN(30), r.IntN(2) == 0, r.IntN(2) == 0
		alphabet := strings.Join(set, "") + "xyzxyzxyzxyz"
		data := randomText(r, r.IntN(2500), alphabet)
		want := modelDelimiter(delims, maxFrame, strip, failFast, data)
		bound := capOr(maxFrame)
		for i, chunks := range chunkings(r, len(data)) {
			d := frame.NewDelimiter(delims...)
			d.MaxFrameLength, d.StripDelimiter, d.FailFast = maxFrame, strip, failFast
			mode := (i + round) % len(feedModes)
			got := feed(t, a, d, data, chunks, bound+maxLen, mode)
			sameEvents(t, fmt.Sprintf("round %d %q max %d strip %v failFast %v, chunks %v, %s", round, set, maxFrame, strip, failFast, chunks, feedModes[mode]), got, want)
		}
	}
	assert.Zero(t, a.Stats().Total().InUse, "bytes in use after every frame and composite was released")
}

// TestDelimiterPrecedence: Netty's rule on one buffer, and the wait that
// keeps the answer independent of the reads: "abc" listed first must win
// over "b" that completes before it, even when "c" arrives later.
func TestDelimiterPrecedence(t *testing.T) {
	d := frame.NewDelimiter([]byte("abc"), []byte("b"))
	d.StripDelimiter = true
	in := buf.NewComposite()
	defer in.Release()
	in.Append(buf.Wrap([]byte("xxab")))
	var f *buf.Buffer
	require.ErrorIs(t, d.Decode(in, &f), frame.ErrShort, "before the c: abc may still complete")
	require.Nil(t, f, "Decode stored a frame with ErrShort")
	in.Append(buf.Wrap([]byte("cyyb")))
	for _, want := range []string{"xx", "yy"} {
		require.NoError(t, d.Decode(in, &f))
		assert.Equal(t, want, string(f.Bytes()))
		f.Release()
	}
}

// TestLineZeroCopy: a long line within one read is a view of it; a short
// one, and one across reads, are copies, which do not keep the read; all
// outlive the composite.
func TestLineZeroCopy(t *testing.T) {
	long := strings.Repeat("L", 300)
	in := buf.NewComposite()
	first := buf.Get(512)
	first.WriteString("one\n" + long + "\ntw")
	in.Append(first.Retain())
	second := buf.Wrap([]byte("o\n"))
	in.Append(second)
	d := frame.Line{StripDelimiter: true}
	var one, big, two *buf.Buffer
	require.NoError(t, d.Decode(in, &one))
	assert.Equal(t, 2, first.RefCount(), "a short line kept the read: the test's and the composite's references, and one more")
	require.NoError(t, d.Decode(in, &big))
	require.NoError(t, d.Decode(in, &two))
	assert.Same(t, &first.Bytes()[4], &big.Bytes()[0], "a long line within one read was copied")
	in.Release()
	assert.Equal(t, "one", string(one.Bytes()), "after the composite's release")
	assert.Equal(t, long, string(big.Bytes()), "after the composite's release")
	assert.Equal(t, "two", string(two.Bytes()), "after the composite's release")
	assert.Equal(t, 2, first.RefCount(), "the read's RefCount with the test and the view holding it")
	one.Release()
	two.Release()
	big.Release()
	assert.True(t, first.Release(), "the view kept a reference after its release")
}

// TestErrorsAreTyped: errors.Is and errors.As work, and the message says
// what and where.
func TestErrorsAreTyped(t *testing.T) {
	d := frame.Line{MaxFrameLength: 3}
	in := buf.NewComposite()
	defer in.Release()
	in.Append(buf.Wrap([]byte("ok\ntoo long\nok\n")))
	var errs []error
	for {
		var f *buf.Buffer
		err := d.Decode(in, &f)
		if err == frame.ErrShort {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Release()
	}
	require.Len(t, errs, 1)
	var se *frame.SyntaxError
	assert.ErrorIs(t, errs[0], frame.ErrTooLong)
	require.ErrorAs(t, errs[0], &se)
	assert.Equal(t, 3, se.Offset)
	assert.EqualError(t, errs[0], "frame: frame too long at offset 3")
}

func TestAppendLengthField(t *testing.T) {
	for _, c := range []struct {
		d    frame.LengthField
		n    int
		want string
		err  bool
	}{
		{frame.LengthField{}, 5, "\x00\x00\x00\x05", false},
		{frame.LengthField{Size: 2, LittleEndian: true}, 0x0102, "\x02\x01", false},
		{frame.LengthField{Size: 3}, 0x010203, "\x01\x02\x03", false},
		{frame.LengthField{Size: 3, LittleEndian: true}, 0x010203, "\x03\x02\x01", false},
		{frame.LengthField{Size: 8}, 7, "\x00\x00\x00\x00\x00\x00\x00\x07", false},
		{frame.LengthField{Size: 1, Adjustment: -2}, 3, "\x05", false}, // the field counts itself and one more
		{frame.LengthField{Size: 1}, 256, "", true},
		{frame.LengthField{Size: 1, Adjustment: 4}, 3, "", true},
	} {
		got, err := frame.AppendLengthField([]byte("pre"), &c.d, c.n)
		if c.err {
			assert.ErrorIs(t, err, frame.ErrLengthOverflow, "%+v n=%d", c.d, c.n)
			assert.Equal(t, "pre", string(got), "%+v n=%d: dst changed on error", c.d, c.n)
			continue
		}
		assert.NoError(t, err, "%+v n=%d", c.d, c.n)
		assert.Equal(t, "pre"+c.want, string(got), "%+v n=%d", c.d, c.n)
	}
}

// TestConfigErrors: a Fixed or Delimiter that cannot decode returns an
// error wrapping ErrConfig from Validate, Decode and Next, consuming
// nothing and never panicking (LengthField's: TestLengthFieldConfig).
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		d    interface {
			frame.Decoder
			Next(*buf.Composite) ([]byte, error)
			Validate() error
		}
		msg string
	}{
		{"Fixed{}", &frame.Fixed{}, "frame: invalid configuration: Fixed.Length 0 is not positive"},
		{"Fixed{-1}", &frame.Fixed{Length: -1}, "frame: invalid configuration: Fixed.Length -1 is not positive"},
		{"Delimiter{}", &frame.Delimiter{}, "frame: invalid configuration: Delimiter not made by NewDelimiter"},
		{"NewDelimiter()", frame.NewDelimiter(), "frame: invalid configuration: NewDelimiter without delimiters"},
		{"empty delimiter", frame.NewDelimiter([]byte("\n"), nil), "frame: invalid configuration: NewDelimiter with an empty delimiter (delimiter 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := buf.NewComposite()
			defer in.Release()
			in.Append(buf.Wrap([]byte("abc\ndef\n")))
			require.EqualError(t, c.d.Validate(), c.msg)
			require.ErrorIs(t, c.d.Validate(), frame.ErrConfig)
			var f *buf.Buffer
			require.NotPanics(t, func() { require.EqualError(t, c.d.Decode(in, &f), c.msg) })
			require.Nil(t, f)
			_, err := c.d.Next(in)
			require.ErrorIs(t, err, frame.ErrConfig)
			require.Equal(t, 8, in.Len(), "a refused configuration consumes nothing")
		})
	}
	require.NoError(t, (&frame.Fixed{Length: 1}).Validate())
	require.NoError(t, frame.NewDelimiter([]byte("\n")).Validate())
}

func capOr(n int) int {
	if n <= 0 {
		return frame.DefaultMaxFrameLength
	}
	return n
}

// TestLengthFieldMalformed: each malformed class is a *SyntaxError at the
// frame's stream offset, skips what Netty skips, and decoding goes on.
func TestLengthFieldMalformed(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      frame.LengthField
		stream string
		want   []string // frames, or "err <kind> @<offset>"
	}{
		// Adjusted length shorter than the header: the header is skipped.
		{"short of its header", frame.LengthField{Size: 1, Adjustment: -3}, "\x01\x05ok", []string{"err frame: bad length field @0", "\x05ok"}},
		// Strip past the frame's end: the whole frame is skipped.
		{"strip past the end", frame.LengthField{Size: 1, Strip: 4}, "\x01a\x06xyzabc", []string{"err frame: bad length field @0", "abc"}},
		// A length over the cap: the frame is skipped.
		{"over the cap", frame.LengthField{Size: 1, MaxFrameLength: 3}, "\x05abcde\x02xy", []string{"err frame: frame too long @0", "\x02xy"}},
		// An 8-byte length near 2^64: negative to Netty, a bad length at
		// once (TestLengthFieldNegativeLength), never a panic or an overflow.
		{"2^64-1", frame.LengthField{Size: 8, FailFast: true}, "\xff\xff\xff\xff\xff\xff\xff\xff", []string{"err frame: bad length field @0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := buf.NewComposite()
			defer in.Release()
			in.Append(buf.Wrap([]byte(c.stream)))
			d := c.d
			var got []string
			for {
				var f *buf.Buffer
				err := d.Decode(in, &f)
				if err == frame.ErrShort {
					break
				}
				if err != nil {
					var se *frame.SyntaxError
					require.ErrorAs(t, err, &se)
					got = append(got, fmt.Sprintf("err %v @%d", se.Kind, se.Offset))
					continue
				}
				got = append(got, string(f.Bytes()))
				f.Release()
			}
			assert.Equal(t, c.want, got)
		})
	}
}
