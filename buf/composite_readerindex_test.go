package buf_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// parseFrame reads one frame of a 4-byte big-endian length and that many
// bytes from c. When the frame is incomplete it restores the reader to
// where the frame began and returns io.ErrUnexpectedEOF.
func parseFrame(c *buf.Composite) ([]byte, error) {
	mark := c.ReaderIndex()
	n, err := c.ReadUint32()
	if err == nil {
		var body []byte
		if body, err = c.Next(int(n)); err == nil {
			return body, nil
		}
	}
	c.SetReaderIndex(mark)
	return nil, io.ErrUnexpectedEOF
}

// TestCompositeReaderIndexBackOut parses length-prefixed frames whose
// prefix and body arrive in pieces: an incomplete frame is backed out of
// (the reader returns to the frame's start and nothing is released), and
// parsing resumes once more bytes are appended.
func TestCompositeReaderIndexBackOut(t *testing.T) {
	buftest.CheckLeaks(t)
	stream := []byte("\x00\x00\x00\x05hello\x00\x00\x00\x03abc\x00\x00\x00\x00")
	// Pieces that split the second prefix and the second body.
	pieces := []string{string(stream[:9]), string(stream[9:11]), string(stream[11:15]), string(stream[15:])}
	c := buf.NewComposite()
	defer c.Release()
	var got []string
	var held []*buf.Buffer
	for k, p := range pieces {
		b := buf.Get(len(p))
		b.WriteString(p)
		held = append(held, b.Retain())
		c.Append(b)
		for {
			before, n := c.ReaderIndex(), c.Len()
			body, err := parseFrame(c)
			if errors.Is(err, io.ErrUnexpectedEOF) {
				require.Equal(t, before, c.ReaderIndex(), "piece %d: ReaderIndex after backing out", k)
				require.Equal(t, n, c.Len(), "piece %d: Len after backing out", k)
				break
			}
			got = append(got, string(body))
			if c.Len() == 0 {
				break
			}
		}
		// Backing out released nothing: every piece appended is held.
		for i, h := range held {
			require.Equal(t, 2, h.RefCount(), "piece %d: buffer %d has %d references, want 2 (test and composite)", k, i, h.RefCount())
		}
	}
	require.Equal(t, []string{"hello", "abc", ""}, got, "frames")
	require.Equal(t, len(stream), c.ReaderIndex(), "ReaderIndex at the end")
	require.Zero(t, c.Len(), "Len at the end")
	// Back to the start of the second frame, which straddles three
	// components, and read it again.
	c.SetReaderIndex(9)
	body, err := parseFrame(c)
	require.NoError(t, err, "second frame re-read = %q", body)
	require.Equal(t, "abc", string(body), "second frame re-read = %q, %v", body, err)
	c.Discard(c.Len())
	for _, h := range held {
		h.Release()
	}
}

// TestCompositeSetReaderIndexRange checks the range SetReaderIndex accepts:
// from the first byte still held to the end; an index saved before a
// Discard released its bytes panics, and so do indexes past the end.
func TestCompositeSetReaderIndexRange(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(12)
	c := compNew(data, []int{4, 4}) // components at 0–3, 4–7, 8–11
	defer c.Release()
	start := c.ReaderIndex()
	c.Skip(6)
	c.SetReaderIndex(start) // reads release nothing: all is held
	v, _ := c.ReadByte()
	require.Equal(t, data[0], v, "ReadByte after SetReaderIndex(start)")
	c.SetReaderIndex(12) // the end
	require.Equal(t, 0, c.Len(), "Len %d at the end, want 0", c.Len())
	c.SetReaderIndex(5)
	c.Discard(0) // releases the first component, read to its end
	for _, i := range []int{start, 3, 13, -1} {
		msg := panicString(func() { c.SetReaderIndex(i) })
		assert.True(t, strings.HasPrefix(msg, "buf: Composite.SetReaderIndex("), "SetReaderIndex(%d) after Discard: panic %q, want the range [4, 12] named", i, msg)
		assert.Contains(t, msg, "[4, 12]", "SetReaderIndex(%d) after Discard: panic %q, want the range [4, 12] named", i, msg)
	}
	require.Equal(t, 5, c.ReaderIndex(), "a refused SetReaderIndex moved the reader to %d", c.ReaderIndex())
	c.SetReaderIndex(4) // the first byte held
	checkComp(t, c, data[4:])
	n := c.NumComponents()
	require.Equal(t, 2, n, "%d components, want 2", n)
}

// TestCompositeReaderIndexAllocs checks that saving and restoring the
// reader index, across components, allocates nothing.
func TestCompositeReaderIndexAllocs(t *testing.T) {
	c := compNew(pattern(64), []int{5, 7, 11, 13, 17})
	defer c.Release()
	n := testing.AllocsPerRun(100, func() {
		mark := c.ReaderIndex()
		c.ReadUint64()
		c.Skip(20)
		c.SetReaderIndex(mark + 3)
		c.SetReaderIndex(mark)
	})
	require.Equal(t, float64(0), n, "%v allocations per save and restore, want 0", n)
}

// panicString returns the string f panics with ("" when it does not panic
// or panics with something else).
func panicString(f func()) (msg string) {
	defer func() { msg, _ = recover().(string) }()
	f()
	return ""
}
