package httpdate

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkCookie(t *testing.T, in string) {
	t.Helper()
	got, err := ParseCookie([]byte(in))
	want, ok := parseCookieSlow(in)
	require.Equal(t, err == nil, ok, "ParseCookie(%q) = %v, %v; slow model ok=%v %v", in, got, err, ok, want)
	if err != nil {
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "ParseCookie(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		require.GreaterOrEqual(t, se.Offset, 0, "ParseCookie(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		require.LessOrEqual(t, se.Offset, len(in), "ParseCookie(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		return
	}
	require.Equal(t, want, got, "ParseCookie(%q) against the slow model", in)
}

func TestParseCookieExamples(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time // zero: must fail
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"Sunday, 06-Nov-94 08:49:37 GMT", time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"Sun Nov  6 08:49:37 1994", time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"Wed, 09 Jun 2021 10:18:14 GMT", time.Date(2021, 6, 9, 10, 18, 14, 0, time.UTC)},
		{"Thu, 01-Jan-1970 00:00:01 GMT", time.Date(1970, 1, 1, 0, 0, 1, 0, time.UTC)},
		{"1994 Nov 6 8:9:7", time.Date(1994, 11, 6, 8, 9, 7, 0, time.UTC)},
		{"8:49:37 NOVEMBER 6th, '94", time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"06-Nov-69 08:49:37", time.Date(2069, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"06-Nov-70 08:49:37", time.Date(1970, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"Sat, 01 Jan 1601 00:00:00 GMT", time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"", time.Time{}},
		{"Sun, 06 Nov 1994 GMT", time.Time{}},           // no time
		{"Sun, Nov 1994 08:49:37 GMT", time.Time{}},     // 1994 is the year, no day
		{"Sun, 06 Nov 1600 08:49:37 GMT", time.Time{}},  // before 1601
		{"Sun, 31 Nov 1994 08:49:37 GMT", time.Time{}},  // November has 30 days
		{"Sun, 29 Feb 1900 08:49:37 GMT", time.Time{}},  // not a leap year
		{"Sun, 06 Nov 1994 24:00:00 GMT", time.Time{}},  // hour
		{"Sun, 06 Nov 1994 08:49:371 GMT", time.Time{}}, // time token with a third digit
		{"Sun, 32 Nov 1994 08:49:37 GMT", time.Time{}},  // day
		{"Sun, 06 Nov 19945 08:49:37 GMT", time.Time{}}, // five-digit year
	} {
		got, err := ParseCookie([]byte(tc.in))
		if tc.want.IsZero() {
			assert.Error(t, err, "ParseCookie(%q) = %v; want an error", tc.in, got)
		} else {
			assert.NoError(t, err, "ParseCookie(%q)", tc.in)
			assert.Equal(t, tc.want, got, "ParseCookie(%q)", tc.in)
		}
		checkCookie(t, tc.in)
	}
}

func TestParseCookieErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind error
		off  int
	}{
		{"Sun, 06 Nov 1994 GMT", ErrMissing, 20},
		{"Sun, 32 Nov 1994 08:49:37 GMT", ErrDay, 5},
		{"Sun, 06 Nov 1600 08:49:37 GMT", ErrYear, 12},
		{"Sun, 06 Nov 1994 08:60:37 GMT", ErrTime, 17},
		{"Sun, 31 Nov 1994 08:49:37 GMT", ErrDay, 5},
	} {
		_, err := ParseCookie([]byte(tc.in))
		var se *SyntaxError
		assert.ErrorIs(t, err, tc.kind, "ParseCookie(%q)", tc.in)
		if assert.ErrorAs(t, err, &se, "ParseCookie(%q)", tc.in) {
			assert.Equal(t, tc.off, se.Offset, "ParseCookie(%q): offset", tc.in)
		}
	}
}

// randomCookie builds a date from tokens in random order, random case and
// random delimiters, with noise tokens.
func randomCookie(r *rand.Rand) string {
	const delims = "\t !\"#$%&'()*+,-./;<=>?@[\\]^_`{|}~"
	const noise = "0123456789:abcdefghijklmnopqrstuvwxyzJANFEBNOV\x00\x7f\xc3\xa9"
	tm := randomTime(r)
	toks := []string{
		tm.Format("15:04:05"), tm.Format("2"), tm.Format("Jan"), tm.Format("2006"),
	}
	if r.IntN(2) == 0 {
		toks[0] = tm.Format("3:4:5")
	}
	if r.IntN(3) == 0 {
		toks[3] = tm.Format("06")
	}
	if r.IntN(3) == 0 {
		toks = append(toks, tm.Format("Monday"))
	}
	for range r.IntN(3) {
		n := 1 + r.IntN(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = noise[r.IntN(len(noise))]
		}
		toks = append(toks, string(b))
	}
	r.Shuffle(len(toks), func(i, j int) { toks[i], toks[j] = toks[j], toks[i] })
	var out []byte
	for _, tok := range toks {
		for range r.IntN(3) {
			out = append(out, delims[r.IntN(len(delims))])
		}
		if len(out) > 0 && !slowIsDelimiter(out[len(out)-1]) {
			out = append(out, ' ')
		}
		out = append(out, tok...)
	}
	return string(out)
}

func TestParseCookieRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		in := randomCookie(r)
		checkCookie(t, in)
		checkCookie(t, mutate(r, in))
	}
	for range 5000 {
		for _, in := range formats(randomTime(r)) {
			checkCookie(t, in)
			checkCookie(t, mutate(r, in))
		}
	}
}

func TestParseCookieNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	b := []byte(time.Now().UTC().Format(http.TimeFormat))
	n := testing.AllocsPerRun(100, func() {
		if _, err := ParseCookie(b); err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, float64(0), n, "ParseCookie: %v allocations, want 0", n)
}
