package mpsc

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/race"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// item identifies a pushed value: which producer and its sequence number.
type item struct {
	p   int
	seq int
}

// TestSingleGoroutineModel runs random Push/Pop/Drain/Empty sequences on one
// goroutine against a slice model: exact FIFO, exact Empty, exact counts,
// across many chunk boundaries and recycles.
func TestSingleGoroutineModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		var q Queue[int]
		var model []int
		next := 0
		for range 20000 {
			switch op := r.IntN(10); {
			case op < 5:
				n := 1 + r.IntN(3*chunkSize/2)
				if r.IntN(4) > 0 {
					n = 1 + r.IntN(8)
				}
				for range n {
					q.Push(next)
					model = append(model, next)
					next++
				}
			case op < 7:
				v, ok := q.Pop()
				require.Equal(t, len(model) > 0, ok, "seed %d: Pop ok=%v with %d queued", seed, ok, len(model))
				if ok {
					require.Equal(t, model[0], v, "seed %d: Pop", seed)
					model = model[1:]
				}
			case op < 9:
				max := r.IntN(2 * chunkSize)
				want := len(model)
				if max > 0 && max < want {
					want = max
				}
				got := q.Drain(max, func(v int) {
					require.Equal(t, model[0], v, "seed %d: Drain", seed)
					model = model[1:]
				})
				require.Equal(t, want, got, "seed %d: Drain(%d)", seed, max)
			default:
				e := q.Empty()
				require.Equal(t, len(model) == 0, e, "seed %d: Empty = %v with %d queued", seed, e, len(model))
			}
		}
		q.Drain(0, func(v int) {
			require.Equal(t, model[0], v, "seed %d: final Drain", seed)
			model = model[1:]
		})
		require.Empty(t, model, "seed %d: left in the model after the final Drain", seed)
		require.True(t, q.Empty(), "seed %d: Empty after the final Drain", seed)
	}
}

// TestConcurrentFIFO pushes 100k items from each of 1, 2 and 8 producers while
// one consumer pops them with a random mix of Pop, Drain(max) and Empty. The
// model is each producer's next expected sequence number: every producer's
// items must come out in its order, none lost, none duplicated.
func TestConcurrentFIFO(t *testing.T) {
	const perProducer = 100_000
	for _, producers := range []int{1, 2, 8} {
		t.Run("producers="+strconv.Itoa(producers), func(t *testing.T) {
			var q Queue[item]
			var wg sync.WaitGroup
			for p := range producers {
				wg.Go(func() {
					for i := range perProducer {
						q.Push(item{p, i})
						if i%1000 == 0 {
							runtime.Gosched()
						}
					}
				})
			}
			want := make([]int, producers) // the model
			total := producers * perProducer
			got := 0
			check := func(it item) {
				require.Equal(t, want[it.p], it.seq, "producer %d: sequence number", it.p)
				want[it.p]++
				got++
			}
			r := rand.New(rand.NewPCG(uint64(producers), 2))
			for got < total {
				switch r.IntN(4) {
				case 0:
					if it, ok := q.Pop(); ok {
						check(it)
					}
				case 1:
					q.Empty()
				default:
					if q.Drain(r.IntN(600), check) == 0 {
						runtime.Gosched()
					}
				}
			}
			wg.Wait()
			_, ok := q.Pop()
			require.False(t, ok, "queue not empty after %d items", total)
			require.True(t, q.Empty(), "queue not empty after %d items", total)
			for p, n := range want {
				require.Equal(t, perProducer, n, "producer %d: %d items, want %d", p, n, perProducer)
			}
		})
	}
}

// TestWakeProtocol is the loop's sleep/wake race in miniature. The consumer
// announces sleep, then checks Empty and sleeps only if it is empty; each
// producer pushes, then wakes the consumer only if it announced sleep. If
// the queue's publication and Empty were not sequentially consistent, a task
// could be stranded: the consumer asleep with work queued and no wake coming.
// A stranded task shows as a consumer still asleep 10 s after the producers
// finished.
func TestWakeProtocol(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	for round := range rounds {
		var (
			q        Queue[int]
			sleeping atomic.Bool
			wake     = make(chan struct{}, 1)
			wg       sync.WaitGroup
		)
		const producers, each = 3, 50
		for range producers {
			wg.Go(func() {
				for i := range each {
					q.Push(i)
					if sleeping.Load() {
						select {
						case wake <- struct{}{}:
						default:
						}
					}
				}
			})
		}
		done := make(chan int)
		go func() {
			n := 0
			for n < producers*each {
				n += q.Drain(0, func(int) {})
				if n == producers*each {
					break
				}
				sleeping.Store(true)
				if q.Empty() {
					<-wake
				}
				sleeping.Store(false)
			}
			done <- n
		}()
		wg.Wait()
		select {
		case n := <-done:
			require.Equal(t, producers*each, n, "round %d: consumer ran %d tasks, want %d", round, n, producers*each)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "consumer asleep with tasks queued and no wake coming", "round %d", round)
		}
	}
}

