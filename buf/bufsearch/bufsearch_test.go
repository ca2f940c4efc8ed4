package bufsearch_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/bufsearch"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/netkit/netkit/search"
)

// compose returns a composite of data cut into pieces whose sizes cycle
// through layout, each in a pooled buffer.
func compose(data []byte, layout []int) *buf.Composite {
	c := buf.NewComposite()
	for i, k := 0, 0; i < len(data); k++ {
		n := min(layout[k%len(layout)], len(data)-i)
		b := buf.Get(n)
		b.Write(data[i : i+n])
		c.Append(b)
		i += n
	}
	return c
}

// flat returns the readable bytes of c laid end to end.
func flat(c *buf.Composite) []byte { return bytes.Join(c.Buffers(), nil) }

func TestIndex(t *testing.T) {
	buftest.CheckLeaks(t)
	var s bufsearch.Searcher
	for _, tc := range testenv.IndexCases {
		c := compose([]byte(tc.Content), tc.Layout)
		require.NoError(t, c.Skip(tc.Skip))
		p := search.NewPattern([]byte(tc.Needle))
		assert.Equal(t, tc.Want, s.Index(c, p), "Searcher.Index(%q) in %q (layout %v, skip %d)", tc.Needle, tc.Content, tc.Layout, tc.Skip)
		assert.Equal(t, tc.Want, bufsearch.Index(c, p), "Index(%q) in %q (layout %v, skip %d)", tc.Needle, tc.Content, tc.Layout, tc.Skip)
		assert.Equal(t, []byte(tc.Content[tc.Skip:]), flat(c), "bytes after the search")
		c.Release()
	}
}

// TestIndexDifferential checks Index against bytes.Index on the flat bytes:
// random contents of a small alphabet in tiny components, needles often
// longer than every component.
func TestIndexDifferential(t *testing.T) {
	buftest.CheckLeaks(t)
	r := rand.New(rand.NewPCG(5, 6))
	var s bufsearch.Searcher
	for trial := range 2000 {
		data, layout := testenv.RandomLayout(r, "ab", 80)
		c := compose(data, layout)
		skip := r.IntN(len(data) + 1)
		require.NoError(t, c.Skip(skip))
		h := data[skip:]
		for range 4 {
			n := testenv.Needle(r, h, "ab", 16)
			if trial%5 == 0 {
				n = testenv.Needle(r, h, "ab", 40)
			}
			want := bytes.Index(h, n)
			require.Equal(t, want, s.Index(c, search.NewPattern(n)), "Index(%q) in %q (layout %v)", n, h, layout)
		}
		require.Equal(t, h, flat(c))
		c.Release()
	}
}

func TestIndexSet(t *testing.T) {
	buftest.CheckLeaks(t)
	var s bufsearch.Searcher
	// A case whose answer differs by match kind, straddling seams.
	c := compose([]byte("xxabcdxx"), []int{1})
	for _, tc := range []struct {
		opts  []search.SetOption
		start int64
		end   int64
		pat   int
	}{
		{nil, 2, 5, 0},
		{[]search.SetOption{search.LeftmostLongest()}, 2, 6, 1},
		{[]search.SetOption{search.Overlapping()}, 3, 4, 2},
		{[]search.SetOption{search.ASCIICaseInsensitive()}, 2, 5, 0},
	} {
		set := search.NewSet([][]byte{[]byte("abc"), []byte("abcd"), []byte("b")}, tc.opts...)
		m, ok := s.IndexSet(c, set)
		require.True(t, ok)
		assert.Equal(t, search.Match{Start: tc.start, End: tc.end, Pattern: tc.pat}, m)
		m2, ok2 := bufsearch.IndexSet(c, set)
		assert.Equal(t, m, m2, "package-level IndexSet")
		assert.Equal(t, ok, ok2)
	}
	m, ok := s.IndexSet(c, search.NewSet(nil))
	assert.False(t, ok, "IndexSet of no patterns = %+v", m)
	c.Release()
}

// TestIndexSetDifferential checks IndexSet against Set.Find on the flat
// bytes for every match kind, with and without case folding.
func TestIndexSetDifferential(t *testing.T) {
	buftest.CheckLeaks(t)
	optionSets := []struct {
		name string
		opts []search.SetOption
	}{
		{"LeftmostFirst", nil},
		{"LeftmostLongest", []search.SetOption{search.LeftmostLongest()}},
		{"Overlapping", []search.SetOption{search.Overlapping()}},
		{"LeftmostFirst fold", []search.SetOption{search.LeftmostFirst(), search.ASCIICaseInsensitive()}},
		{"LeftmostLongest fold", []search.SetOption{search.LeftmostLongest(), search.ASCIICaseInsensitive()}},
		{"Overlapping fold", []search.SetOption{search.Overlapping(), search.ASCIICaseInsensitive()}},
	}
	r := rand.New(rand.NewPCG(7, 8))
	var s bufsearch.Searcher
	for trial := range 3000 {
		o := optionSets[trial%len(optionSets)]
		data, layout := testenv.RandomLayout(r, "abAB", 80)
		c := compose(data, layout)
		skip := r.IntN(len(data) + 1)
		require.NoError(t, c.Skip(skip))
		h := data[skip:]
		needles := make([][]byte, 1+r.IntN(4))
		for i := range needles {
			n := 12
			if trial%7 == 0 {
				n = 30 // longer than every component
			}
			needles[i] = testenv.Needle(r, h, "abAB", n)
		}
		set := search.NewSet(needles, o.opts...)
		want, wantOK := set.Find(h)
		got, ok := s.IndexSet(c, set)
		require.Equal(t, wantOK, ok, "%s: IndexSet(%q) in %q (layout %v)", o.name, needles, h, layout)
		require.Equal(t, want, got, "%s: IndexSet(%q) in %q (layout %v)", o.name, needles, h, layout)
		require.Equal(t, h, flat(c))
		c.Release()
	}
}

