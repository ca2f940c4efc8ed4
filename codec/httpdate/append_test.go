package httpdate

import (
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkAppend(t *testing.T, tm time.Time) {
	t.Helper()
	want := tm.UTC().AppendFormat([]byte("x"), http.TimeFormat)
	got := Append([]byte("x"), tm)
	require.Equal(t, string(want), string(got), "Append(%v) = %q; AppendFormat %q", tm, got, want)
}

func TestAppend(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	for _, tm := range []time.Time{
		{},
		time.Unix(0, 0),
		time.Unix(-1, 0),
		time.Unix(784111777, 999999999),
		time.Date(1994, 11, 6, 3, 49, 37, 0, time.FixedZone("EST", -5*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(math.MaxInt32, 0).In(ny),
		time.Unix(1<<40, 0),
		time.Unix(-1<<40, 0),
	} {
		checkAppend(t, tm)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		checkAppend(t, time.Unix(r.Int64N(1<<38)-1<<37, r.Int64N(1e9)))
	}
}

func TestAppendRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 10000 {
		tm := randomTime(r)
		got, err := Parse(Append(nil, tm))
		require.NoError(t, err, "Parse(Append(%v))", tm)
		require.Equal(t, tm, got, "Parse(Append(%v))", tm)
	}
}

func TestAppendNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	dst := make([]byte, 0, 64)
	tm := time.Now()
	n := testing.AllocsPerRun(100, func() { dst = Append(dst[:0], tm) })
	assert.Equal(t, float64(0), n, "Append: %v allocations, want 0", n)
}

// TestCivil checks the calendar arithmetic against package time over a wide
// range of days, both directions.
func TestCivil(t *testing.T) {
	for days := int64(-800000); days <= 3000000; days += 17 {
		tm := time.Unix(days*86400, 0).UTC()
		y, m, d := civilFromDays(days)
		require.Equal(t, int64(tm.Year()), y, "civilFromDays(%d) = %d-%d-%d; want %v", days, y, m, d, tm)
		require.Equal(t, int(tm.Month()), m, "civilFromDays(%d) = %d-%d-%d; want %v", days, y, m, d, tm)
		require.Equal(t, tm.Day(), d, "civilFromDays(%d) = %d-%d-%d; want %v", days, y, m, d, tm)
		got := daysFromCivil(tm.Year(), int(tm.Month()), tm.Day())
		require.Equal(t, days, got, "daysFromCivil(%v) = %d; want %d", tm, got, days)
	}
}
