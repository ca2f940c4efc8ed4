package search

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/netkit/netkit/internal/race"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acCheckLayout checks the invariants of the automaton's tables that the
// search loops rely on: transitions are pre-multiplied ids of states,
// exactly the states numbered from minMatch on have outputs, and every
// slice is sized exactly, as the memory figures of the doc comment say.
func acCheckLayout(t *testing.T, a *AhoCorasick) {
	t.Helper()
	n := len(a.depth)
	require.Len(t, a.trans, n*int(a.stride), "transitions of %d states of %d classes", n, a.stride)
	require.Len(t, a.head, n, "heads of %d states", n)
	require.Len(t, a.outs, a.n, "outputs of %d patterns", a.n)
	require.Equal(t, n*(4*int(a.stride)+8)+12*a.n, a.memSize(), "memSize()")
	// The tables have millions of entries: the loops collect what is wrong
	// and assert once, as testify's message arguments would cost more than
	// the check itself.
	var notStates, badHeads []int
	for i, s := range a.trans {
		if s%a.stride != 0 || int(s) >= len(a.trans) {
			notStates = append(notStates, i)
		}
	}
	require.Empty(t, notStates, "transitions that are not states of stride %d", a.stride)
	require.Zero(t, a.depth[0], "root's depth")
	require.Zero(t, a.head[0], "root's head")
	for id, h := range a.head {
		if match := uint32(id)*a.stride >= a.minMatch; match != (h != 0) {
			badHeads = append(badHeads, id)
		}
	}
	require.Empty(t, badHeads, "states whose head says otherwise than minMatch %d", a.minMatch/a.stride)
}

// TestAhoCorasickManyPatterns builds 10,000 distinct lower-case words and
// checks that each of a few hundred is found where it was put.
func TestAhoCorasickManyPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(10000, 6))
	pats := make([][]byte, 0, 10000)
	seen := map[string]bool{}
	for len(pats) < cap(pats) {
		w := make([]byte, 5+rng.IntN(6))
		for i := range w {
			w[i] = 'a' + byte(rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			pats = append(pats, w)
		}
	}
	samples := 300
	if testing.Short() || race.Enabled {
		samples = 50
	}
	a := NewAhoCorasick(pats, LeftmostLongest())
	acCheckLayout(t, a)
	over := NewAhoCorasick(pats, Overlapping())
	// Between dots, which no pattern contains, the leftmost-longest match
	// of a pattern is itself.
	var h []byte
	for _, i := range rng.Perm(len(pats))[:samples] {
		p := pats[i]
		want := Match{Start: 1, End: int64(1 + len(p)), Pattern: i}
		m, ok := a.Find([]byte("." + string(p) + "."))
		assert.True(t, ok, "Find(%q) found nothing", p)
		assert.Equal(t, want, m, "Find(%q)", p)
		h = append(append(h, '.'), p...)
	}
	got, want := slices.Collect(over.All(h)), setOverlappingSlow(h, pats, false)
	if assert.Len(t, got, len(want), "overlapping All: matches") {
		assert.Equal(t, want, got, "overlapping All")
	}
}

// TestAhoCorasickByteAlphabet compares an automaton of patterns over all
// 256 byte values (one class per byte value) with the naive references on
// a small haystack. Some patterns are suffixes of others, so that outputs
// are inherited through failure links, and some are repeated.
func TestAhoCorasickByteAlphabet(t *testing.T) {
	rng := rand.New(rand.NewPCG(256, 7))
	npats, hlen := 1000, 512
	if testing.Short() || race.Enabled {
		npats, hlen = 300, 256
	}
	pats := make([][]byte, npats)
	for i := range pats {
		switch {
		case i > 0 && rng.IntN(8) == 0: // a suffix of an earlier pattern
			p := pats[rng.IntN(i)]
			pats[i] = slices.Clone(p[rng.IntN(len(p)):])
		case i > 0 && rng.IntN(16) == 0: // a repeat
			pats[i] = slices.Clone(pats[rng.IntN(i)])
		default:
			p := make([]byte, 1+rng.IntN(8))
			for j := range p {
				p[j] = byte(rng.Uint32())
			}
			pats[i] = p
		}
	}
	for c := range 256 { // every byte value occurs
		pats[c%npats] = append(pats[c%npats], byte(c))
	}
	h := make([]byte, hlen)
	for i := range h {
		h[i] = byte(rng.Uint32())
	}
	for range hlen / 16 {
		p := pats[rng.IntN(len(pats))]
		copy(h[rng.IntN(len(h)-len(p)+1):], p)
	}
	require.Equal(t, uint32(256), NewAhoCorasick(pats).stride, "classes")
	for kind := range overlapping + 1 {
		for _, fold := range []bool{false, true} {
			acCheckLayout(t, NewAhoCorasick(pats, setOptions(kind, fold)...))
			setCheck(t, pats, h, kind, fold, rng)
		}
	}
}
