// Package corpus generates the inputs of netkit's search benchmarks at test
// time, so that the search package's own benchmarks and the side-by-side
// comparisons in internal/peers scan exactly the same bytes: Go source read
// from GOROOT (never committed), English-frequency random letters, and
// word lists drawn from them.
package corpus

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
)

// TextSize is the length of GoSource's text: 1 MiB.
const TextSize = 1 << 20

// GoSource returns 1 MiB of Go source: the .go files under GOROOT/src
// concatenated in path order. The result is computed once and shared;
// callers must not modify it.
var GoSource = sync.OnceValues(func() ([]byte, error) {
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
		if len(text) >= TextSize {
			return errDone
		}
		return nil
	})
	if err != errDone {
		return nil, fmt.Errorf("reading Go sources under %s: %v (%d bytes)", root, err, len(text))
	}
	return text[:TextSize], nil
})

// letterFreq is the frequency of each English letter a…z, per mille.
var letterFreq = [26]int{82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1}

// EnglishLetters returns n random lower-case letters drawn with the letter
// frequencies of English text, so that 'e' and 'a' are common and 'q' and
// 'z' rare, as in the text a real search scans.
func EnglishLetters(rng *rand.Rand, n int) []byte {
	var cum [26]int
	total := 0
	for i, f := range letterFreq {
		total += f
		cum[i] = total
	}
	b := make([]byte, n)
	for i := range b {
		r := rng.IntN(total)
		j := 0
		for cum[j] <= r {
			j++
		}
		b[i] = 'a' + byte(j)
	}
	return b
}

// RemoveAll changes bytes of h until needle no longer occurs in it: the
// last byte of each occurrence becomes the next letter. A change can only
// create occurrences that start after the changed one, so one pass from
// left to right suffices.
func RemoveAll(h, needle []byte) {
	for i := 0; ; i++ {
		k := bytes.Index(h[i:], needle)
		if k < 0 {
			return
		}
		i += k
		j := i + len(needle) - 1
		h[j] = 'a' + (h[j]-'a'+1)%26
	}
}

// RareWords returns n distinct identifiers of at least 4 bytes that occur
// at most 3 times in text, in an order fixed by rng, or an error when text
// has fewer.
func RareWords(text []byte, n int, rng *rand.Rand) ([][]byte, error) {
	words, err := SomeRareWords(text, n, rng)
	if err == nil && len(words) < n {
		err = fmt.Errorf("corpus: only %d rare words; want %d", len(words), n)
	}
	return words, err
}

// SomeRareWords is RareWords returning all of text's rare identifiers when
// it has fewer than n (1 MiB of Go source has about 5,000), and an error
// only when it has none.
func SomeRareWords(text []byte, n int, rng *rand.Rand) ([][]byte, error) {
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
	if len(rare) == 0 {
		return nil, fmt.Errorf("corpus: no rare words in %d bytes", len(text))
	}
	n = min(n, len(rare))
	slices.Sort(rare)
	rng.Shuffle(len(rare), func(i, j int) { rare[i], rare[j] = rare[j], rare[i] })
	return toBytes(rare[:n]), nil
}

// AbsentWords returns n distinct random lower-case words of 5–10 letters
// that do not occur in text.
func AbsentWords(text []byte, n int, rng *rand.Rand) [][]byte {
	words := make([][]byte, 0, n)
	seen := map[string]bool{}
	for len(words) < n {
		w := make([]byte, 5+rng.IntN(6))
		for i := range w {
			w[i] = 'a' + byte(rng.IntN(26))
		}
		if !seen[string(w)] && !bytes.Contains(text, w) {
			seen[string(w)] = true
			words = append(words, w)
		}
	}
	return words
}

func toBytes(ss []string) [][]byte {
	b := make([][]byte, len(ss))
	for i, s := range ss {
		b[i] = []byte(s)
	}
	return b
}

// AbsentNeedle returns m bytes of text from a random place, the last one
// changed (within printable ASCII) until the needle does not occur in
// text: a needle made of the text's own bytes, so that a search's candidate
// checks fire as often as on real input, but never matches. m must be
// shorter than text.
func AbsentNeedle(rng *rand.Rand, text []byte, m int) []byte {
	for {
		i := rng.IntN(len(text) - m)
		needle := bytes.Clone(text[i : i+m])
		last := needle[m-1]
		for k := range 94 {
			needle[m-1] = '!' + (last-'!'+byte(k))%94
			if !bytes.Contains(text, needle) {
				return needle
			}
		}
	}
}
