package search

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/netkit/netkit/internal/race"
)

// acCheckLayout checks the invariants of the automaton's tables that the
// search loops rely on: transitions are pre-multiplied ids of states,
// exactly the states numbered from minMatch on have outputs, and every
// slice is sized exactly, as the memory figures of the doc comment say.
func acCheckLayout(t *testing.T, a *AhoCorasick) {
	t.Helper()
	n := len(a.depth)
	if len(a.trans) != n*int(a.stride) || len(a.head) != n || len(a.outs) != a.n {
		t.Fatalf("%d transitions, %d heads, %d outputs for %d states of %d classes and %d patterns",
			len(a.trans), len(a.head), len(a.outs), n, a.stride, a.n)
	}
	if want := n*(4*int(a.stride)+8) + 12*a.n; a.memSize() != want {
		t.Fatalf("memSize() = %d; want %d", a.memSize(), want)
	}
	for i, s := range a.trans {
		if s%a.stride != 0 || int(s) >= len(a.trans) {
			t.Fatalf("transition %d = %d: not a state of stride %d", i, s, a.stride)
		}
	}
	if a.depth[0] != 0 || a.head[0] != 0 {
		t.Fatalf("root has depth %d, head %d", a.depth[0], a.head[0])
	}
	for id, h := range a.head {
		if match := uint32(id)*a.stride >= a.minMatch; match != (h != 0) {
			t.Fatalf("state %d (minMatch %d) has head %d", id, a.minMatch/a.stride, h)
		}
	}
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
		if m, ok := a.Find([]byte("." + string(p) + ".")); !ok || m != want {
			t.Errorf("Find(%q) = %v, %v; want %v", p, m, ok, want)
		}
		h = append(append(h, '.'), p...)
	}
	if got, want := slices.Collect(over.All(h)), setOverlappingSlow(h, pats, false); !slices.Equal(got, want) {
		t.Errorf("overlapping All: %d matches, want %d", len(got), len(want))
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
	if a := NewAhoCorasick(pats); a.stride != 256 {
		t.Fatalf("%d classes; want 256", a.stride)
	}
	for kind := range overlapping + 1 {
		for _, fold := range []bool{false, true} {
			acCheckLayout(t, NewAhoCorasick(pats, setOptions(kind, fold)...))
			setCheck(t, pats, h, kind, fold, rng)
		}
	}
}
