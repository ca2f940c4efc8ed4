package eventloop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Recording handlers, each implementing a different set of events; every
// one logs its name and passes the event on.
type (
	recBase struct {
		name string
		log  *[]string
	}
	recRead  struct{ recBase }
	recWrite struct{ recBase }
	recRW    struct{ recBase }
	recLife  struct{ recBase }
	recAll   struct{ recBase }
	recFlush struct{ recBase }
	recErr   struct{ recBase }
)

func (r *recBase) note(ev string) { *r.log = append(*r.log, r.name+":"+ev) }

func (r *recRead) OnRead(x *Context, msg any)       { r.note("read"); x.FireRead(msg) }
func (r *recRead) OnReadComplete(x *Context)        { r.note("complete"); x.FireReadComplete() }
func (r *recWrite) OnWrite(x *Context, m any) error { r.note("write"); return x.Write(m) }
func (r *recRW) OnRead(x *Context, msg any)         { r.note("read"); x.FireRead(msg) }
func (r *recRW) OnWrite(x *Context, m any) error    { r.note("write"); return x.Write(m) }
func (r *recLife) OnActive(x *Context)              { r.note("active"); x.FireActive() }
func (r *recLife) OnInactive(x *Context)            { r.note("inactive"); x.FireInactive() }
func (r *recFlush) OnFlush(x *Context)              { r.note("flush"); x.Flush() }
func (r *recErr) OnError(x *Context, err error)     { r.note("error"); x.FireError(err) }
func (r *recErr) OnUserEvent(x *Context, ev any)    { r.note("user"); x.FireUserEvent(ev) }
func (r *recAll) OnActive(x *Context)               { r.note("active"); x.FireActive() }
func (r *recAll) OnRead(x *Context, msg any)        { r.note("read"); x.FireRead(msg) }
func (r *recAll) OnReadComplete(x *Context)         { r.note("complete"); x.FireReadComplete() }
func (r *recAll) OnWritabilityChanged(x *Context, w bool) {
	r.note("writability")
	x.FireWritabilityChanged(w)
}
func (r *recAll) OnUserEvent(x *Context, ev any)  { r.note("user"); x.FireUserEvent(ev) }
func (r *recAll) OnError(x *Context, err error)   { r.note("error"); x.FireError(err) }
func (r *recAll) OnReadClosed(x *Context)         { r.note("readclosed"); x.FireReadClosed() }
func (r *recAll) OnInactive(x *Context)           { r.note("inactive"); x.FireInactive() }
func (r *recAll) OnWrite(x *Context, m any) error { r.note("write"); return x.Write(m) }
func (r *recAll) OnFlush(x *Context)              { r.note("flush"); x.Flush() }

// sink ends outbound events before the head (which needs a socket), and
// logs them as "sink".
type sink struct{ log *[]string }

func (s sink) OnWrite(x *Context, m any) error { *s.log = append(*s.log, "sink:write"); return nil }
func (s sink) OnFlush(x *Context)              { *s.log = append(*s.log, "sink:flush") }

var recEvents = map[string]struct {
	fire func(p *Pipeline)
	bit  uint16
}{
	"active":      {func(p *Pipeline) { p.fireActive() }, 1 << evActive},
	"read":        {func(p *Pipeline) { p.fireRead(nil) }, 1 << evRead},
	"complete":    {func(p *Pipeline) { p.fireReadComplete() }, 1 << evReadComplete},
	"writability": {func(p *Pipeline) { p.fireWritability(true) }, 1 << evWritability},
	"user":        {func(p *Pipeline) { p.fireUserEvent(nil) }, 1 << evUserEvent},
	"error":       {func(p *Pipeline) { p.fireError(nil) }, 1 << evError},
	"inactive":    {func(p *Pipeline) { p.fireInactive() }, 1 << evInactive},
	"write":       {func(p *Pipeline) { p.writeAll(nil) }, 1 << (numIn + evWrite)},
	"flush":       {func(p *Pipeline) { p.flushAll() }, 1 << (numIn + evFlush)},
}

