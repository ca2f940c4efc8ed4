package eventloop_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/eventloop"
)

// BenchmarkExecute: tasks per second through Execute from 1 and 2 producer
// goroutines to one loop, against a buffered chan func() (1024) drained by
// one goroutine. Each task increments a counter owned by the consumer;
// ns/op is per task, end to end (the last task has run).
func BenchmarkExecute(b *testing.B) {
	for _, producers := range []int{1, 2} {
		b.Run("producers="+strconv.Itoa(producers)+"/impl=netkit", func(b *testing.B) {
			g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
			require.NoError(b, err)
			defer g.Close()
			l := g.Next()
			count := 0
			task := func() { count++ }
			b.ReportAllocs()
			b.ResetTimer()
			produce(b.N, producers, func() { l.Execute(task) })
			done := make(chan struct{})
			l.Execute(func() { close(done) })
			<-done
			b.StopTimer()
			require.Equal(b, b.N/producers*producers, count, "ran %d of %d", count, b.N/producers*producers)
		})
		b.Run("producers="+strconv.Itoa(producers)+"/impl=chan", func(b *testing.B) {
			ch := make(chan func(), 1024)
			count := 0
			task := func() { count++ }
			consumed := make(chan struct{})
			go func() {
				for fn := range ch {
					fn()
				}
				close(consumed)
			}()
			b.ReportAllocs()
			b.ResetTimer()
			produce(b.N, producers, func() { ch <- task })
			close(ch)
			<-consumed
			b.StopTimer()
			require.Equal(b, b.N/producers*producers, count, "ran %d of %d", count, b.N/producers*producers)
		})
	}
}

// produce calls push n/producers times from each of producers goroutines.
func produce(n, producers int, push func()) {
	var wg sync.WaitGroup
	for range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / producers {
				push()
			}
		}()
	}
	wg.Wait()
}

// BenchmarkScheduleCancel: on the loop, schedule a timer and cancel it,
// with 1k, 100k and 1M timers resident, against time.AfterFunc(...).Stop()
// with as many AfterFunc timers resident. Every deadline, resident or
// benchmarked, is drawn from one to two hours out, so a new timer lands at
// a random place in the heap (a fixed timeout, as network code uses, lands
// last: cheaper still; an earliest-of-all timer climbs to the root and
// back: the dearest, about twice the heap work).
func BenchmarkScheduleCancel(b *testing.B) {
	for _, c := range []struct {
		name     string
		resident int
	}{{"1k", 1000}, {"100k", 100_000}, {"1M", 1_000_000}} {
		resident := c.resident
		b.Run("resident="+c.name+"/impl=netkit", func(b *testing.B) {
			g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
			require.NoError(b, err)
			defer g.Close()
			l := g.Next()
			run(b, l, func() {
				r := rand.New(rand.NewPCG(1, 2))
				for range resident {
					l.Schedule(time.Hour+time.Duration(r.Int64N(int64(time.Hour))), nop)
				}
			})
			runtime.GC() // the setup's garbage is not the benchmark's
			b.ReportAllocs()
			b.ResetTimer()
			ds := deadlines(4096)
			run(b, l, func() {
				for i := range b.N {
					l.Schedule(ds[i&4095], nop).Cancel()
				}
			})
			b.StopTimer() // Close, clearing the resident timers, is not the benchmark
		})
		b.Run("resident="+c.name+"/impl=afterfunc", func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			ts := make([]*time.Timer, resident)
			for i := range ts {
				ts[i] = time.AfterFunc(time.Hour+time.Duration(r.Int64N(int64(time.Hour))), nop)
			}
			ds := deadlines(4096)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				time.AfterFunc(ds[i&4095], nop).Stop()
			}
			b.StopTimer()
			for _, t := range ts {
				t.Stop()
			}
		})
	}
}

func nop() {}

// deadlines returns n durations drawn from [1h, 2h).
func deadlines(n int) []time.Duration {
	r := rand.New(rand.NewPCG(3, 4))
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = time.Hour + time.Duration(r.Int64N(int64(time.Hour)))
	}
	return ds
}

// BenchmarkLateness: 1 ms timers on an idle loop, one at a time; reports
// the median and 99th percentile of fired − due, and how many fired early
// (must be 0), against time.AfterFunc. Each op is one timer (about 1 ms).
func BenchmarkLateness(b *testing.B) {
	measure := func(b *testing.B, schedule func(due time.Time, fired chan<- time.Duration)) {
		lates := make([]time.Duration, 0, b.N)
		fired := make(chan time.Duration, 1)
		for range b.N {
			schedule(time.Now().Add(time.Millisecond), fired)
			lates = append(lates, <-fired)
		}
		b.StopTimer()
		slices.Sort(lates)
		early := 0
		for _, d := range lates {
			if d < 0 {
				early++
			}
		}
		b.ReportMetric(float64(lates[len(lates)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(lates[len(lates)*99/100].Nanoseconds())/1e3, "p99-µs")
		b.ReportMetric(float64(early), "early")
		if early > 0 {
			// By how much: the loop cannot run a timer before its own
			// clock reaches it, but the fired time is read here, on
			// whatever CPU the callback ran, against a due time read on
			// another.
			b.ReportMetric(float64(lates[0].Nanoseconds()), "earliest-ns")
		}
	}
	b.Run("impl=netkit", func(b *testing.B) {
		g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
		require.NoError(b, err)
		defer g.Close()
		l := g.Next()
		measure(b, func(due time.Time, fired chan<- time.Duration) {
			l.ScheduleAt(l.Now().Add(time.Until(due)), func() { fired <- time.Since(due) })
		})
	})
	b.Run("impl=afterfunc", func(b *testing.B) {
		measure(b, func(due time.Time, fired chan<- time.Duration) {
			time.AfterFunc(time.Until(due), func() { fired <- time.Since(due) })
		})
	})
}
