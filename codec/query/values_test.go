package query_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type kv struct{ k, v string }

func pairs(vs *query.Values) []kv {
	var out []kv
	for k, v := range vs.All() {
		out = append(out, kv{string(k), string(v)})
	}
	return out
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		opts  query.Values
		want  []kv
		kind  error
		where int
	}{
		{name: "empty", in: ""},
		{name: "short", in: "foo=bar&baz=qux", want: []kv{{"foo", "bar"}, {"baz", "qux"}}},
		{name: "order", in: "b=1&a=2&b=3", want: []kv{{"b", "1"}, {"a", "2"}, {"b", "3"}}},
		{name: "no value", in: "a&b=&=c", want: []kv{{"a", ""}, {"b", ""}, {"", "c"}}},
		{name: "empty params", in: "&&a=1&&", want: []kv{{"a", "1"}}},
		{name: "second equals", in: "a=b=c", want: []kv{{"a", "b=c"}}},
		{name: "escapes", in: "a%20b=c+d%2B%26", want: []kv{{"a b", "c d+&"}}},
		{name: "bad key", in: "a=1&%zz=2&c=3", want: []kv{{"a", "1"}, {"c", "3"}}, kind: query.ErrBadEscape, where: 4},
		{name: "bad value", in: "a=1&b=x%4", want: []kv{{"a", "1"}}, kind: query.ErrBadEscape, where: 7},
		{name: "first error wins", in: "a=%&b;=1", kind: query.ErrBadEscape, where: 2},
		{name: "semicolon", in: "a=1;b=2&c=3", want: []kv{{"c", "3"}}, kind: query.ErrSemicolon, where: 3},
		{name: "semicolon escaped", in: "a=1%3Bb", want: []kv{{"a", "1;b"}}},
		{name: "semicolon normal", in: "a=1;b=2&c=3", opts: query.Values{SemicolonIsNormalChar: true},
			want: []kv{{"a", "1;b=2"}, {"c", "3"}}},
		{name: "lenient", in: "a=100%&b=%zz%41&c%=%4", opts: query.Values{Lenient: true},
			want: []kv{{"a", "100%"}, {"b", "%zzA"}, {"c%", "%4"}}},
		{name: "lenient keeps semicolon rule", in: "a=;", opts: query.Values{Lenient: true},
			kind: query.ErrSemicolon, where: 2},
		{name: "max params ok", in: "a&b&c", opts: query.Values{MaxParams: 3}, want: []kv{{"a", ""}, {"b", ""}, {"c", ""}}},
		{name: "max params exceeded", in: "a&b&c&d", opts: query.Values{MaxParams: 3}, kind: query.ErrTooManyParams, where: 5},
		{name: "max params counts empty", in: "a&&&", opts: query.Values{MaxParams: 3}, kind: query.ErrTooManyParams, where: 3},
		{name: "max params checked first", in: "%zz&b&c", opts: query.Values{MaxParams: 2}, kind: query.ErrTooManyParams, where: 5},
		{name: "no cap", in: strings.Repeat("&", 5000), opts: query.Values{MaxParams: -1}},
		{name: "default cap", in: strings.Repeat("&", 1000), kind: query.ErrTooManyParams, where: 999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tt.opts
			vs.Add([]byte("stale"), []byte("pair")) // Parse replaces the contents
			err := vs.Parse([]byte(tt.in))
			got := pairs(&vs)
			assert.True(t, slices.Equal(got, tt.want), "pairs = %q, want %q", got, tt.want)
			if tt.kind == nil {
				require.NoError(t, err)
				return
			}
			var se *query.SyntaxError
			require.ErrorIs(t, err, tt.kind)
			require.ErrorAs(t, err, &se)
			require.Equal(t, tt.where, se.Offset, "offset of %v", err)
		})
	}
}

func TestGetHasLen(t *testing.T) {
	var vs query.Values
	require.NoError(t, vs.Parse([]byte("a=1&b=&a=2&c")))
	require.Equal(t, 4, vs.Len())
	for _, c := range []struct {
		key, val string
		ok       bool
	}{{"a", "1", true}, {"b", "", true}, {"c", "", true}, {"d", "", false}, {"", "", false}} {
		v, ok := vs.Get(c.key)
		assert.Equal(t, c.val, string(v), "Get(%q)", c.key)
		assert.Equal(t, c.ok, ok, "Get(%q)", c.key)
		assert.Equal(t, c.ok, vs.Has(c.key), "Has(%q)", c.key)
	}
	// Results have no spare capacity: appending cannot clobber the next pair.
	v, _ := vs.Get("a")
	_ = append(v, 'X')
	w, _ := vs.Get("b")
	require.Equal(t, "", string(w), "append to a value changed the next key: %q", w)
	k := pairs(&vs)[1].k
	require.Equal(t, "b", k, "append to a value changed the next key: %q", k)
	// All stops when asked.
	n := 0
	for range vs.All() {
		n++
		break
	}
	require.Equal(t, 1, n, "All yielded %d pairs after break", n)
	vs.Reset()
	require.Equal(t, 0, vs.Len(), "Reset left pairs")
	require.False(t, vs.Has("a"), "Reset left pairs")
}