// TestChunkRecycling pushes and drains 10 million items with the consumer
// lagging by up to three chunks: the number of chunks ever allocated must
// stay small and not grow with the length of the run.
func TestChunkRecycling(t *testing.T) {
	var q Queue[int]
	run := func(items int) {
		var wg sync.WaitGroup
		var consumed atomic.Int64
		wg.Go(func() {
			for i := range items {
				for int64(i)-consumed.Load() > 3*chunkSize {
					runtime.Gosched()
				}
				q.Push(i)
			}
		})
		for n := 0; n < items; {
			if d := q.Drain(0, func(int) {}); d == 0 {
				runtime.Gosched()
			} else {
				n += d
				consumed.Store(int64(n))
			}
		}
		wg.Wait()
	}
	items := 1_000_000
	if race.Enabled {
		items = 100_000
	}
	run(items) // warm up
	warm := q.allocs.Load()
	run(10 * items)
	after := q.allocs.Load()
	t.Logf("chunks allocated: %d after warm-up, %d after %d more items", warm, after, 10*items)
	// A burst can outrun the consumer and allocate; the bound is what the
	// recycler keeps plus slack, not something that grows with items.
	require.LessOrEqual(t, after, warm+16, "chunks allocated grew from %d to %d over %d items: not recycled", warm, after, 10*items)
}

// TestNoAllocs asserts that Push+Pop and Push+Drain allocate nothing in steady
// state, across chunk boundaries (each run crosses several).
func TestNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var q Queue[func()]
	f := func() {}
	burst := func() {
		for range 3 * chunkSize {
			q.Push(f)
		}
		for range 3 * chunkSize {
			// Hand-written: burst runs under testing.AllocsPerRun, where a
			// testify call (t.Helper on every call) is not wanted.
			if _, ok := q.Pop(); !ok {
				t.Fatal("Pop: empty")
			}
		}
	}
	burst() // warm up: allocate the working set of chunks
	burst()
	assert.Zero(t, testing.AllocsPerRun(100, burst), "Push+Pop: allocs per %d items", 3*chunkSize)
	drain := func() {
		for range 3 * chunkSize {
			q.Push(f)
		}
		q.Drain(0, func(g func()) { g() })
	}
	assert.Zero(t, testing.AllocsPerRun(100, drain), "Push+Drain: allocs per %d items", 3*chunkSize)
}

// TestUnpublishedSlot claims a slot without publishing it (as a producer
// descheduled mid-Push would) and checks the consumer reports "not ready"
// instead of waiting, and resumes once the slot is published.
func TestUnpublishedSlot(t *testing.T) {
	var q Queue[int]
	q.Push(1)
	c := q.tail.Load()
	i := c.state.Add(1) - 1 // claimed, not published
	q.Push(3)
	v, ok := q.Pop()
	require.True(t, ok, "Pop of the published item")
	require.Equal(t, 1, v, "Pop of the published item")
	_, ok = q.Pop()
	require.False(t, ok, "Pop returned an item behind an unpublished slot")
	require.True(t, q.Empty(), "Empty = false at an unpublished slot")
	n := q.Drain(0, func(int) {})
	require.Equal(t, 0, n, "Drain = %d at an unpublished slot", n)
	c.slots[i].v = 2
	c.slots[i].ready.Store(c.gen)
	var got []int
	q.Drain(0, func(v int) { got = append(got, v) })
	require.Equal(t, []int{2, 3}, got, "after publishing")
}

// TestZeroValue checks an unused zero Queue reads as empty.
func TestZeroValue(t *testing.T) {
	var q Queue[string]
	require.True(t, q.Empty(), "Empty = false on a zero Queue")
	_, ok := q.Pop()
	require.False(t, ok, "Pop succeeded on a zero Queue")
	n := q.Drain(0, func(string) {})
	require.Equal(t, 0, n, "Drain = %d on a zero Queue", n)
}

// TestStaleClaim holds a pointer to the first chunk, as a producer
// descheduled between loading the tail and claiming would, and claims on it
// after the consumer recycled it: the claim must read as closed (owning
// nothing), and the queue must keep its contents and order.
func TestStaleClaim(t *testing.T) {
	var q Queue[int]
	q.Push(0)
	stale := q.tail.Load()
	for i := 1; i < 2*chunkSize; i++ {
		q.Push(i)
	}
	next := 0
	q.Drain(0, func(v int) {
		require.Equal(t, next, v)
		next++
	})
	require.Equal(t, 2*chunkSize, next, "drained")
	require.NotSame(t, stale, q.tail.Load(), "the first chunk is still the tail")
	i := stale.state.Add(1) - 1
	require.NotZero(t, i&closed, "claim on a recycled chunk = %#x, want the closed bit", i)
	for i := range 3 * chunkSize {
		q.Push(i)
	}
	next = 0
	q.Drain(0, func(v int) {
		require.Equal(t, next, v, "after the stale claim")
		next++
	})
	require.Equal(t, 3*chunkSize, next, "after the stale claim: items drained")
	require.True(t, q.Empty(), "after the stale claim: Empty")
}
