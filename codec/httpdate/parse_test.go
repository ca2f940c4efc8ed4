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

// Layouts of the three forms as net/http writes and reads them; rfc850GMT is
// the RFC 850 form with the zone servers send.
const (
	rfc850GMT = "Monday, 02-Jan-06 15:04:05 GMT"
)

var parseTable = []string{
	// valid, every form
	"Sun, 06 Nov 1994 08:49:37 GMT",
	"Sunday, 06-Nov-94 08:49:37 GMT",
	"Sun Nov  6 08:49:37 1994",
	"Sun Nov 6 08:49:37 1994",
	"Sun Nov 06 08:49:37 1994",
	"Thu, 01 Jan 1970 00:00:00 GMT",
	"Thursday, 01-Jan-70 00:00:00 UTC",
	"Fri, 31 Dec 9999 23:59:59 GMT",
	"Sat, 01 Jan 0000 00:00:00 GMT",
	"Tue, 29 Feb 2000 12:00:00 GMT",
	"Tue Feb 29 12:00:00 2000",
	"Tuesday, 29-Feb-00 12:00:00 GMT",
	// what time.Parse tolerates
	"sun, 06 nov 1994 08:49:37 GMT",
	"SUN, 06 NOV 1994 08:49:37 GMT",
	"Mon, 06 Nov 1994 08:49:37 GMT", // wrong weekday, unchecked
	"Sun,   06  Nov   1994   08:49:37    GMT",
	"Sun, 06 Nov 1994 8:49:37 GMT",
	"Sun, 06 Nov 1994 08:49:37.5 GMT",
	"Sun, 06 Nov 1994 08:49:37,123456789123 GMT",
	"SUNDAY, 06-Nov-94 08:49:37 GMT",
	"Sunday, 06-Nov--5 08:49:37 GMT",
	"Sunday, 06-Nov-+5 08:49:37 GMT",
	"Sunday, 06-Nov-68 08:49:37 GMT",
	"Sunday, 06-Nov-69 08:49:37 GMT",
	"Sun Nov  6 8:49:37.000001 1994",
	// invalid
	"",
	"Sun",
	"Sun,",
	"Sun, 06 Nov 1994 08:49:37 gmt",
	"Sun, 06 Nov 1994 08:49:37 UTC",
	"Sun, 06 Nov 1994 08:49:37 GMT ",
	" Sun, 06 Nov 1994 08:49:37 GMT",
	"Sun, 6 Nov 1994 08:49:37 GMT",
	"Sun, 06 Nov 94 08:49:37 GMT",
	"Sun, 06 Nov 1994 24:00:00 GMT",
	"Sun, 06 Nov 1994 08:60:37 GMT",
	"Sun, 06 Nov 1994 08:49:60 GMT",
	"Sun, 06 Nov 1994 08:49:37. GMT",
	"Sun, 06 Nov 1994 08:49 GMT",
	"Sun, 00 Nov 1994 08:49:37 GMT",
	"Sun, 31 Nov 1994 08:49:37 GMT",
	"Sun, 29 Feb 1900 08:49:37 GMT",
	"Sun, 06 Nox 1994 08:49:37 GMT",
	"Sun 06 Nov 1994 08:49:37 GMT",
	"Sunday, 06-Nov-1994 08:49:37 GMT",
	"Sunday, 06 Nov 94 08:49:37 GMT",
	"Sunday,06-Nov-94 08:49:37 GMT",
	"Sunday, 06-Nov-9x 08:49:37 GMT",
	"Sunday, 06-Nov-94 08:49:37",
	"Sunday, 06-Nov-94 08:49:37 GMTX",
	"Sun Nov  6 08:49:37 94",
	"Sun Nov  6 08:49:37 1994 ",
	"Sun Nov  0 08:49:37 1994",
	"Sun Nov 123 08:49:37 1994",
	"Sun Nov  6 08:49:37 GMT 1994",
	"Sunx Nov  6 08:49:37 1994",
	"Sundae, 06-Nov-94 08:49:37 GMT",
	"Xyz, 06 Nov 1994 08:49:37 GMT",
}