func TestAppendEncode(t *testing.T) {
	var vs query.Values
	require.Empty(t, vs.AppendEncode(nil), "an empty Values encodes to nothing")
	vs.Add([]byte("b"), []byte("x y"))
	vs.Add([]byte("a&"), []byte(""))
	vs.Add([]byte("b"), []byte("é;"))
	require.Equal(t, "?b=x+y&a%26=&b=%C3%A9%3B", string(vs.AppendEncode([]byte("?"))))
	// Sorted input gives net/url's bytes; a parse round trip keeps the pairs.
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		uv := url.Values{}
		var sorted query.Values
		for range r.IntN(6) {
			uv.Add(randomString(r, 5), randomString(r, 5))
		}
		for _, k := range slices.Sorted(maps.Keys(uv)) {
			for _, v := range uv[k] {
				sorted.Add([]byte(k), []byte(v))
			}
		}
		enc := sorted.AppendEncode(nil)
		require.Equal(t, uv.Encode(), string(enc), "AppendEncode = %q, url.Values.Encode = %q", enc, uv.Encode())
		var back query.Values
		require.NoError(t, back.Parse(enc), "Parse(%q)", enc)
		got, want := pairs(&back), pairs(&sorted)
		require.False(t, !slices.Equal(got, want) && !(len(got) == 0 && allEmptyKeyless(want)), "round trip of %q: %q, want %q", enc, got, want)
	}
}

// allEmptyKeyless reports whether every pair is "=" — pairs net/url also
// writes as "=" and which parse back as the pair ("", "").
func allEmptyKeyless(p []kv) bool {
	for _, x := range p {
		if x.k != "" || x.v != "" {
			return false
		}
	}
	return true
}

// checkParse compares Parse in strict mode (with net/url's cap) with
// url.ParseQuery: the same pairs (per key, in order) and an error exactly
// when net/url reports one.
func checkParse(t *testing.T, in string) {
	t.Helper()
	vs := query.Values{MaxParams: 10000}
	err := vs.Parse([]byte(in))
	want, wantErr := url.ParseQuery(in)
	require.Equal(t, wantErr != nil, err != nil, "Parse(%.80q) error %v; net/url: %v", in, err, wantErr)
	got := url.Values{}
	for _, p := range pairs(&vs) {
		got[p.k] = append(got[p.k], p.v)
	}
	require.True(t, maps.EqualFunc(got, want, slices.Equal), "Parse(%.80q) = %q; net/url: %q", in, got, want)
	if err != nil {
		var se *query.SyntaxError
		require.True(t, errors.As(err, &se), "Parse(%.80q): error %v has no offset in the input", in, err)
		require.GreaterOrEqual(t, se.Offset, 0, "Parse(%.80q): error %v has no offset in the input", in, err)
		require.Less(t, se.Offset, len(in), "Parse(%.80q): error %v has no offset in the input", in, err)
		switch se.Kind {
		case query.ErrBadEscape:
			require.Equal(t, byte('%'), in[se.Offset], "Parse(%.80q): bad escape at %d is not a '%%'", in, se.Offset)
		case query.ErrSemicolon:
			require.Equal(t, byte(';'), in[se.Offset], "Parse(%.80q): semicolon at %d is not a ';'", in, se.Offset)
		case query.ErrTooManyParams:
		default:
			require.Fail(t, "unexpected kind", "Parse(%.80q): %v", in, se.Kind)
		}
	}
	checkParseOptions(t, in, &vs, err)
}

// checkParseOptions checks the relaxed modes against strict mode: where
// strict mode succeeds they agree, Lenient never reports a bad escape, and
// SemicolonIsNormalChar reads ';' as net/url reads "%3B".
func checkParseOptions(t *testing.T, in string, strict *query.Values, strictErr error) {
	t.Helper()
	lenient := query.Values{Lenient: true, MaxParams: -1}
	err := lenient.Parse([]byte(in))
	require.NotErrorIs(t, err, query.ErrBadEscape, "lenient Parse(%.80q) = %v", in, err)
	if strictErr == nil {
		require.NoError(t, err, "lenient Parse(%.80q) where strict accepts", in)
		require.True(t, slices.Equal(pairs(&lenient), pairs(strict)), "lenient Parse(%.80q) = %q; strict %q", in, pairs(&lenient), pairs(strict))
	}
	semi := query.Values{SemicolonIsNormalChar: true, MaxParams: 10000}
	err = semi.Parse([]byte(in))
	want, wantErr := url.ParseQuery(strings.ReplaceAll(in, ";", "%3B"))
	got := url.Values{}
	for _, p := range pairs(&semi) {
		got[p.k] = append(got[p.k], p.v)
	}
	require.Equal(t, wantErr != nil, err != nil, "SemicolonIsNormalChar Parse(%.80q) = %q, %v; net/url with %%3B: %q, %v", in, got, err, want, wantErr)
	require.True(t, maps.EqualFunc(got, want, slices.Equal), "SemicolonIsNormalChar Parse(%.80q) = %q, %v; net/url with %%3B: %q, %v", in, got, err, want, wantErr)
}

func TestParseMatchesNetURL(t *testing.T) {
	cases := []string{
		"", "&", "=", "==", "a", "a=", "=a", "a=b", "a=b&a=c", "a;b", "a=b;c", "%", "%4", "%41",
		"a=%zz", "a%3Db=c", "+=+", "a=1&a=2&b=3&a=4", ";", "&;&", "a=%&b=;",
	}
	r := rand.New(rand.NewPCG(7, 8))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		cases = append(cases, randomString(r, 30))
	}
	for _, in := range cases {
		checkParse(t, in)
	}
}

// TestParseMaxParamsMatchesNetURL checks net/url's own cap (10000 '&'-separated
// parameters) and that a larger MaxParams is honoured.
func TestParseMaxParamsMatchesNetURL(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		in := strings.Repeat("a&", n-1) + "a"
		checkParse(t, in)
	}
}