// TestPipelineModel checks the skip links against a model — a plain list of
// handlers — through random AddFirst, AddLast, Remove and Replace: each
// event visits exactly the handlers that implement it, in order (inbound
// head to tail, outbound tail to head), and each context's link for each
// event is the next such handler.
func TestPipelineModel(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		var log []string
		c := &Conn{}
		p := &c.pipe
		p.init(c)
		require.NoError(t, p.AddFirst("sink", sink{&log}))
		type entry struct {
			name string
			h    Handler
		}
		model := []entry{{"sink", sink{&log}}}
		make := func(name string) Handler {
			b := recBase{name, &log}
			switch r.IntN(7) {
			case 0:
				return &recRead{b}
			case 1:
				return &recWrite{b}
			case 2:
				return &recRW{b}
			case 3:
				return &recLife{b}
			case 4:
				return &recFlush{b}
			case 5:
				return &recErr{b}
			}
			return &recAll{b}
		}
		for step := range 60 {
			name := fmt.Sprintf("h%d", step)
			switch op := r.IntN(4); {
			case op == 0 || len(model) < 2:
				h := make(name)
				require.NoError(t, p.AddLast(name, h))
				model = append(model, entry{name, h})
			case op == 1:
				h := make(name)
				require.NoError(t, p.AddFirst(name, h))
				model = slices.Insert(model, 0, entry{name, h})
			case op == 2:
				i := 1 + r.IntN(len(model)-1) // keep the sink
				h, err := p.Remove(model[i].name)
				require.NoError(t, err, "seed %d: Remove(%s)", seed, model[i].name)
				require.Equal(t, model[i].h, h, "seed %d: Remove(%s)", seed, model[i].name)
				model = slices.Delete(model, i, i+1)
			default:
				i := 1 + r.IntN(len(model)-1)
				h := make(name)
				_, err := p.Replace(model[i].name, name, h)
				require.NoError(t, err)
				model[i] = entry{name, h}
			}
			var names []string
			for _, e := range model {
				names = append(names, e.name)
			}
			got := p.Names()
			require.True(t, slices.Equal(got, names), "seed %d step %d: Names %v, model %v", seed, step, got, names)
			for ev, spec := range recEvents {
				log = log[:0]
				spec.fire(p)
				var want []string
				order := model
				if spec.bit >= 1<<numIn {
					order = slices.Clone(model)
					slices.Reverse(order)
				}
				for _, e := range order {
					if mask(e.h)&spec.bit != 0 {
						want = append(want, e.name+":"+ev)
					}
					if e.name == "sink" && spec.bit >= 1<<numIn {
						break // the sink ends outbound events
					}
				}
				require.True(t, slices.Equal(log, want), "seed %d step %d: %s visited %v, want %v", seed, step, ev, log, want)
			}
			// The links themselves: each points at the next handler of its
			// event (end: the tail), the head's included.
			xs := contexts(p)
			for i := -1; i < len(xs); i++ {
				links := p.headIn
				if i >= 0 {
					links = xs[i].in
				}
				for e := range numIn {
					var want *Context
					for _, y := range xs[i+1:] {
						if y.mask&(1<<e) != 0 {
							want = y
							break
						}
					}
					got := p.at(links[e])
					require.Same(t, want, got, "seed %d: link %d of context %d is %v, want %v", seed, e, i, got, want)
				}
			}
		}
	}
}

func contexts(p *Pipeline) []*Context {
	return slices.Clone(p.ctxs)
}

// TestPipelineErrors: duplicate and unknown names, and a handler of no
// event, are errors that change nothing.
func TestPipelineErrors(t *testing.T) {
	var log []string
	c := &Conn{}
	p := &c.pipe
	p.init(c)
	require.NoError(t, p.AddLast("a", &recRead{recBase{"a", &log}}))
	assert.Error(t, p.AddLast("a", &recRead{recBase{"a", &log}}), "AddLast of a duplicate name succeeded")
	_, err := p.Remove("b")
	assert.Error(t, err, "Remove of an unknown name succeeded")
	assert.Error(t, p.AddLast("nothing", struct{}{}), "AddLast of a handler of no event succeeded")
	_, err = p.Replace("a", "a", struct{}{})
	assert.Error(t, err, "Replace with a handler of no event succeeded")
	got := p.Names()
	assert.True(t, slices.Equal(got, []string{"a"}), "Names after failed changes: %v", got)
}

// BenchmarkPipelineSkip: firing a read through k handlers that ignore it
// costs the same for every k — the link skips them.
func BenchmarkPipelineSkip(b *testing.B) {
	for _, k := range []int{0, 4, 16} {
		b.Run(fmt.Sprintf("ignoring=%d", k), func(b *testing.B) {
			var log []string
			c := &Conn{}
			p := &c.pipe
			p.init(c)
			for i := range k {
				p.AddLast(fmt.Sprint("w", i), &recWrite{recBase{"w", &log}})
			}
			p.AddLast("end", countRead{new(int)})
			for b.Loop() {
				p.fireRead(nil)
			}
		})
	}
}

type countRead struct{ n *int }

func (c countRead) OnRead(*Context, any) { *c.n++ }

// selfRemover removes itself on its first read and then passes the read on.
type selfRemover struct{ log *[]string }

func (s selfRemover) OnRead(x *Context, msg any) {
	*s.log = append(*s.log, "remover")
	x.p.Remove(x.Name())
	x.FireRead(msg)
}

// TestPipelineRemoveSelf: a handler that removes itself mid-event still
// reaches the handlers after it, and later events skip it.
func TestPipelineRemoveSelf(t *testing.T) {
	var log []string
	c := &Conn{}
	p := &c.pipe
	p.init(c)
	p.AddLast("a", &recRead{recBase{"a", &log}})
	p.AddLast("remover", selfRemover{&log})
	p.AddLast("b", &recWrite{recBase{"b", &log}}) // not a reader: skipped
	p.AddLast("c", &recRead{recBase{"c", &log}})
	p.fireRead(nil)
	p.fireRead(nil)
	want := []string{"a:read", "remover", "c:read", "a:read", "c:read"}
	assert.True(t, slices.Equal(log, want), "reads visited %v, want %v", log, want)
}

// TestPipelineRemoveInline: the first handler's context is held inside
// the connection for its life; once removed, the handler is let go (an
// HTTP/1 handler after the switch to HTTP/2 weighs 1.3 KB a connection),
// and the context still passes events on.
func TestPipelineRemoveInline(t *testing.T) {
	var log []string
	c := &Conn{}
	p := &c.pipe
	p.init(c)
	first := &recRead{recBase{"first", &log}}
	require.NoError(t, p.AddLast("first", first))
	x := p.Context("first")
	require.Same(t, &p.inline, x, "the first context is the inline one")
	require.NoError(t, p.AddLast("next", &recRead{recBase{"next", &log}}))
	h, err := p.Remove("first")
	require.NoError(t, err)
	assert.Same(t, first, h)
	assert.Nil(t, p.inline.h, "the connection keeps the removed handler")
	x.FireRead(nil)
	assert.Equal(t, []string{"next:read"}, log)
}
