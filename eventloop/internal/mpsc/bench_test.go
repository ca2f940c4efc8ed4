package mpsc

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// BenchmarkThroughput measures tasks per second from producers goroutines to
// one consumer goroutine that runs every task; one op is one task. The
// reference is the barest channel form of the same thing: a chan func() with
// a buffer of 1024, ranged over by the consumer. The netkit consumer drains
// with Drain(0, run) and yields (runtime.Gosched) as soon as it finds nothing,
// where the loop would go to epoll_wait; polling the slot a producer is
// writing instead (spinning 64 times before yielding) made the producer 2x
// slower from cache-line ping-pong. The channel consumer blocks in the
// runtime.
func BenchmarkThroughput(b *testing.B) {
	for _, producers := range []int{1, 2} {
		name := "producers=" + strconv.Itoa(producers)
		b.Run(name+"/impl=netkit", func(b *testing.B) {
			b.ReportAllocs()
			var q Queue[func()]
			ran := 0
			task := func() { ran++ }
			run := func(f func()) { f() }
			b.ResetTimer()
			var wg sync.WaitGroup
			for p := range producers {
				n := b.N / producers
				if p == 0 {
					n += b.N % producers
				}
				wg.Go(func() {
					for range n {
						q.Push(task)
					}
				})
			}
			for ran < b.N {
				if q.Drain(0, run) == 0 {
					runtime.Gosched()
				}
			}
			wg.Wait()
		})
		b.Run(name+"/impl=chan", func(b *testing.B) {
			b.ReportAllocs()
			ch := make(chan func(), 1024)
			ran := 0
			task := func() { ran++ }
			b.ResetTimer()
			var wg sync.WaitGroup
			for p := range producers {
				n := b.N / producers
				if p == 0 {
					n += b.N % producers
				}
				wg.Go(func() {
					for range n {
						ch <- task
					}
				})
			}
			go func() { wg.Wait(); close(ch) }()
			for f := range ch {
				f()
			}
		})
	}
}

// BenchmarkPushPop is the single-goroutine cost of one Push and one Pop, with
// a buffered channel's send and receive beside it.
func BenchmarkPushPop(b *testing.B) {
	task := func() {}
	b.Run("impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		var q Queue[func()]
		for b.Loop() {
			q.Push(task)
			q.Pop()
		}
	})
	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan func(), 1024)
		for b.Loop() {
			ch <- task
			<-ch
		}
	})
}
