package query_test

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/netkit/netkit/codec/query"
	"github.com/stretchr/testify/require"
)

var escapeCases = []string{
	"", "a", " ", "+", "%", "a b", "foo=bar&baz=qux", "~-._", "AZaz09",
	"!*'();:@&=+$,/?#[]", "\x00\x7f\x80\xff", "héllo wörld", "%zz%4", "日本語",
}

func TestEscapeMatchesNetURL(t *testing.T) {
	for c := range 256 {
		escapeCases = append(escapeCases, string([]byte{byte(c)}))
	}
	for _, s := range escapeCases {
		checkEscape(t, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		checkEscape(t, randomString(r, 40))
	}
}

func checkEscape(t *testing.T, s string) {
	t.Helper()
	want := url.QueryEscape(s)
	require.Equal(t, want, query.Escape(s), "Escape(%q)", s)
	prefix := []byte("pre")
	require.Equal(t, "pre"+want, string(query.AppendEscape(prefix, []byte(s))), "AppendEscape(%q)", s)
}

func TestUnescapeMatchesNetURL(t *testing.T) {
	cases := []string{
		"", "a", "+", "%", "%2", "%20", "%2g", "%g2", "a%", "a%4", "%41%42", "%%41",
		"a+b%2Bc", "%e6%97%a5", "%E6%97%A5", "%zz", "%00", "%FF", "x%2", "+%+",
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		cases = append(cases, randomString(r, 20))
	}
	for _, s := range cases {
		checkUnescape(t, s)
	}
}

func checkUnescape(t *testing.T, s string) {
	t.Helper()
	want, wantErr := url.QueryUnescape(s)
	got, err := query.Unescape(s)
	require.Equal(t, wantErr != nil, err != nil, "Unescape(%q) = %q, %v; net/url: %q, %v", s, got, err, want, wantErr)
	require.Equal(t, want, got, "Unescape(%q) = %q, %v; net/url: %q, %v", s, got, err, want, wantErr)
	b, err2 := query.AppendUnescape([]byte("pre"), []byte(s))
	require.Equal(t, wantErr != nil, err2 != nil, "AppendUnescape(%q) error %v; net/url: %v", s, err2, wantErr)
	if err2 == nil {
		require.Equal(t, "pre"+want, string(b), "AppendUnescape(%q)", s)
	}
	if err2 != nil {
		require.Equal(t, "pre", string(b), "AppendUnescape(%q) changed dst on error: %q", s, b)
		checkEscapeError(t, s, err)
		checkEscapeError(t, s, err2)
		// net/url names the bad escape: up to 3 bytes from the '%'.
		var se *query.SyntaxError
		errors.As(err, &se)
		bad := s[se.Offset:min(len(s), se.Offset+3)]
		require.EqualError(t, wantErr, url.EscapeError(bad).Error(), "Unescape(%q): offset %d names %q", s, se.Offset, bad)
	}
}

func checkEscapeError(t *testing.T, s string, err error) {
	t.Helper()
	var se *query.SyntaxError
	require.True(t, errors.As(err, &se), "Unescape(%q): error %v is not a SyntaxError of kind ErrBadEscape", s, err)
	require.ErrorIs(t, err, query.ErrBadEscape, "Unescape(%q): error %v is not a SyntaxError of kind ErrBadEscape", s, err)
	require.GreaterOrEqual(t, se.Offset, 0, "Unescape(%q): offset", s)
	require.Less(t, se.Offset, len(s), "Unescape(%q): offset", s)
	require.Equal(t, byte('%'), s[se.Offset], "Unescape(%q): offset %d is not a '%%'", s, se.Offset)
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := query.Unescape("ab%4")
	got, want := err.Error(), "query: invalid escape at offset 2"
	require.Equal(t, want, got, "got %q, want %q", got, want)
}

// alphabet is rich in the bytes that matter to queries.
const alphabet = "%%%+&&==;;aAfF09gz ~.\x00\xff\xc3\xa9"

func randomString(r *rand.Rand, maxLen int) string {
	b := make([]byte, r.IntN(maxLen+1))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
