package nanotime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestNanoFollowsTime: Nano advances as time.Now's monotonic reading does
// and never goes back.
func TestNanoFollowsTime(t *testing.T) {
	t0, n0 := time.Now(), Nano()
	prev := n0
	for range 1000 {
		n := Nano()
		assert.GreaterOrEqual(t, n, prev, "the clock went back")
		prev = n
	}
	time.Sleep(20 * time.Millisecond)
	n1, el := Nano(), time.Since(t0)
	d := time.Duration(n1 - n0)
	assert.GreaterOrEqual(t, d, 20*time.Millisecond, "Nano measured less than the sleep")
	assert.InDelta(t, float64(el), float64(d), float64(10*time.Millisecond), "Nano and time.Since disagree")
}

func BenchmarkNano(b *testing.B) {
	var s int64
	for b.Loop() {
		s += Nano()
	}
	_ = s
}
