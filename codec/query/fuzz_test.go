package query_test

import (
	"testing"

	"github.com/netkit/netkit/codec/query"
	"github.com/stretchr/testify/require"
)

var fuzzSeeds = []string{
	"", "foo=bar&baz=qux", "a=%zz", "a=1;b=2", "%", "%4", "%41+%2b", "a&&b=&=c", "k=v%3Bw",
	"q=caf%C3%A9+au+lait&lang=fr", "\x00\xff=;&%",
}

// FuzzParse checks Values.Parse against url.ParseQuery in strict mode and
// the relaxed modes against strict mode; none may panic.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkParse(t, in)
	})
}

// FuzzUnescape checks Unescape and AppendUnescape against url.QueryUnescape.
func FuzzUnescape(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkUnescape(t, in)
	})
}

// FuzzEscape checks Escape and AppendEscape against url.QueryEscape, and that
// Unescape inverts them.
func FuzzEscape(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkEscape(t, in)
		back, err := query.Unescape(query.Escape(in))
		require.NoError(t, err, "Unescape(Escape(%q)) = %q,", in, back)
		require.Equal(t, in, back, "Unescape(Escape(%q)) = %q, %v", in, back, err)
	})
}
