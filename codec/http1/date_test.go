package http1

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
)

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// TestDateCache checks the cached date against time.Format across second
// boundaries, forwards and backwards, and in other zones.
func TestDateCache(t *testing.T) {
	base := time.Date(2026, 11, 25, 23, 59, 58, 900_000_000, time.UTC)
	var c DateCache
	for i, step := range []time.Duration{
		0,
		50 * time.Millisecond,  // same second
		100 * time.Millisecond, // 23:59:59.000: next second
		999 * time.Millisecond, // still 23:59:59
		time.Millisecond,       // 00:00:00 of the next day
		-time.Millisecond,      // back to 23:59:59
		24 * time.Hour,         // a day later
		-366 * 24 * time.Hour,  // a year earlier
	} {
		base = base.Add(step)
		want := httpDate(base)
		assert.Equal(t, "x"+want, string(c.Append([]byte("x"), base)), "step %d: Append(%v)", i, base)
		assert.Equal(t, want, string(c.AppendCached(nil)), "step %d: AppendCached", i)
	}
	// Another zone: the date is in GMT.
	paris := base.In(time.FixedZone("CET", 3600))
	c.Update(paris.Add(time.Second))
	assert.Equal(t, httpDate(paris.Add(time.Second)), string(c.AppendCached(nil)), "Update in CET")
}

// TestDateCacheSameSecond checks that Update keeps the cached value within
// a second (the value is not reformatted) and replaces it on the next.
func TestDateCacheSameSecond(t *testing.T) {
	var c DateCache
	t0 := time.Unix(1_700_000_000, 0)
	c.Update(t0)
	d := c.v.Load()
	c.Update(t0.Add(999 * time.Millisecond))
	assert.Same(t, d, c.v.Load(), "Update within the same second reformatted")
	c.Update(t0.Add(time.Second))
	assert.NotSame(t, d, c.v.Load(), "Update in the next second kept the old date")
}

// TestDateCacheZero checks that a DateCache never updated answers the
// current time.
func TestDateCacheZero(t *testing.T) {
	var c DateCache
	before := time.Now().Truncate(time.Second)
	got, err := http.ParseTime(string(c.AppendCached(nil)))
	after := time.Now()
	assert.NoError(t, err, "AppendCached on a zero DateCache")
	assert.False(t, got.Before(before), "AppendCached on a zero DateCache: %v, before %v", got, before)
	assert.False(t, got.After(after), "AppendCached on a zero DateCache: %v, after %v", got, after)
}

// TestDateCacheYears checks dates outside 0000–9999, which httpdate
// formats as package time does (longer than 29 bytes).
func TestDateCacheYears(t *testing.T) {
	var c DateCache
	for _, tm := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		got, want := string(c.Append(nil, tm)), httpDate(tm)
		assert.Equal(t, want, got, "Append(%v) = %q, want %q", tm, got, want)
	}
}

// TestDateCacheConcurrent runs Append, Update and AppendCached from
// several goroutines over a few seconds' worth of times: every result
// must be one of the dates whole (run with -race).
func TestDateCacheConcurrent(t *testing.T) {
	base := time.Unix(1_800_000_000, 0)
	valid := map[string]bool{}
	for s := range 4 {
		valid[httpDate(base.Add(time.Duration(s)*time.Second))] = true
	}
	var c DateCache
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			dst := make([]byte, 0, 32)
			for i := range 2000 {
				now := base.Add(time.Duration((i+g)%4000) * time.Millisecond)
				switch i % 3 {
				case 0:
					dst = c.Append(dst[:0], now)
				case 1:
					c.Update(now)
					dst = c.AppendCached(dst[:0])
				default:
					dst = c.AppendCached(dst[:0])
				}
				if !valid[string(dst)] {
					errs <- string(dst)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		assert.Fail(t, "a read is not one of the dates", "%q", s)
	}
}

func TestDateCacheNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the race detector allocates")
	var c DateCache
	now := time.Unix(1_700_000_000, 500)
	c.Update(now)
	dst := make([]byte, 0, 64)
	n := testing.AllocsPerRun(100, func() {
		dst = c.Append(dst[:0], now)
		dst = c.AppendCached(dst[:0])
		c.Update(now)
	})
	assert.Equal(t, float64(0), n, "%v allocations in the same second, want 0", n)
}
