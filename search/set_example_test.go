package search_test

import (
	"fmt"

	"github.com/netkit/netkit/search"
)

func ExampleSet_Find() {
	s := search.NewSet([][]byte{[]byte("Sam"), []byte("Samwise")})
	m, ok := s.Find([]byte("Hello, Samwise!"))
	fmt.Println(m, ok)

	// Among matches at the leftmost start, LeftmostLongest picks the
	// longest rather than the pattern given first.
	s = search.NewSet([][]byte{[]byte("Sam"), []byte("Samwise")}, search.LeftmostLongest())
	m, ok = s.Find([]byte("Hello, Samwise!"))
	fmt.Println(m, ok)
	// Output:
	// {7 10 0} true
	// {7 14 1} true
}

func ExampleSet_All() {
	needles := [][]byte{[]byte("he"), []byte("she"), []byte("HIS"), []byte("hers")}
	h := []byte("ushers and his")
	s := search.NewSet(needles, search.ASCIICaseInsensitive())
	for m := range s.All(h) {
		fmt.Printf("%s at %d (pattern %d)\n", h[m.Start:m.End], m.Start, m.Pattern)
	}
	fmt.Println("overlapping:")
	s = search.NewSet(needles, search.Overlapping(), search.ASCIICaseInsensitive())
	for m := range s.All(h) {
		fmt.Printf("%s at %d (pattern %d)\n", h[m.Start:m.End], m.Start, m.Pattern)
	}
	// Output:
	// she at 1 (pattern 1)
	// his at 11 (pattern 2)
	// overlapping:
	// she at 1 (pattern 1)
	// he at 2 (pattern 0)
	// hers at 2 (pattern 3)
	// his at 11 (pattern 2)
}

func ExampleSet_Matcher() {
	s := search.NewSet([][]byte{[]byte("password"), []byte("token")})
	m := s.Matcher()
	for _, chunk := range []string{"user=a&pass", "word=x&tok", "en=y"} {
		m.Feed([]byte(chunk))
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			fmt.Println(match.Pattern, match.Start, match.End)
		}
	}
	// Output:
	// 0 7 15
	// 1 18 23
}
