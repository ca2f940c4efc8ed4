package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
		d := frame.Line{MaxLength: r.IntN(24), StripDelimiter: r.IntN(2) == 0, FailFast: r.IntN(2) == 0}
		// Sparse newlines make long lines; '\r' tests the "\r\n" rule.
		alphabet := []string{"ab\n", "aaaaaaab\r\n", "a\r", "abcdefghijklmnopqrstuvwxyz\n\r"}[round%4]
		data := randomText(r, r.IntN(3000), alphabet)
		want := modelLine(d, data)
		for i, chunks := range chunkings(r, len(data)) {
			dec := d
			got := feed(t, a, &dec, data, chunks, capOr(d.MaxLength)+1, i%3)
			sameEvents(t, fmt.Sprintf("round %d %+v, chunks %v, %s", round, d, chunks, feedModes[i%3]), got, want)
		}
	}
	if in := a.Stats().Total().InUse; in != 0 {
		t.Errorf("InUse %d after every frame and composite was released", in)
	}
}

func TestFixedMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := buf.NewAllocator()
	for round := range 100 {
		length := 1 + r.IntN(100)
		data := randomText(r, r.IntN(5000), "abc")
		want := modelFixed(length, data)
		for i, chunks := range chunkings(r, len(data)) {
			got := feed(t, a, &frame.Fixed{Length: length}, data, chunks, length, i%3)
			sameEvents(t, fmt.Sprintf("round %d length %d, chunks %v, %s", round, length, chunks, feedModes[i%3]), got, want)
		}
	}
	if in := a.Stats().Total().InUse; in != 0 {
		t.Errorf("InUse %d after every frame and composite was released", in)
	}
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
			got := feed(t, a, &dec, data, chunks, bound, (i+round)%3)
			sameEvents(t, fmt.Sprintf("round %d %+v, chunks %v, %s", round, d, chunks, feedModes[(i+round)%3]), got, want)
		}
	}
	if in := a.Stats().Total().InUse; in != 0 {
		t.Errorf("InUse %d after every frame and composite was released", in)
	}
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
			mode := (i + round) % 3
			got := feed(t, a, d, data, chunks, bound+maxLen, mode)
			sameEvents(t, fmt.Sprintf("round %d %q max %d strip %v failFast %v, chunks %v, %s", round, set, maxFrame, strip, failFast, chunks, feedModes[mode]), got, want)
		}
	}
	if in := a.Stats().Total().InUse; in != 0 {
		t.Errorf("InUse %d after every frame and composite was released", in)
	}
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
	if f, err := d.Decode(in); err != frame.ErrShort {
		t.Fatalf("Decode before the c = %v, %v; want ErrShort (abc may still complete)", f, err)
	}
	in.Append(buf.Wrap([]byte("cyyb")))
	for _, want := range []string{"xx", "yy"} {
		f, err := d.Decode(in)
		if err != nil {
			t.Fatal(err)
		}
		if string(f.Bytes()) != want {
			t.Errorf("frame %q, want %q", f.Bytes(), want)
		}
		f.Release()
	}
}

// TestLineZeroCopy: a line within one read is a view of it, one across reads
// a copy; both outlive the composite.
func TestLineZeroCopy(t *testing.T) {
	in := buf.NewComposite()
	first := buf.Get(64)
	first.WriteString("one\ntw")
	in.Append(first.Retain())
	second := buf.Wrap([]byte("o\n"))
	in.Append(second)
	d := frame.Line{StripDelimiter: true}
	one, err := d.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	two, err := d.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	if &one.Bytes()[0] != &first.Bytes()[0] {
		t.Error("a line within one read was copied")
	}
	in.Release()
	if string(one.Bytes()) != "one" || string(two.Bytes()) != "two" {
		t.Errorf("frames %q %q after the composite's release", one.Bytes(), two.Bytes())
	}
	if first.RefCount() != 2 {
		t.Errorf("the read's RefCount is %d with the test and the view holding it, want 2", first.RefCount())
	}
	one.Release()
	two.Release()
	if !first.Release() {
		t.Error("the view kept a reference after its release")
	}
}

// TestErrorsAreTyped: errors.Is and errors.As work, and the message says
// what and where.
func TestErrorsAreTyped(t *testing.T) {
	d := frame.Line{MaxLength: 3}
	in := buf.NewComposite()
	defer in.Release()
	in.Append(buf.Wrap([]byte("ok\ntoo long\nok\n")))
	var errs []error
	for {
		f, err := d.Decode(in)
		if err == frame.ErrShort {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Release()
	}
	if len(errs) != 1 {
		t.Fatalf("errors %v, want one", errs)
	}
	var se *frame.SyntaxError
	if !errors.Is(errs[0], frame.ErrTooLong) || !errors.As(errs[0], &se) || se.Offset != 3 {
		t.Errorf("error %v: want ErrTooLong at offset 3", errs[0])
	}
	if got := errs[0].Error(); got != "frame: frame too long at offset 3" {
		t.Errorf("message %q", got)
	}
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
			if !errors.Is(err, frame.ErrLengthOverflow) || string(got) != "pre" {
				t.Errorf("%+v n=%d: %q, %v; want dst unchanged and ErrLengthOverflow", c.d, c.n, got, err)
			}
			continue
		}
		if err != nil || string(got) != "pre"+c.want {
			t.Errorf("%+v n=%d: %q, %v; want %q", c.d, c.n, got, err, "pre"+c.want)
		}
	}
}

// TestConfigPanics: configuration mistakes are programming errors (but
// LengthField's are errors: TestLengthFieldConfig).
func TestConfigPanics(t *testing.T) {
	in := buf.NewComposite()
	defer in.Release()
	for name, f := range map[string]func(){
		"Fixed{}":         func() { (&frame.Fixed{}).Decode(in) },
		"Delimiter{}":     func() { (&frame.Delimiter{}).Decode(in) },
		"NewDelimiter()":  func() { frame.NewDelimiter() },
		"empty delimiter": func() { frame.NewDelimiter([]byte("\n"), nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func capOr(n int) int {
	if n <= 0 {
		return frame.DefaultMaxFrameLength
	}
	return n
}

var _ = bytes.Equal

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
				f, err := d.Decode(in)
				if err == frame.ErrShort {
					break
				}
				if err != nil {
					var se *frame.SyntaxError
					if !errors.As(err, &se) {
						t.Fatalf("%v is not a *SyntaxError", err)
					}
					got = append(got, fmt.Sprintf("err %v @%d", se.Kind, se.Offset))
					continue
				}
				got = append(got, string(f.Bytes()))
				f.Release()
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
