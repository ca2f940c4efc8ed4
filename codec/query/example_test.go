package query_test

import (
	"errors"
	"fmt"

	"github.com/netkit/netkit/codec/query"
)

func ExampleValues_Parse() {
	var vs query.Values // reuse it: Parse keeps its storage
	if err := vs.Parse([]byte("q=caf%C3%A9+au+lait&page=2&q=croissant")); err != nil {
		panic(err)
	}
	q, _ := vs.Get("q")
	fmt.Printf("%d pairs, first q=%s\n", vs.Len(), q)
	for k, v := range vs.All() {
		fmt.Printf("%s=%s\n", k, v)
	}
	// Output:
	// 3 pairs, first q=café au lait
	// q=café au lait
	// page=2
	// q=croissant
}

func ExampleValues_Parse_errors() {
	var vs query.Values
	err := vs.Parse([]byte("a=1&b=100%&c=3"))
	var se *query.SyntaxError
	if errors.As(err, &se) && errors.Is(err, query.ErrBadEscape) {
		fmt.Println("bad escape at offset", se.Offset, "- kept", vs.Len(), "pairs")
	}

	lenient := query.Values{Lenient: true, SemicolonIsNormalChar: true}
	_ = lenient.Parse([]byte("b=100%&c=x;y"))
	for k, v := range lenient.All() {
		fmt.Printf("%s=%s\n", k, v)
	}

	capped := query.Values{MaxParams: 2}
	fmt.Println(capped.Parse([]byte("a&b&c")))
	// Output:
	// bad escape at offset 9 - kept 2 pairs
	// b=100%
	// c=x;y
	// query: too many parameters at offset 3
}

func ExampleValues_AppendEncode() {
	var vs query.Values
	vs.Add([]byte("q"), []byte("a&b c"))
	vs.Add([]byte("lang"), []byte("fr"))
	fmt.Println(string(vs.AppendEncode([]byte("/search?"))))
	// Output: /search?q=a%26b+c&lang=fr
}

func ExampleAppendEscape() {
	dst := query.AppendEscape([]byte("q="), []byte("1 + 1 = 2"))
	fmt.Println(string(dst))
	// Output: q=1+%2B+1+%3D+2
}

func ExampleAppendUnescape() {
	dst, err := query.AppendUnescape(nil, []byte("1+%2B+1"))
	fmt.Printf("%s %v\n", dst, err)
	_, err = query.AppendUnescape(nil, []byte("50%"))
	fmt.Println(err)
	// Output:
	// 1 + 1 <nil>
	// query: invalid escape at offset 2
}
