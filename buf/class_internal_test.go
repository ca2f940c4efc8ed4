package buf

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClasses(t *testing.T) {
	last := classOf(MaxPooledSize)
	for c := 0; c <= last; c++ {
		require.Equal(t, c, classOf(classSize(c)), "classOf(classSize(%d)=%d)", c, classSize(c))
		if c > 0 {
			require.Greater(t, classSize(c), classSize(c-1), "class %d not above class %d", c, c-1)
		}
	}
	require.Equal(t, DefaultMaxSize, classSize(classOf(DefaultMaxSize)), "DefaultMaxSize %d is not a class size", DefaultMaxSize)
	n := classOf(64<<10) + 1
	require.Equal(t, 49, n, "%d classes from 16 B to 64 KiB, want 49 (four per doubling)", n)
	// Every size rounds up to the smallest class that holds it, wasting
	// less than 25% of the class.
	for n := 1; n <= MaxPooledSize; n += 1 + n/97 {
		c := classOf(n)
		size := classSize(c)
		require.GreaterOrEqual(t, size, n, "classOf(%d) = %d (%d bytes): not the smallest class holding it", n, c, size)
		require.False(t, c > 0 && classSize(c-1) >= n, "classOf(%d) = %d (%d bytes): not the smallest class holding it", n, c, size)
		require.False(t, n > minClassSize && 4*(size-n) >= size, "size %d in class of %d bytes wastes %d%%", n, size, 100*(size-n)/size)
	}
}

// TestClassTable checks classOf's table against the computation and the
// definition at every size up to twice the table's range.
func TestClassTable(t *testing.T) {
	for n := 0; n <= 2*carveMax; n++ {
		c := classOf(n)
		want := classOfCalc(n)
		require.Equal(t, want, c, "classOf(%d) = %d, computed %d", n, c, want)
		require.GreaterOrEqual(t, classSize(c), n, "classOf(%d) = %d: too small", n, c)
		if c > 0 {
			require.Less(t, classSize(c-1), n, "classOf(%d) = %d: not the smallest class holding it", n, c)
		}
	}
}

func BenchmarkClassOf(b *testing.B) {
	n, sum := 1, 0
	for b.Loop() {
		sum += classOf(n)
		n = (n*7+1)&(1<<16-1) + 1
	}
	sinkInt = sum
}

var sinkInt int
