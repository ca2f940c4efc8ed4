package timerq

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The references, as siblings in every benchmark:
//   - impl=container-heap: container/heap over []*item with an index field,
//     the textbook indexed heap (heap.Push, heap.Remove, heap.Pop). The
//     item is reused, so only heap work is measured, as for netkit.
//   - impl=afterfunc: runtime timers, time.AfterFunc(d, f).Stop().
// Variants: impl=netkit is the Queue as shipped (4-ary, deadline beside the
// pointer); impl=binary is binHeap, the same with two children per slot;
// impl=ptr4 is a 4-ary heap of bare *Node that loads n.When per comparison.

var residents = []int{1_000, 100_000, 1_000_000}

func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// deadlines returns k random deadlines in [0, 2^40) ns (about 18 minutes).
func deadlines(seed uint64, k int) []int64 {
	r := rand.New(rand.NewPCG(seed, 99))
	d := make([]int64, k)
	for i := range d {
		d[i] = r.Int64N(1 << 40)
	}
	return d
}

var impls = []string{"netkit", "binary", "ptr4", "container-heap"}

func BenchmarkScheduleCancel(b *testing.B) {
	fn := func() {}
	next := deadlines(2, 1024)
	for _, n := range residents {
		res := deadlines(1, n)
		for _, impl := range append(impls, "afterfunc") {
			b.Run(fmt.Sprintf("resident=%s/impl=%s", sizeName(n), impl), func(b *testing.B) {
				var (
					q  Queue
					bq binHeap
					pq ptrHeap
					h  = make(chHeap, 0, n+1)
					ts []*time.Timer
					p  Pool
				)
				for _, w := range res {
					switch impl {
					case "netkit", "binary", "ptr4":
						nd := p.Get()
						nd.When, nd.Fn = w, fn
						switch impl {
						case "netkit":
							q.Push(nd)
						case "binary":
							bq.push(nd)
						default:
							pq.push(nd)
						}
					case "container-heap":
						heap.Push(&h, &chItem{when: w, fn: fn})
					case "afterfunc":
						ts = append(ts, time.AfterFunc(time.Hour+time.Duration(w), fn))
					}
				}
				defer func() {
					for _, t := range ts {
						t.Stop()
					}
				}()
				p.Put(p.Get())
				it := &chItem{fn: fn}
				b.ReportAllocs()
				i := 0
				switch impl {
				case "netkit":
					for b.Loop() {
						nd := p.Get()
						nd.When, nd.Fn = next[i&1023], fn
						q.Push(nd)
						q.Remove(nd)
						p.Put(nd)
						i++
					}
				case "binary":
					for b.Loop() {
						nd := p.Get()
						nd.When, nd.Fn = next[i&1023], fn
						bq.push(nd)
						bq.remove(nd)
						p.Put(nd)
						i++
					}
				case "ptr4":
					for b.Loop() {
						nd := p.Get()
						nd.When, nd.Fn = next[i&1023], fn
						pq.push(nd)
						pq.remove(nd)
						p.Put(nd)
						i++
					}
				case "container-heap":
					for b.Loop() {
						it.when = next[i&1023]
						heap.Push(&h, it)
						heap.Remove(&h, it.index)
						i++
					}
				case "afterfunc":
					for b.Loop() {
						time.AfterFunc(time.Hour+time.Duration(next[i&1023]), fn).Stop()
						i++
					}
				}
			})
		}
	}
}

// BenchmarkCancelRandom: one op is a pass that cancels all n queued
// timers in random order; ns/timer is the time per cancel. Filling the
// queue (and shuffling the order) is outside the timer: one stop per pass.
// Whole passes are measured so that every op sees heaps of every size.
func BenchmarkCancelRandom(b *testing.B) {
	const n = 100_000
	for _, impl := range impls {
		b.Run(fmt.Sprintf("n=%s/impl=%s", sizeName(n), impl), func(b *testing.B) {
			benchPasses(b, n, impl, true)
		})
	}
}

// BenchmarkPopDue: one op drains n queued timers in deadline order with
// PopDue (heap.Pop for container/heap); ns/timer is the time per timer.
func BenchmarkPopDue(b *testing.B) {
	const n = 100_000
	for _, impl := range impls {
		b.Run(fmt.Sprintf("n=%s/impl=%s", sizeName(n), impl), func(b *testing.B) {
			benchPasses(b, n, impl, false)
		})
	}
}

