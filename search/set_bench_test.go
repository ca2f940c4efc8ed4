package search

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const setBenchSize = 1 << 20

// setBenchText returns 1 MiB of Go source: the .go files under
// GOROOT/src concatenated in path order (read at test time, not
// committed).
var setBenchText = sync.OnceValues(func() ([]byte, error) {
	var text []byte
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	errDone := fmt.Errorf("done")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text = append(text, b...)
		if len(text) >= setBenchSize {
			return errDone
		}
		return nil
	})
	if err != errDone {
		return nil, fmt.Errorf("reading Go sources under %s: %v (%d bytes)", root, err, len(text))
	}
	return text[:setBenchSize], nil
})

// setBenchWords returns n distinct identifiers of at least 4 bytes that
// occur at most 3 times in text, in a random order.
func setBenchWords(b *testing.B, text []byte, n int, rng *rand.Rand) [][]byte {
	count := map[string]int{}
	for _, w := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{3,}`).FindAll(text, -1) {
		count[string(w)]++
	}
	var rare []string
	for w, c := range count {
		if c <= 3 {
			rare = append(rare, w)
		}
	}
	if len(rare) < n {
		b.Fatalf("only %d rare words; want %d", len(rare), n)
	}
	slices.Sort(rare)
	rng.Shuffle(len(rare), func(i, j int) { rare[i], rare[j] = rare[j], rare[i] })
	return toBytes(rare[:n])
}

// setBenchAbsent returns n random lower-case words of 5–10 letters that do
// not occur in text.
func setBenchAbsent(text []byte, n int, rng *rand.Rand) [][]byte {
	words := make([][]byte, 0, n)
	for len(words) < n {
		w := make([]byte, 5+rng.IntN(6))
		for i := range w {
			w[i] = 'a' + byte(rng.IntN(26))
		}
		if !bytes.Contains(text, w) {
			words = append(words, w)
		}
	}
	return words
}

// setBenchRegexp compiles the leftmost-first equivalent of a Set, the
// reference in the same run (for sets of up to setBenchRegexpMax patterns:
// the regexp engine slows down with the size of the alternation).
func setBenchRegexp(pats [][]byte) *regexp.Regexp {
	q := make([]string, len(pats))
	for i, p := range pats {
		q[i] = regexp.QuoteMeta(string(p))
	}
	return regexp.MustCompile(strings.Join(q, "|"))
}

var sinkSetMatch Match

// BenchmarkSetPrefilter searches 1 MiB of Go source for 5 absent words
// that all begin with one of three bytes, so Find skips from candidate to
// candidate with bytes.IndexByte: 'Q', 'X' and 'Z' are rare in Go source,
// 'e', 't' and 'a' common. prefilter=off is the same search on the bare
// automaton, the reference.
func BenchmarkSetPrefilter(b *testing.B) {
	text, err := setBenchText()
	if err != nil {
		b.Skip(err)
	}
	for _, first := range []string{"rare", "common"} {
		lead := "QXZ"
		if first == "common" {
			lead = "eta"
		}
		pats := setBenchAbsent(text, 5, rand.New(rand.NewPCG(3, 3)))
		for i, p := range pats {
			p[0] = lead[i%3]
		}
		setBenchPrefilter(b, text, first, pats)
	}
}

func setBenchPrefilter(b *testing.B, text []byte, first string, pats [][]byte) {
	s, a := NewSet(pats), NewAhoCorasick(pats)
	for _, impl := range []struct {
		name string
		find func([]byte) (Match, bool)
	}{{"on", s.Find}, {"off", a.Find}} {
		b.Run("patterns=5/first="+first+"/prefilter="+impl.name, func(b *testing.B) {
			benchFindAbsent(b, text, impl.find)
		})
	}
}

// benchFindAbsent times find over text, in which nothing may match, so the
// whole text is scanned on every iteration.
func benchFindAbsent(b *testing.B, text []byte, find func([]byte) (Match, bool)) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		m, ok := find(text)
		if ok {
			b.Fatalf("unexpected match %v", m)
		}
		sinkSetMatch = m
	}
}

// setBenchRegexpMax is the largest set compared with regexp, which needs
// seconds per MiB beyond it.
const setBenchRegexpMax = 16

// BenchmarkSetFind searches 1 MiB of Go source for a set of random words
// that do not occur in it, so the whole text is scanned. impl=regexp is an
// alternation of the quoted words, the reference.
func BenchmarkSetFind(b *testing.B) {
	text, err := setBenchText()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16, 100, 1000} {
		pats := setBenchAbsent(text, n, rand.New(rand.NewPCG(uint64(n), 1)))
		b.Run(fmt.Sprintf("patterns=%d/impl=netkit", n), func(b *testing.B) {
			benchFindAbsent(b, text, NewSet(pats).Find)
		})
		if n > setBenchRegexpMax {
			continue
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=regexp", n), func(b *testing.B) {
			re := setBenchRegexp(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if loc := re.FindIndex(text); loc != nil {
					b.Fatalf("unexpected match %v", loc)
				}
			}
		})
	}
}

// BenchmarkSetAll reports every leftmost-first match in 1 MiB of Go source
// of a set of identifiers that each occur at most three times in it.
// impl=regexp is an alternation of the quoted words, the reference.
func BenchmarkSetAll(b *testing.B) {
	text, err := setBenchText()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16, 100, 1000} {
		pats := setBenchWords(b, text, n, rand.New(rand.NewPCG(uint64(n), 2)))
		// The match count is checked against regexp for the smaller sets.
		want := 0
		if n <= setBenchRegexpMax {
			want = len(setBenchRegexp(pats).FindAllIndex(text, -1))
		} else {
			for range NewSet(pats).All(text) {
				want++
			}
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=netkit", n), func(b *testing.B) {
			s := NewSet(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				count := 0
				for m := range s.All(text) {
					sinkSetMatch = m
					count++
				}
				if count != want {
					b.Fatalf("%d matches; regexp finds %d", count, want)
				}
			}
		})
		if n > setBenchRegexpMax {
			continue
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=regexp", n), func(b *testing.B) {
			re := setBenchRegexp(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if got := len(re.FindAllIndex(text, -1)); got != want {
					b.Fatalf("%d matches; want %d", got, want)
				}
			}
		})
	}
}
