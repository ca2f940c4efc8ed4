package frame_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/internal/invariants"
)

// compositeOf appends each part to a new composite as a read of its own.
func compositeOf(parts ...string) *buf.Composite {
	in := buf.NewComposite()
	for _, p := range parts {
		b := buf.Get(len(p))
		b.WriteString(p)
		in.Append(b)
	}
	return in
}

// An error from the callback stops Each: the frame it failed on is
// consumed, the ones after it are not, and the next Each goes on there.
// Every decoder.
func TestEachStopsAtCallbackError(t *testing.T) {
	lf := frame.LengthField{Strip: 4}
	var lstream []byte
	for _, s := range []string{"a", "bb", "c"} {
		lstream = append(lstream, lengthFrames(t, &lf, []byte(s))...)
	}
	for _, c := range []struct {
		name  string
		dec   eacher
		parts []string
	}{
		{"Line", &frame.Line{StripDelimiter: true}, []string{"a\nb", "b\nc\n"}},
		{"Delimiter", func() eacher { d := frame.NewDelimiter([]byte(";")); d.StripDelimiter = true; return d }(), []string{"a;b", "b;c;"}},
		{"Fixed", &frame.Fixed{Length: 1}, []string{"ab", "c"}},
		{"LengthField", &lf, []string{string(lstream[:7]), string(lstream[7:])}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := compositeOf(c.parts...)
			defer in.Release()
			boom := errors.New("boom")
			var got []string
			err := c.dec.Each(in, func(p []byte) error {
				got = append(got, string(p))
				if len(got) == 2 {
					return boom
				}
				return nil
			})
			require.ErrorIs(t, err, boom)
			require.Len(t, got, 2, "frames before the error: %q", got)
			require.NoError(t, c.dec.Each(in, func(p []byte) error { got = append(got, string(p)); return nil }))
			require.Len(t, got, 3, "the frame after the error comes with the next Each: %q", got)
			assert.Equal(t, 0, in.Len(), "bytes left")
		})
	}
}

// Retained outside Each's callback is a programming error: it panics.
func TestRetainedOutsideCallback(t *testing.T) {
	d := &frame.Line{}
	require.Panics(t, func() { d.Retained() })
	in := compositeOf("x\n")
	defer in.Release()
	require.NoError(t, d.Each(in, func([]byte) error { return nil }))
	require.Panics(t, func() { d.Retained() }, "after Each returned")
}

// A frame that straddles reads is lent from the decoder's scratch; in the
// invariants build that scratch is poisoned when the callback returns, so
// a callback that kept the slice reads garbage.
func TestEachScratchPoisoned(t *testing.T) {
	if !invariants.Enabled {
		t.Skip("the scratch is poisoned in the invariants build (-tags invariants)")
	}
	in := compositeOf("straddl", "ing\n")
	defer in.Release()
	d := &frame.Line{}
	var kept []byte
	require.NoError(t, d.Each(in, func(p []byte) error { kept = p; return nil }))
	require.Len(t, kept, len("straddling\n"))
	for i, c := range kept {
		require.Equal(t, byte(0xDE), c, "byte %d of the kept slice is %q, want the poison", i, c)
	}
}

// Each hands out the lines of a composite in place, and Retained keeps
// one past the composite's release.
func ExampleLine_Each() {
	in := buf.NewComposite()
	for _, read := range []string{"GET / HTTP/1.1\r\nHost: exa", "mple.com\r\n\r\n"} {
		b := buf.Get(len(read))
		b.WriteString(read)
		in.Append(b)
	}
	d := &frame.Line{StripDelimiter: true}
	var host *buf.Buffer
	err := d.Each(in, func(line []byte) error {
		fmt.Printf("%q\n", line)
		if len(line) > 5 && string(line[:5]) == "Host:" {
			host = d.Retained() // this line is ours to keep
		}
		return nil
	})
	in.Release()
	fmt.Println(err, string(host.Bytes()))
	host.Release()
	// Output:
	// "GET / HTTP/1.1"
	// "Host: example.com"
	// ""
	// <nil> Host: example.com
}

// A panic in the callback goes through Each, and Retained afterwards
// panics as it does outside any callback.
func TestEachCallbackPanics(t *testing.T) {
	in := compositeOf("a\nb\n")
	defer in.Release()
	d := &frame.Line{}
	require.PanicsWithValue(t, "boom", func() {
		d.Each(in, func([]byte) error { panic("boom") })
	})
	require.Panics(t, func() { d.Retained() }, "Retained after a callback panicked")
}