// benchPasses runs whole passes over n timers with random deadlines: fill
// (untimed), then cancel all in random order (cancel) or drain them in
// order (timed). It reports the time per timer as ns/timer.
func benchPasses(b *testing.B, n int, impl string, cancel bool) {
	const now = 1 << 62
	res := deadlines(3, n)
	r := rand.New(rand.NewPCG(4, 4))
	nodes := make([]*Node, n)
	items := make([]*chItem, n)
	for i := range nodes {
		nodes[i] = &Node{}
		items[i] = &chItem{}
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var (
		q  Queue
		bq binHeap
		pq ptrHeap
		h  = make(chHeap, 0, n)
	)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for i, w := range res {
			nodes[i].When, items[i].when = w, w
			switch impl {
			case "netkit":
				q.Push(nodes[i])
			case "binary":
				bq.push(nodes[i])
			case "ptr4":
				pq.push(nodes[i])
			case "container-heap":
				heap.Push(&h, items[i])
			}
		}
		b.StartTimer()
		switch {
		case impl == "netkit" && cancel:
			for _, k := range perm {
				q.Remove(nodes[k])
			}
		case impl == "netkit":
			for q.PopDue(now) != nil {
			}
		case impl == "binary" && cancel:
			for _, k := range perm {
				bq.remove(nodes[k])
			}
		case impl == "binary":
			for bq.popDue(now) != nil {
			}
		case impl == "ptr4" && cancel:
			for _, k := range perm {
				pq.remove(nodes[k])
			}
		case impl == "ptr4":
			for pq.popDue(now) != nil {
			}
		case impl == "container-heap" && cancel:
			for _, k := range perm {
				heap.Remove(&h, items[k].index)
			}
		case impl == "container-heap":
			for len(h) > 0 && h[0].when <= now {
				heap.Pop(&h)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/timer")
}

// chItem and chHeap are the textbook container/heap timer queue with an
// index field, as in the container/heap PriorityQueue example.
type chItem struct {
	when  int64
	seq   uint64
	index int
	fn    func()
}

type chHeap []*chItem

func (h chHeap) Len() int { return len(h) }
func (h chHeap) Less(i, j int) bool {
	return h[i].when < h[j].when || h[i].when == h[j].when && h[i].seq < h[j].seq
}
func (h chHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *chHeap) Push(x any) {
	it := x.(*chItem)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *chHeap) Pop() any {
	old := *h
	k := len(old) - 1
	it := old[k]
	old[k] = nil
	it.index = -1
	*h = old[:k]
	return it
}

// ptrHeap is a benchmark-only 4-ary heap of bare *Node: each comparison
// loads When and seq from the nodes. It measures what keeping the
// deadline in the slot saves.
type ptrHeap struct {
	s   []*Node
	seq uint64
}

func ptrLess(a, b *Node) bool { return a.When < b.When || a.When == b.When && a.seq < b.seq }

func (h *ptrHeap) push(n *Node) {
	h.seq++
	n.seq = h.seq
	h.s = append(h.s, nil)
	h.up(len(h.s)-1, n)
}

func (h *ptrHeap) remove(n *Node) bool {
	i := int(n.index) - 1
	if i < 0 || i >= len(h.s) || h.s[i] != n {
		return false
	}
	last := len(h.s) - 1
	e := h.s[last]
	h.s[last] = nil
	h.s = h.s[:last]
	n.index = 0
	if i != last {
		if i > 0 && ptrLess(e, h.s[(i-1)/4]) {
			h.up(i, e)
		} else {
			h.down(i, e)
		}
	}
	return true
}

func (h *ptrHeap) popDue(now int64) *Node {
	if len(h.s) == 0 || h.s[0].When > now {
		return nil
	}
	n := h.s[0]
	h.remove(n)
	return n
}

func (h *ptrHeap) up(i int, e *Node) {
	s := h.s
	for i > 0 {
		p := (i - 1) / 4
		if !ptrLess(e, s[p]) {
			break
		}
		s[i] = s[p]
		s[i].index = int32(i + 1)
		i = p
	}
	s[i] = e
	e.index = int32(i + 1)
}

func (h *ptrHeap) down(i int, e *Node) {
	s := h.s
	n := len(s)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if ptrLess(s[j], s[m]) {
				m = j
			}
		}
		if !ptrLess(s[m], e) {
			break
		}
		s[i] = s[m]
		s[i].index = int32(i + 1)
		i = m
	}
	s[i] = e
	e.index = int32(i + 1)
}