// checkParse compares Parse with http.ParseTime on one input.
func checkParse(t *testing.T, in string) {
	t.Helper()
	got, err := Parse([]byte(in))
	want, werr := http.ParseTime(in)
	if err != nil {
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "Parse(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		require.GreaterOrEqual(t, se.Offset, 0, "Parse(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		require.LessOrEqual(t, se.Offset, len(in), "Parse(%q): error %v is not a *SyntaxError with an offset in range", in, err)
		if errors.Is(err, ErrZone) {
			return // the documented divergence: any RFC 850 zone but GMT/UTC
		}
		require.Error(t, werr, "Parse(%q) = %v; http.ParseTime = %v", in, err, want)
		return
	}
	require.NoError(t, werr, "Parse(%q) = %v; http.ParseTime fails", in, got)
	require.True(t, got.Equal(want), "Parse(%q) = %v; http.ParseTime = %v", in, got, want)
	require.Same(t, time.UTC, got.Location(), "Parse(%q): location", in)
}

func TestParseTable(t *testing.T) {
	for _, in := range parseTable {
		checkParse(t, in)
	}
}

func TestParseExact(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, in := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
	} {
		got, err := Parse([]byte(in))
		assert.NoError(t, err, "Parse(%q)", in)
		assert.Equal(t, want, got, "Parse(%q): the same instant and location", in)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind error
		off  int
	}{
		{"", ErrWeekday, 0},
		{"Sun, 06 Nox 1994 08:49:37 GMT", ErrMonth, 8},
		{"Sun, 31 Nov 1994 08:49:37 GMT", ErrDay, 5},
		{"Sun, 06 Nov 94 08:49:37 GMT", ErrYear, 12},
		{"Sun, 06 Nov 1994 25:49:37 GMT", ErrTime, 17},
		{"Sun, 06 Nov 1994 08:49:37 UTC", ErrZone, 26},
		{"Sunday, 06-Nov-94 08:49:37 PST", ErrZone, 27},
		{"Sunday, 06-Nov-9x 08:49:37 GMT", ErrYear, 15},
		{"Sun Nov  6 08:49:37 1994x", ErrYear, 20},
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		assert.ErrorIs(t, err, tc.kind, "Parse(%q)", tc.in)
		if assert.ErrorAs(t, err, &se, "Parse(%q)", tc.in) {
			assert.Equal(t, tc.off, se.Offset, "Parse(%q): offset", tc.in)
		}
	}
}

// randomTime returns an instant in 1970–2200 with a random fraction.
func randomTime(r *rand.Rand) time.Time {
	lo := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2201, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	return time.Unix(lo+r.Int64N(hi-lo), 0).UTC()
}

func formats(t time.Time) []string {
	return []string{
		t.Format(http.TimeFormat),
		t.Format(rfc850GMT),
		t.Format(time.RFC850),
		t.Format(time.ANSIC),
	}
}

func TestParseRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		tm := randomTime(r)
		for _, in := range formats(tm) {
			checkParse(t, in)
		}
		got, err := Parse([]byte(tm.Format(http.TimeFormat)))
		require.NoError(t, err, "Parse(%q)", tm.Format(http.TimeFormat))
		require.Equal(t, tm, got, "Parse(%q)", tm.Format(http.TimeFormat))
	}
}

// mutate makes one to three random edits biased towards the bytes dates
// are made of.
func mutate(r *rand.Rand, s string) string {
	const alphabet = "0123456789 ,:.-+GMTUCPSnovNOVdayDAY\x00\xff"
	b := []byte(s)
	for range 1 + r.IntN(3) {
		c := alphabet[r.IntN(len(alphabet))]
		switch i := r.IntN(len(b) + 1); r.IntN(4) {
		case 0:
			if i < len(b) {
				b[i] = c
			}
		case 1:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case 2:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		case 3:
			if i < len(b) && b[i]|0x20 >= 'a' && b[i]|0x20 <= 'z' {
				b[i] ^= 0x20
			}
		}
	}
	return string(b)
}

func TestParseMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		for _, in := range formats(randomTime(r)) {
			checkParse(t, mutate(r, in))
		}
	}
}

func TestParseNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	for _, in := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
	} {
		b := []byte(in)
		n := testing.AllocsPerRun(100, func() {
			if _, err := Parse(b); err != nil {
				t.Fatal(err)
			}
		})
		assert.Equal(t, float64(0), n, "Parse(%q): %v allocations, want 0", in, n)
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := Parse([]byte("Sun, 06 Nox 1994 08:49:37 GMT"))
	got := err.Error()
	assert.Contains(t, got, "httpdate: bad month")
	assert.Contains(t, got, "offset 8")
}