// TestNextSurvivesSearch checks that a straddling Next's bytes, which live
// in the composite's scratch area, stay valid through searches, which copy
// bytes across seams into the Searcher's window.
func TestNextSurvivesSearch(t *testing.T) {
	buftest.CheckLeaks(t)
	c := compose([]byte("abcdefghijklmnopqrstuvwxyz"), []int{3})
	defer c.Release()
	p, err := c.Next(5)
	require.NoError(t, err)
	require.Equal(t, "abcde", string(p))
	var s bufsearch.Searcher
	assert.Equal(t, 18, s.Index(c, search.NewPattern([]byte("xyz"))))
	m, ok := s.IndexSet(c, search.NewSet([][]byte{[]byte("nopqrstu"), []byte("zz")}))
	assert.True(t, ok)
	assert.EqualValues(t, 8, m.Start)
	assert.Equal(t, "abcde", string(p), "Next's slice changed without a read, Discard or Release")
}

func TestReleased(t *testing.T) {
	c := compose([]byte("abc"), []int{1})
	c.Release()
	var s bufsearch.Searcher
	for name, f := range map[string]func(){
		"Index":       func() { s.Index(c, search.NewPattern([]byte("x"))) },
		"Index empty": func() { s.Index(c, search.NewPattern(nil)) },
		"IndexSet":    func() { s.IndexSet(c, search.NewSet([][]byte{[]byte("x")})) },
	} {
		assert.PanicsWithError(t, buf.ErrReleased.Error()+" (composite)", f, name)
	}
}

// TestAllocs checks that a kept Searcher searches again without
// allocating once its window has grown.
func TestAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	data := bytes.Repeat([]byte("abcabd"), 100)
	data = append(data, "abcabcabe"...)
	c := compose(data, []int{1, 2, 3, 4, 5, 6, 7, 8, 9})
	defer c.Release()
	p := search.NewPattern([]byte("bcabe"))
	set := search.NewSet([][]byte{[]byte("abe"), []byte("cabcx")}, search.LeftmostLongest())
	var s bufsearch.Searcher
	s.Index(c, p)
	s.IndexSet(c, set)
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		sink += s.Index(c, p)
		m, _ := s.IndexSet(c, set)
		sink += int(m.Start)
	})
	assert.Zero(t, allocs)
	assert.Positive(t, sink)
}

// FuzzIndexSet checks Index and IndexSet against Pattern.Index and
// Set.Find on the flat bytes, for composites cut from the input at
// positions the input chooses.
func FuzzIndexSet(f *testing.F) {
	f.Add([]byte("xxabcdxx"), []byte{1}, []byte("abc"), []byte("abcd"), uint8(0))
	f.Add([]byte("hello\r\n\r\nbody"), []byte{6, 1, 1, 1, 9}, []byte("\r\n\r\n"), []byte("\n\n"), uint8(1))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaab"), []byte{2, 3}, []byte("aaaaab"), []byte("b"), uint8(6))
	f.Fuzz(func(t *testing.T, data, cuts, n1, n2 []byte, opts uint8) {
		if len(cuts) == 0 {
			cuts = []byte{1}
		}
		layout := make([]int, len(cuts))
		for i, k := range cuts {
			layout[i] = 1 + int(k)%16
		}
		c := compose(data, layout)
		defer c.Release()
		skip := int(opts>>3) % (len(data) + 1)
		require.NoError(t, c.Skip(skip))
		h := data[skip:]
		var s bufsearch.Searcher
		p := search.NewPattern(n1)
		require.Equal(t, p.Index(h), s.Index(c, p), "Index(%q) in %q (layout %v)", n1, h, layout)
		var so []search.SetOption
		switch opts % 3 {
		case 1:
			so = append(so, search.LeftmostLongest())
		case 2:
			so = append(so, search.Overlapping())
		}
		if opts&4 != 0 {
			so = append(so, search.ASCIICaseInsensitive())
		}
		var needles [][]byte
		for _, n := range [][]byte{n1, n2} {
			if len(n) > 0 {
				needles = append(needles, n)
			}
		}
		set := search.NewSet(needles, so...)
		want, wantOK := set.Find(h)
		got, ok := s.IndexSet(c, set)
		require.Equal(t, wantOK, ok, "IndexSet(%q, options %d) in %q (layout %v)", needles, opts, h, layout)
		require.Equal(t, want, got, "IndexSet(%q, options %d) in %q (layout %v)", needles, opts, h, layout)
	})
}
