package httpdate

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func FuzzParse(f *testing.F) {
	for _, in := range parseTable {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkParse(t, in)
	})
}

func FuzzParseCookie(f *testing.F) {
	for _, in := range parseTable {
		f.Add(in)
	}
	f.Add("8:49:37 NOVEMBER 6th, '94")
	f.Fuzz(func(t *testing.T, in string) {
		checkCookie(t, in)
	})
}

// FuzzAppend checks Append against AppendFormat for any instant, and that
// Parse reads back what Append wrote (to the second) in the years it can.
func FuzzAppend(f *testing.F) {
	f.Add(int64(784111777), int64(0))
	f.Add(int64(-62135596800), int64(1))
	f.Add(int64(253402300799), int64(999999999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec)
		checkAppend(t, tm)
		if y := tm.UTC().Year(); y < 0 || y > 9999 {
			return
		}
		b := Append(nil, tm)
		got, err := Parse(b)
		require.NoError(t, err, "Parse(%q)", b)
		require.True(t, got.Equal(tm.Truncate(time.Second)), "Parse(%q) = %v; want %v", b, got, tm.Truncate(time.Second))
		want, err := http.ParseTime(string(b))
		require.NoError(t, err, "http.ParseTime(%q)", b)
		require.True(t, want.Equal(got), "http.ParseTime(%q) = %v; Parse %v", b, want, got)
	})
}
